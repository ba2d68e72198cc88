/**
 * A string naming a forbidden function where R resolves strings to functions: any argument of a
 * higher-order function (`sapply(x, "system")`, `purrr::map(x, "system")`), or a
 * function-valued argument anywhere (`FUN = "system"`). Escapes are decoded first, so
 * `"\x73ystem"` is `system`. And any string called as a function (`"median"(x)`,
 * `stats::"median"(x)`), as the R re-validation refuses it: the symbol form says the same and
 * every check reads it; a forbidden name after `::` is the namespace check's finding.
 */
import { NodeKind, stringNamesFunction } from '../context.ts';
import type { Check, Visit } from '../context.ts';
import { decodeStringLiteral } from '../r-strings.ts';
import { forbiddenMessage } from './advice.ts';

/** Whether the string is the function of a call, directly or as the name after `pkg::`. */
function calleeString(visit: Visit): 'direct' | 'after-namespace' | undefined {
  const parent = visit.ancestor(1);
  if (parent?.type === NodeKind.call && visit.field === 'function') return 'direct';
  if (parent?.type !== NodeKind.namespaceOperator || visit.field !== 'rhs') return undefined;
  const ns = visit.node().parent;
  const call = ns?.parent;
  return call?.type === NodeKind.call && call.childForFieldName('function')?.id === ns?.id ? 'after-namespace' : undefined;
}

/** The package written before `::` (or `:::`). */
const namespaceOf = (visit: Visit): string => visit.node().parent?.childForFieldName('lhs')?.text ?? '';

const callByName = (name: string): string => (/^[A-Za-z.][A-Za-z0-9._]*$/.test(name) && !/^\.[0-9]/.test(name) ? name : `\`${name}\``);

export const forbiddenStringFunction: Check = {
  summary: 'Rejects a string called as a function, and a string naming a forbidden function where R would resolve it to that function.',
  nodeTypes: [NodeKind.string],
  interest: (rules) => ({ names: rules.forbidden.keys(), calledStrings: true }),
  visit(visit, findings) {
    const name = decodeStringLiteral(visit.text());
    const category = findings.rules.forbidden.get(name);
    const called = calleeString(visit);
    if (called === 'after-namespace' && (category !== undefined || name.startsWith('.__'))) return;
    if (called !== undefined && category === undefined) {
      findings.error('FORBIDDEN_STRING_FUNCTION', `A string may not be called as a function; call it by name: ${called === 'after-namespace' ? `${namespaceOf(visit)}::` : ''}${callByName(name)}(...).`, name);
      return;
    }
    if (!stringNamesFunction(visit, findings.rules)) return;
    if (category === undefined) return;
    findings.error(
      'FORBIDDEN_STRING_FUNCTION',
      forbiddenMessage(name, category, ' and a string naming it where a function is expected resolves to it'),
      name,
    );
  },
};
