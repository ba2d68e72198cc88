/**
 * Calls that may fail for want of a capability (the table's `warning` rows: readRDS() reads back
 * only installed packages' files), and parallel's forking helpers asked for more than one core:
 * they run serially here (MC_CORES=1), and mc.cores > 1 would fork, which the sandbox refuses.
 */
import { capabilityMessage } from '../../rules/capabilities.ts';
import { capabilityOf } from '../checks/capability-call.ts';
import { NodeKind, argumentsOf } from '../context.ts';
import type { LintRule } from '../context.ts';

const FORKING = new Set(['mclapply', 'mcmapply', 'mcMap', 'pvec']);

export const capabilityAdvice: LintRule = {
  summary: 'A call that may need a capability the sandbox refuses (reading back serialized objects, forking).',
  severity: 'warning',
  nodeTypes: [NodeKind.call],
  interest: (rules) => ({
    names: [...[...rules.capabilityFunctions.keys()].map((key) => key.split('::').at(-1)!), ...FORKING],
  }),
  visit(visit, findings) {
    const { callee, calleePackage } = visit.frame;
    if (FORKING.has(callee) && (calleePackage === '' || calleePackage === 'parallel')) {
      const cores = argumentsOf(visit.node()).find((a) => a.name === 'mc.cores');
      if (cores && !/^1L?$/.test(cores.value?.text ?? '')) {
        findings.lint(`${callee}() runs serially here (one core, no fork): mc.cores must be 1, or leave it out.`, cores.node.startPosition);
      }
      return;
    }
    const found = capabilityOf(callee, calleePackage, findings.rules);
    if (!found || found.row.severity !== 'warning') return;
    findings.lint(capabilityMessage(found.category, calleePackage === '' ? callee : `${calleePackage}::${callee}`));
  },
};
