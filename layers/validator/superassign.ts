/**
 * Whether a `<<-` (or `->>`) writes into a scope the script defined: its target is bound in a
 * function or a `local()` block that lexically encloses the innermost one holding the operator.
 * R's superassignment starts looking one environment above the current one, so a target bound
 * there is found there and the write stays in the script's own closure (a counter, a memo);
 * anything else could reach the global environment or the runner's mask. Mirrored by
 * r-image/runner/superassign.R on the parse data; the runner's `<<-` checks the real environment.
 */
import type { Node } from 'web-tree-sitter';
import { NodeKind, calleeName, operatorOf } from './context.ts';

const FUNCTION = 'function_definition';
const ASSIGN = new Set(['<-', '=', '<<-']);
const RIGHT_ASSIGN = new Set(['->', '->>']);

/** The variable a superassignment writes: `x`, or the object of `x$a`, `x[[i]]`, `x[i]`. */
export function superassignTarget(node: Node): string | undefined {
  const op = operatorOf(node);
  let target = node.childForFieldName(RIGHT_ASSIGN.has(op) ? 'rhs' : 'lhs');
  while (target && target.type !== NodeKind.identifier) {
    if (target.type === NodeKind.extractOperator && operatorOf(target) === '$') target = target.childForFieldName('lhs');
    else if (target.type === NodeKind.subset || target.type === NodeKind.subset2) target = target.childForFieldName('function');
    else return undefined;
  }
  return target?.text;
}

/** A function definition or a call of `local`/`base::local` (the functions localBlocks allows). */
function isScope(node: Node, localFunctions: ReadonlySet<string>): boolean {
  if (node.type === FUNCTION) return true;
  if (node.type !== NodeKind.call) return false;
  const fn = node.childForFieldName('function');
  if (fn?.type === NodeKind.namespaceOperator && fn.childForFieldName('lhs')?.text !== 'base') return false;
  return localFunctions.has(calleeName(node) ?? '');
}

/** Whether `scope` binds `name` itself: a parameter, or an assignment outside nested scopes. */
function binds(scope: Node, name: string, localFunctions: ReadonlySet<string>): boolean {
  if (scope.type === FUNCTION) {
    const params = scope.childForFieldName('parameters');
    for (const p of params?.namedChildren ?? []) if (p?.childForFieldName('name')?.text === name) return true;
  }
  const stack: Node[] = [...scope.namedChildren.filter((c): c is Node => c !== null)];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isScope(node, localFunctions)) continue;
    if (node.type === NodeKind.binaryOperator) {
      const op = operatorOf(node);
      const side = ASSIGN.has(op) && op !== '<<-' ? 'lhs' : op === '->' ? 'rhs' : undefined;
      const target = side ? node.childForFieldName(side) : null;
      if (target?.type === NodeKind.identifier && target.text === name) return true;
    }
    if (node.type === NodeKind.forStatement && node.childForFieldName('variable')?.text === name) return true;
    for (const c of node.namedChildren) if (c) stack.push(c);
  }
  return false;
}

/** True when the superassignment `node` writes a variable bound in an enclosing scope of the script. */
export function superassignStaysInScript(node: Node, localFunctions: ReadonlySet<string>): boolean {
  const name = superassignTarget(node);
  if (name === undefined) return false;
  let scope = node.parent;
  while (scope && !isScope(scope, localFunctions)) scope = scope.parent;
  for (let outer = scope?.parent; outer; outer = outer.parent) {
    if (isScope(outer, localFunctions) && binds(outer, name, localFunctions)) return true;
  }
  return false;
}
