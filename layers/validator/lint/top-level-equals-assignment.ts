/** `x = 1` at top level works, but `<-` is R's assignment and never reads as an argument. */
import { NodeKind } from '../context.ts';
import type { LintRule } from '../context.ts';

export const topLevelEqualsAssignment: LintRule = {
  summary: 'Use <- instead of = for top-level assignment.',
  severity: 'info',
  nodeTypes: [NodeKind.binaryOperator],
  interest: () => ({ topLevelOperators: ['='] }),
  visit(visit, findings) {
    if (visit.frame.op !== '=' || visit.ancestor(1)?.type !== NodeKind.program) return;
    findings.lint('Use <- for assignment instead of = at top level.');
  },
};
