/**
 * A string naming a forbidden function where R resolves strings to functions: the function of a
 * call (`"system"("id")`, `r"(system)"()`), any argument of a higher-order function
 * (`sapply(x, "system")`, `purrr::map(x, "system")`), or a function-valued argument anywhere
 * (`FUN = "system"`). Escapes are decoded first, so `"\x73ystem"` is `system`.
 */
import { NodeKind, stringNamesFunction } from '../context.ts';
import type { Check } from '../context.ts';
import { decodeStringLiteral } from '../r-strings.ts';
import { forbiddenMessage } from './advice.ts';

export const forbiddenStringFunction: Check = {
  summary: 'Rejects a string naming a forbidden function where R would resolve it to that function.',
  nodeTypes: [NodeKind.string],
  interest: (rules) => ({ names: rules.forbidden.keys() }),
  visit(visit, findings) {
    if (!stringNamesFunction(visit, findings.rules)) return;
    const name = decodeStringLiteral(visit.text());
    const category = findings.rules.forbidden.get(name);
    if (category === undefined) return;
    findings.error(
      'FORBIDDEN_STRING_FUNCTION',
      forbiddenMessage(name, category, ' and a string naming it where a function is expected resolves to it'),
      name,
    );
  },
};
