/** The operators the rules block (`<<-`, `->>`, `:::`), wherever they appear. */
import { NodeKind } from '../context.ts';
import type { Check } from '../context.ts';

const ADVICE: Readonly<Record<string, string>> = {
  '<<-': 'assign with <- and return values from functions',
  '->>': 'assign with <- (or ->) and return values from functions',
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
    const at = visit.node().childForFieldName('operator')?.startPosition;
    findings.error('BLOCKED_OPERATOR', `The operator \`${op}\` is not allowed: ${why} Instead, ${ADVICE[op] ?? 'remove it'}.`, op, at);
  },
};
