/** `T`/`F` are ordinary variables that can be reassigned; TRUE/FALSE cannot. */
import { NodeKind, nameRole } from '../context.ts';
import type { LintRule } from '../context.ts';

export const tfLiteral: LintRule = {
  summary: 'Use TRUE/FALSE instead of T/F.',
  severity: 'warning',
  nodeTypes: [NodeKind.identifier],
  interest: () => ({ names: ['T', 'F'] }),
  visit(visit, findings) {
    const text = visit.text();
    if (text !== 'T' && text !== 'F') return;
    if (nameRole(visit) !== 'reference') return;
    findings.lint(`Use ${text === 'T' ? 'TRUE' : 'FALSE'} instead of ${text}: T and F are variables that can be overwritten.`);
  },
};
