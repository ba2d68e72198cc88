/** `1:length(x)` is `c(1, 0)` when x is empty; seq_along/seq_len give an empty sequence. */
import { NodeKind } from '../context.ts';
import type { LintRule } from '../context.ts';

const SUGGEST: Readonly<Record<string, (arg: string) => string>> = {
  length: (x) => `seq_along(${x})`,
  nrow: (x) => `seq_len(nrow(${x}))`,
  NROW: (x) => `seq_len(NROW(${x}))`,
  ncol: (x) => `seq_len(ncol(${x}))`,
  NCOL: (x) => `seq_len(NCOL(${x}))`,
};

export const seqLinter: LintRule = {
  summary: 'Use seq_along()/seq_len() instead of 1:length(x), 1:nrow(x), 1:ncol(x).',
  severity: 'warning',
  nodeTypes: [NodeKind.binaryOperator],
  interest: () => ({ operatorsAfterOne: [':'] }),
  visit(visit, findings) {
    if (visit.frame.op !== ':') return;
    const node = visit.node();
    const lhs = node.childForFieldName('lhs');
    const rhs = node.childForFieldName('rhs');
    if (!lhs || !rhs || (lhs.text !== '1' && lhs.text !== '1L') || rhs.type !== NodeKind.call) return;
    const fn = rhs.childForFieldName('function')?.text ?? '';
    const suggest = SUGGEST[fn];
    if (!suggest) return;
    const arg = rhs.childForFieldName('arguments')?.text.slice(1, -1) ?? 'x';
    findings.lint(
      `${node.text} gives c(1, 0) when the length is 0; use ${suggest(arg)} instead.`,
    );
  },
};
