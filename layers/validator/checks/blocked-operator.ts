/**
 * The operators the rules block (`<<-`, `->>`, `:::`), wherever they appear; `pkg:::name` passes
 * when it names a listed internal function of a package the script may load (packages.internalFunctions),
 * called or as a value. revalidate.R (internal-functions.R) decides the same.
 */
import { NodeKind } from '../context.ts';
import type { Check, CompiledRules } from '../context.ts';
import { superassignStaysInScript } from '../superassign.ts';

const ADVICE: Readonly<Record<string, string>> = {
  ':::': 'use the exported function with pkg::name',
};

/**
 * What a refused `pkg:::name` adds to its message: the internal functions of pkg a script may use,
 * when the rules list any. The R re-validation and the runner's `:::` add the same sentence.
 */
export function internalFunctionsHint(pkg: string, rules: CompiledRules): string {
  const listed = rules.internalFunctions.get(pkg);
  if (listed === undefined || listed.size === 0) return '';
  return ` Of ${pkg}'s internal functions, a script may use only ${[...listed].join(', ')}, as ${pkg}:::name.`;
}

export const blockedOperator: Check = {
  summary: 'Rejects the blocked operators (superassignment, access to unexported internals but the listed ones).',
  nodeTypes: [NodeKind.binaryOperator, NodeKind.namespaceOperator, NodeKind.unaryOperator],
  interest: (rules) => ({ operators: rules.blockedOperators.keys() }),
  visit(visit, findings) {
    const op = visit.frame.op;
    const why = findings.rules.blockedOperators.get(op);
    if (why === undefined) return;
    if (findings.rules.superassignOperators.has(op) && superassignStaysInScript(visit.node(), findings.rules.localFunctions)) return;
    const internal = op === ':::' && visit.frame.type === NodeKind.namespaceOperator;
    const pkg = visit.frame.calleePackage;
    if (internal && findings.rules.internalFunctions.get(pkg)?.has(visit.frame.nsName)) return;
    const at = visit.node().childForFieldName('operator')?.startPosition;
    const advice = findings.rules.superassignOperators.has(op) ? findings.rules.superassignAdvice : ADVICE[op];
    const hint = internal ? internalFunctionsHint(pkg, findings.rules) : '';
    findings.error('BLOCKED_OPERATOR', `The operator \`${op}\` is not allowed: ${why} Instead, ${advice ?? 'remove it'}.${hint}`, op, at);
  },
};
