/** Package names written literally where a loader-like function takes them. */
import type { Node } from 'web-tree-sitter';
import { NodeKind, calleeName, literalName } from './context.ts';
import { argumentsOf } from './relaxations.ts';

/**
 * The packages `node` names literally for rlang::is_installed() and friends: a string, or a call
 * of plain `c` whose arguments are all unnamed strings; else undefined (a variable or any other
 * expression could hold any name).
 */
export function literalPackageNames(node: Node | null | undefined): string[] | undefined {
  if (!node) return undefined;
  if (node.type === NodeKind.string) {
    const name = literalName(node);
    return name === undefined ? undefined : [name];
  }
  if (node.type !== NodeKind.call || node.childForFieldName('function')?.type !== NodeKind.identifier || calleeName(node) !== 'c') return undefined;
  const args = argumentsOf(node);
  if (args.length === 0 || args.some((a) => a.name !== undefined || a.value?.type !== NodeKind.string)) return undefined;
  const names = args.map((a) => literalName(a.value));
  return names.every((n): n is string => n !== undefined) ? names : undefined;
}
