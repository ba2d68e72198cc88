/**
 * A forbidden symbol wherever R would look it up: called, used as a value (`f <- system`),
 * passed (`lapply(x, system)`), `pkg::` qualified, backquoted, or a replacement function
 * reached through an assignment (`body(f) <- v` calls `body<-`). Names R never looks up
 * (assignment targets, argument names, `$`/`@` fields, formal parameters) are allowed.
 */
import { NodeKind, nameRole } from '../context.ts';
import type { Check } from '../context.ts';
import { decodeName, decodeStringLiteral } from '../r-strings.ts';
import { forbiddenMessage } from './advice.ts';

export const forbiddenSymbol: Check = {
  summary: 'Rejects any reference to a forbidden symbol: call, value, argument, qualified, backquoted, or replacement call.',
  nodeTypes: [NodeKind.identifier, NodeKind.string, NodeKind.call],
  interest: (rules) => ({ names: [...rules.forbidden.keys(), ...rules.forbiddenReplacementBases] }),
  visit(visit, findings) {
    const { forbidden } = findings.rules;
    if (visit.type === NodeKind.call) {
      if (!visit.frame.target || visit.frame.callee === '') return;
      const replacement = `${visit.frame.callee}<-`;
      const category = forbidden.get(replacement);
      if (category !== undefined) {
        findings.error(
          'FORBIDDEN_SYMBOL',
          forbiddenMessage(replacement, category, ` (called by \`${visit.frame.callee}(...) <- value\`)`),
          replacement,
        );
      }
      return;
    }
    if (visit.type === NodeKind.string) {
      // Only `pkg::"name"` is a lookup here; strings as functions are the string check's job.
      if (visit.ancestor(1)?.type !== NodeKind.namespaceOperator || visit.field !== 'rhs') return;
    }
    const role = nameRole(visit);
    if (role !== 'call' && role !== 'reference') return;
    const text = visit.text();
    const name = visit.type === NodeKind.string ? decodeStringLiteral(text) : decodeName(text);
    const category = forbidden.get(name);
    if (category === undefined) return;
    const how = role === 'call' ? '' : ' even as a value or argument, since whatever receives it can call it';
    findings.error('FORBIDDEN_SYMBOL', forbiddenMessage(name, category, how), name);
  },
};
