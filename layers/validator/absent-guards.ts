/**
 * `if (requireNamespace("pkg", quietly = TRUE)) { ... }` around a package that is not installed:
 * R evaluates the condition to FALSE and never runs the guarded branch, so the validator does not
 * judge it either (its findings are dropped; the `else` branch is judged as usual). Only a guard R
 * cannot be made to answer otherwise counts: the condition is exactly that call (plain or
 * `base::`), naming the package in a string, with nothing but `quietly`, in a script that binds
 * neither `requireNamespace` nor `if` nor `::`; the runner's requireNamespace answers FALSE for
 * any package a script may not load, so the branch cannot run. `rlang::is_installed(...)`
 * (roxygen's @examplesIf) counts the same way when it names its packages literally (a string or
 * c() of strings, in a script that does not bind `c`) and one of them is absent, with nothing but
 * `version`: the runner's version answers FALSE then too. r-image/runner/absent-guards.R mirrors this.
 */
import type { Node, Tree } from 'web-tree-sitter';
import { NodeKind, calleeName, literalName } from './context.ts';
import type { ScriptFactsView } from './context.ts';
import { literalPackageNames } from './package-names.ts';
import { argumentsOf } from './relaxations.ts';

const GUARD = 'requireNamespace';
/** rlang::is_installed(), the other guard R cannot be made to answer otherwise. */
const QUERY_PACKAGE = 'rlang';
const QUERY = 'is_installed';

/** A stretch of the script, as 1-based line and column of its first and last character. */
export interface SkippedRange {
  readonly start: { line: number; column: number };
  readonly end: { line: number; column: number };
}

/** The packages an `rlang::is_installed()` condition asks about, when it is such a guard; else undefined. */
function queriedPackages(condition: Node, bindsC: boolean): string[] | undefined {
  const fn = condition.childForFieldName('function');
  if (fn?.type !== NodeKind.namespaceOperator || fn.childForFieldName('lhs')?.text !== QUERY_PACKAGE || calleeName(condition) !== QUERY) return undefined;
  if (fn.childForFieldName('operator')?.type !== '::') return undefined;
  const args = argumentsOf(condition);
  const positional = args.filter((a) => a.name === undefined || a.name === 'pkg');
  if (positional.length !== 1 || args.some((a) => a.name !== undefined && a.name !== 'pkg' && a.name !== 'version')) return undefined;
  const value = positional[0]!.value;
  if (bindsC && value?.type !== NodeKind.string) return undefined;
  return literalPackageNames(value);
}

/** The package an `if` condition guards on, when it is such a guard; else undefined. */
function guardedPackage(condition: Node): string | undefined {
  if (condition.type !== NodeKind.call || calleeName(condition) !== GUARD) return undefined;
  const fn = condition.childForFieldName('function');
  if (fn?.type === NodeKind.namespaceOperator && fn.childForFieldName('lhs')?.text !== 'base') return undefined;
  const args = argumentsOf(condition);
  const positional = args.filter((a) => a.name === undefined || a.name === 'package');
  if (positional.length !== 1 || args.some((a) => a.name !== undefined && a.name !== 'package' && a.name !== 'quietly')) return undefined;
  const value = positional[0]!.value;
  // A string only: requireNamespace() evaluates its argument, so a symbol could hold any name.
  return value?.type === NodeKind.string ? literalName(value) : undefined;
}

/** The guarded branches (condition included) of every guard on a package that is not installed. */
export function absentPackageGuards(tree: Tree, script: string, installed: ReadonlySet<string>, facts: ScriptFactsView): SkippedRange[] {
  const guards = script.includes(GUARD) && !facts.bindsName(GUARD);
  const queries = script.includes(QUERY);
  if ((!guards && !queries) || script.includes('`if`') || facts.bindsName('::')) return [];
  const bindsC = facts.bindsName('c');
  const ranges: SkippedRange[] = [];
  for (const statement of tree.rootNode.descendantsOfType('if_statement')) {
    const node = statement?.childForFieldName('condition');
    if (!statement || !node || node.type !== NodeKind.call) continue;
    const pkg = guards ? guardedPackage(node) : undefined;
    const asked = pkg === undefined && queries ? queriedPackages(node, bindsC) : undefined;
    const absent = pkg !== undefined ? !installed.has(pkg) : (asked ?? []).some((p) => !installed.has(p));
    const branch = statement.childForFieldName('consequence');
    if (!absent || !branch) continue;
    const from = statement.startPosition;
    const to = branch.endPosition;
    ranges.push({ start: { line: from.row + 1, column: from.column + 1 }, end: { line: to.row + 1, column: to.column } });
  }
  return ranges;
}

/** Whether a finding at `line`, `column` lies in one of `ranges`. */
export const inSkipped = (ranges: readonly SkippedRange[], line: number, column: number): boolean =>
  ranges.some(
    (r) =>
      (line > r.start.line || (line === r.start.line && column >= r.start.column)) &&
      (line < r.end.line || (line === r.end.line && column <= r.end.column)),
  );
