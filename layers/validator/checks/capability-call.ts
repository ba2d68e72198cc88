/**
 * A direct call of a capability function (layers/rules/capabilities.json `functions`):
 * `system("id")`, `utils::download.file(...)`, `data.table::address(x)`, `Sys.setenv(FOO = 1)`.
 * Whatever route a script takes, the capsule refuses the capability below R with the same words;
 * this says so before anything runs, where the call is written plainly. Names are advice: a call
 * reached another way (`get("system")`) is not this check's to find. The runner's re-validation
 * (r-image/runner/R/parse.R) refuses the same direct calls in R's reading of the script.
 */
import type { Node } from 'web-tree-sitter';
import { R_ATTACHED_PACKAGES, capabilityMessage, type CapabilityCall } from '../../rules/capabilities.ts';
import { NodeKind, argumentsOf, literalName } from '../context.ts';
import type { Check, CompiledRules } from '../context.ts';

const ATTACHED: ReadonlySet<string> = new Set(R_ATTACHED_PACKAGES);

/** The table's row for a call of `name`, written bare or as `pkg::name`. */
export function capabilityOf(name: string, pkg: string, rules: CompiledRules): CapabilityCall | undefined {
  if (pkg === '') return rules.capabilityFunctions.get(name);
  return rules.capabilityFunctions.get(`${pkg}::${name}`) ?? (ATTACHED.has(pkg) ? rules.capabilityFunctions.get(name) : undefined);
}

/** A name the table lets a script set: listed, or begun by a listed prefix ("LC_*"). */
export function environmentNameAllowed(name: string, rules: CompiledRules): boolean {
  return rules.capabilities.environmentNames.some((allowed) => (allowed.endsWith('*') ? name.startsWith(allowed.slice(0, -1)) : name === allowed));
}

/** The literal environment names a call sets (as argument names) or unsets (as string values). */
function environmentNames(call: Node, from: 'argument' | 'value'): string[] {
  const names: string[] = [];
  for (const arg of argumentsOf(call)) {
    if (from === 'argument') {
      if (arg.name !== undefined) names.push(arg.name);
    } else if (arg.value?.type === NodeKind.string) {
      names.push(literalName(arg.value)!);
    } else if (arg.value?.type === NodeKind.call && literalName(arg.value.childForFieldName('function')) === 'c') {
      for (const inner of argumentsOf(arg.value)) if (inner.value?.type === NodeKind.string) names.push(literalName(inner.value)!);
    }
  }
  return names;
}

export const capabilityCall: Check = {
  summary: 'A direct call of a function that always reaches a capability the sandbox refuses (capabilities.json).',
  nodeTypes: [NodeKind.call],
  interest: (rules) => ({ names: [...rules.capabilityFunctions.keys()].map((key) => key.split('::').at(-1)!) }),
  visit(visit, findings) {
    const { callee, calleePackage } = visit.frame;
    if (callee === '') return;
    const found = capabilityOf(callee, calleePackage, findings.rules);
    if (!found || (found.row.severity ?? 'error') !== 'error') return;
    const written = calleePackage === '' ? callee : `${calleePackage}::${callee}`;
    if (found.row.names !== undefined) {
      const refused = environmentNames(visit.node(), found.row.names).filter((n) => !environmentNameAllowed(n, findings.rules));
      if (refused.length === 0) return;
      findings.error('CAPABILITY_NOT_AVAILABLE', `${capabilityMessage(found.category, written)} (not ${refused.join(', ')})`, callee);
      return;
    }
    findings.error('CAPABILITY_NOT_AVAILABLE', capabilityMessage(found.category, written), callee);
  },
};
