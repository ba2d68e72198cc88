/**
 * The argument walk the loaders and the package queries share: which argument names the package
 * (the first one unnamed or named by one of its formals), which further arguments would also
 * name one, and which named arguments are not on the allowed list. Each caller words its own
 * findings, since a loader takes one package and a query a vector of them.
 */
import type { Node } from 'web-tree-sitter';
import { NodeKind, literalName } from '../context.ts';

export interface PackageArguments {
  /** The argument that names the package(s), if any. */
  readonly packageArg: Node | undefined;
  /** Further unnamed (or package-formal) arguments: each would name another package. */
  readonly extraPackageArgs: readonly Node[];
  /** Named arguments that are neither a package formal nor allowed. */
  readonly refused: readonly { readonly name: string; readonly arg: Node }[];
}

export function packageArguments(call: Node, packageFormals: ReadonlySet<string>, allowed: ReadonlySet<string>): PackageArguments {
  const args = call.childForFieldName('arguments')?.namedChildren.filter((c) => c?.type === NodeKind.argument) ?? [];
  let packageArg: Node | undefined;
  const extraPackageArgs: Node[] = [];
  const refused: { name: string; arg: Node }[] = [];
  for (const arg of args) {
    if (!arg) continue;
    const nameNode = arg.childForFieldName('name');
    const name = nameNode ? literalName(nameNode) ?? nameNode.text : undefined;
    if (name === undefined || packageFormals.has(name)) {
      if (packageArg === undefined) packageArg = arg;
      else extraPackageArgs.push(arg);
    } else if (!allowed.has(name)) {
      refused.push({ name, arg });
    }
  }
  return { packageArg, extraPackageArgs, refused };
}
