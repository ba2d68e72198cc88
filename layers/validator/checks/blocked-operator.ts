/** The operators the rules block (`<<-`, `->>`, `:::`), wherever they appear. */
import { NodeKind } from '../context.ts';
import type { Check } from '../context.ts';
import { superassignStaysInScript } from '../superassign.ts';

const ADVICE: Readonly<Record<string, string>> = {
  ':::': 'use the exported function with pkg::name',
};

export const blockedOperator: Check = {
  summary: 'Rejects the blocked operators (superassignment, access to unexported internals).',
  nodeTypes: [NodeKind.binaryOperator, NodeKind.namespaceOperator, NodeKind.unaryOperator],
  interest: (rules) => ({ operators: rules.blockedOperators.keys() }),
  visit(visit, findings) {
    const op = visit.frame.op;
    const why = findings.rules.blockedOperators.get(op);
    if (why === undefined) return;
    if (findings.rules.superassignOperators.has(op) && superassignStaysInScript(visit.node(), findings.rules.localFunctions)) return;
    const at = visit.node().childForFieldName('operator')?.startPosition;
    const advice = findings.rules.superassignOperators.has(op) ? findings.rules.superassignAdvice : ADVICE[op];
    findings.error('BLOCKED_OPERATOR', `The operator \`${op}\` is not allowed: ${why} Instead, ${advice ?? 'remove it'}.`, op, at);
  },
};
