/**
 * options() may set presentation settings by name only: the denied names make R run programs or
 * code later or weaken limits, and an unnamed non-string argument (a list built elsewhere) could
 * carry any of them past this check. One exception (the rules' relaxations.savedOptions):
 * `options(op)` where every binding of `op` in the script is `op <- options(...)`, so it holds only
 * values options() had before. options() used as a value is refused too, but not read as data: a
 * variable of the script or a column (`options <- c("call", "put")`; functionValueAsData).
 */
import { NodeKind, functionValueName, literalName, operatorOf } from '../context.ts';
import type { Node } from 'web-tree-sitter';
import type { Check, Findings, Visit } from '../context.ts';
import { decodeName } from '../r-strings.ts';
import { functionValueAsData, insideScope } from '../relaxations.ts';

export const optionsCheck: Check = {
  summary: 'options() only by name, and never the denied option names.',
  nodeTypes: [NodeKind.call, NodeKind.identifier, NodeKind.string],
  interest: (rules) => ({ names: rules.optionFunctions }),
  visit(visit, findings) {
    const { optionFunctions, deniedOptions, restrictedOptions } = findings.rules;
    if (visit.type === NodeKind.call) {
      const fn = visit.frame.callee;
      if (!optionFunctions.has(fn)) return;
      const args = visit.node().childForFieldName('arguments')?.namedChildren ?? [];
      for (const arg of args) {
        if (!arg || arg.type !== NodeKind.argument) continue;
        const nameNode = arg.childForFieldName('name');
        if (nameNode) {
          const name = literalName(nameNode) ?? nameNode.text;
          const allowed = restrictedOptions.get(name);
          if (allowed !== undefined) {
            const value = literalNumber(arg.childForFieldName('value'));
            if (value === undefined || !allowed.includes(value)) {
              findings.error(
                'OPTION_NOT_ALLOWED',
                `The option '${name}' may be set only to ${allowed.join(', ')}, written as a number (e.g. options(${name} = ${allowed[allowed.length - 1]})).`,
                name,
                nameNode.startPosition,
              );
            }
          } else if (deniedOptions.has(name)) {
            findings.error(
              'OPTION_NOT_ALLOWED',
              `The option '${name}' cannot be set in jube-r (it runs programs or code later, or weakens limits); remove it.`,
              name,
              nameNode.startPosition,
            );
          }
          continue;
        }
        const value = arg.childForFieldName('value');
        if (!value || value.type === NodeKind.string) continue;
        const problem = restoreProblem(fn, value, visit, findings);
        if (problem === null) continue;
        findings.error(
          'OPTION_NOT_ALLOWED',
          `Pass options by name, e.g. ${fn}(digits = 3), or restore saved ones with op <- ${fn}(digits = 3); ...; ${fn}(op); here ${problem}.`,
          fn,
          value.startPosition,
        );
      }
      return;
    }
    const name = functionValueName(visit, findings.rules);
    if (name === undefined) return;
    if (!optionFunctions.has(name)) return;
    const data = functionValueAsData(visit, name, findings, true);
    if (data === true) return;
    const why = data === undefined ? '' : ` As a column it would be allowed here, but ${data}.`;
    findings.error('OPTION_NOT_ALLOWED', `Call ${name}() directly with named settings, e.g. ${name}(digits = 3); it cannot be passed as a value.${why}`, name);
  },
};

/** The number a literal (`1`, `-1`, `2L`, `1.0`) stands for, or undefined for anything else. */
export function literalNumber(node: Node | null | undefined): number | undefined {
  if (!node) return undefined;
  let sign = 1;
  let inner: Node | null = node;
  if (node.type === NodeKind.unaryOperator && operatorOf(node) === '-') {
    sign = -1;
    inner = node.childForFieldName('rhs');
  }
  if (!inner || (inner.type !== NodeKind.float && inner.type !== NodeKind.integer)) return undefined;
  const text = inner.text.replace(/L$/, '');
  if (!/^\d+(\.\d*)?$/.test(text)) return undefined;
  return sign * Number(text);
}

/** Why an unnamed, non-string argument of `fn` is not a saved list it may restore, or null when it is. */
function restoreProblem(fn: string, value: Node, visit: Visit, findings: Findings): string | null {
  if (value.type !== NodeKind.identifier || !findings.rules.savedOptionsFunctions.has(fn)) return `${fn}() with an unnamed list is not allowed`;
  if (insideScope(visit, findings.rules)) return 'it is restored inside with(), whose list could rebind it';
  return findings.facts.savedOptionsProblem(decodeName(value.text)) ?? null;
}
