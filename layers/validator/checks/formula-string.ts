/**
 * A formula written as a string is parsed and its terms evaluated by model functions:
 * `lm("y ~ system('id')", data = d)` runs `system` through `as.formula` inside `model.frame`.
 * So a string containing `~` is read as R code, and a forbidden name (or a blocked operator)
 * in it is rejected as if written outside the quotes.
 */
import { NodeKind } from '../context.ts';
import type { Check } from '../context.ts';
import { decodeEscapes, decodeStringLiteral } from '../r-strings.ts';
import { forbiddenMessage } from './advice.ts';

const NAME = /`((?:[^`\\]|\\.)*)`|((?:[A-Za-z]|\.(?![0-9]))[A-Za-z0-9._]*)/g;

export const formulaString: Check = {
  summary: 'Rejects formula strings (containing ~) that name a forbidden symbol or use a blocked operator.',
  nodeTypes: [NodeKind.string],
  interest: () => ({ strings: (value) => value.includes('~') }),
  visit(visit, findings) {
    const value = decodeStringLiteral(visit.text());
    if (!value.includes('~')) return;
    const { forbidden, blockedOperators } = findings.rules;
    for (const match of value.matchAll(NAME)) {
      const name = match[1] !== undefined ? decodeEscapes(match[1]) : match[2]!;
      const category = forbidden.get(name);
      if (category === undefined) continue;
      findings.error(
        'FORBIDDEN_STRING_FUNCTION',
        forbiddenMessage(name, category, ' and a formula given as a string is parsed and evaluated as code'),
        name,
      );
      return;
    }
    for (const op of blockedOperators.keys()) {
      if (!value.includes(op)) continue;
      findings.error('BLOCKED_OPERATOR', `The operator \`${op}\` is not allowed, not even inside a formula string; write the formula without it.`, op);
      return;
    }
  },
};
