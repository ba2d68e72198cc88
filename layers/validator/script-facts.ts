/**
 * Facts about the whole script that a relaxation (relaxations.ts) depends on, computed the first
 * time a check asks and kept for the rest of the validation: whether the script binds a name that
 * would change what an operator or a column function does with a forbidden name it is given, and
 * how a saved options list is bound. Found by the lexical pre-scan over the whole text
 * (candidates.ts) and judged on the tree, so the answer is the same whichever walk driver asks and
 * wherever in the script the binding is.
 */
import type { Node, Tree } from 'web-tree-sitter';
import { findCandidates, mergeInterests } from './candidates.ts';
import type { Interest } from './candidates.ts';
import { NodeKind, calleeName, isAssignmentTarget, literalName, operatorOf, roleAt } from './context.ts';
import type { CompiledRules, NameRole, ScriptFactsView } from './context.ts';

/** The fields a name's role depends on, by the kind of its parent (see roleAt in context.ts). */
const ROLE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  [NodeKind.call]: ['function'],
  [NodeKind.argument]: ['name', 'value'],
  [NodeKind.parameter]: ['name'],
  [NodeKind.extractOperator]: ['lhs', 'rhs'],
  [NodeKind.namespaceOperator]: ['lhs', 'rhs'],
  [NodeKind.binaryOperator]: ['lhs', 'rhs'],
  [NodeKind.forStatement]: ['variable'],
};

/**
 * The field `child` occupies in `parent`, among those a role depends on; null otherwise. Asked by
 * field, never by walking the children: a program has thousands of top-level children.
 */
function fieldOf(parent: Node, child: Node): string | null {
  for (const field of ROLE_FIELDS[parent.type] ?? []) {
    if (parent.childForFieldName(field)?.equals(child)) return field;
  }
  return null;
}

/** nameRole (context.ts) for a node reached without the walk's frames. */
export function nodeRole(node: Node): NameRole {
  const parent = node.parent;
  if (!parent) return 'reference';
  // Only a pkg::name needs to know where its parent stands (roleAt: is it called?).
  const grandparent = parent.type === NodeKind.namespaceOperator ? parent.parent : null;
  return roleAt({
    field: fieldOf(parent, node),
    parent: { type: parent.type, op: operatorOf(parent), field: grandparent ? fieldOf(grandparent, parent) : null },
    grandparentType: grandparent?.type,
  });
}

/** Whether `node` lies inside the target of an assignment (`op$x <- 1`, `names(op) <- n`). */
function insideTarget(node: Node): boolean {
  let child = node;
  for (let parent = node.parent; parent; child = parent, parent = parent.parent) {
    if (parent.type === NodeKind.binaryOperator && isAssignmentTarget(operatorOf(parent), fieldOf(parent, child))) return true;
  }
  return false;
}

const DEFINING: ReadonlySet<NameRole> = new Set(['binding', 'parameter']);

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NAME = '[A-Za-z.][A-Za-z0-9._]*';
const BINDING_TEXT = new RegExp(
  `(${NAME})\`?\\s*(?:<<?-|=(?!=))|->>?\\s*\`?(${NAME})|\\(\\s*(${NAME})\\s+in\\b|(?:\\bfunction|\\\\)\\s*\\(([^)]*)\\)`,
  'g',
);

/**
 * The names the text could bind, from one regular-expression pass: assignment targets, loop
 * variables, parameters. An over-report (a name inside a string or comment) is fine: the tree
 * decides for each name asked; an under-report is not, so anything unusual falls to the tree.
 */
function namesTheTextMayBind(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(BINDING_TEXT)) {
    for (const name of [m[1], m[2], m[3]]) if (name) out.add(name);
    if (m[4] !== undefined) for (const part of m[4].split(',')) out.add(part.split('=')[0]!.trim().replace(/^`|`$/g, ''));
  }
  return out;
}

export class ScriptFacts implements ScriptFactsView {
  private operators: string | null | undefined;
  private readonly columnFunctions = new Map<string, string | null>();
  private readonly saved = new Map<string, string | null>();
  private readonly bound = new Map<string, boolean>();
  private readonly variables = new Map<string, boolean>();
  private mayBind: Set<string> | undefined;
  private dataArgument: boolean | undefined;

  constructor(
    private readonly tree: Tree,
    private readonly text: string,
    private readonly rules: CompiledRules,
  ) {}

  /** The named nodes standing at the tokens `interest` picks out of the text, with their decoded names. */
  private occurrences(interest: Interest): { node: Node; name: string }[] {
    const root = this.tree.rootNode;
    const out: { node: Node; name: string }[] = [];
    for (const index of findCandidates(this.text, mergeInterests([interest]))) {
      // The token's own named node: a string's opening quote is a named child of the string.
      let node = root.namedDescendantForIndex(index, index + 1);
      while (node && node.startIndex === index && node.type !== NodeKind.identifier && node.type !== NodeKind.string) node = node.parent;
      const name = literalName(node);
      if (node && name !== undefined && node.startIndex === index) out.push({ node, name });
    }
    return out;
  }

  /**
   * Why operands of the column operators may not be relaxed in this script, or undefined: it binds
   * an operator's name, defines an S3 method for one (or for the Ops group), or names a list
   * element after one (a list evaluated as an environment by with() would bind it).
   */
  redefinedOperator(): string | undefined {
    if (this.operators === undefined) {
      const ops = this.rules.columnOperators;
      const isMethod = (name: string): boolean =>
        name.startsWith('Ops.') || [...ops].some((op) => name.length > op.length + 1 && name.startsWith(`${op}.`));
      const found = this.occurrences({ names: ops, nameTest: isMethod }).find(({ node, name }) => {
        const role = nodeRole(node);
        return DEFINING.has(role) || (role === 'argument-name' && ops.has(name));
      });
      this.operators = found ? `the script defines \`${found.name}\`` : null;
    }
    return this.operators ?? undefined;
  }

  /**
   * Why an argument of the column functions `receivers` (the call that receives the name, and for a
   * column set the verb too) may not be relaxed in this script, or undefined: it binds one of their
   * names, or defines the S3 method a function value would dispatch to (`<name>.function`,
   * `<name>.default`). Only the receivers count: a column function the script does not rebind is
   * the package's, whatever else the script names `rank` or `count`.
   */
  redefinedColumnFunction(receivers: readonly string[]): string | undefined {
    const key = [...receivers].sort().join(' ');
    let problem = this.columnFunctions.get(key);
    if (problem === undefined) {
      const names = receivers.flatMap((f) => [f, `${f}.function`, `${f}.default`]);
      const found = names.length === 0 ? undefined : this.occurrences({ names }).find(({ node }) => DEFINING.has(nodeRole(node)));
      problem = found ? `the script defines \`${found.name}\`` : null;
      this.columnFunctions.set(key, problem);
    }
    return problem ?? undefined;
  }

  /**
   * Why `options(name)` may not restore `name`, or undefined when every binding of `name` in the
   * script is `name <- options(...)` (or `=`, `->`) and nothing else binds or modifies it.
   */
  savedOptionsProblem(name: string): string | undefined {
    let problem = this.saved.get(name);
    if (problem === undefined) {
      problem = this.judgeSavedOptions(name) ?? null;
      this.saved.set(name, problem);
    }
    return problem ?? undefined;
  }

  mentionsDataArgument(): boolean {
    if (this.dataArgument === undefined) {
      const names = [...this.rules.dataArguments].map(escapeRegExp).join('|');
      this.dataArgument = new RegExp(`(${names})\`?\\s*=(?!=)`).test(this.text);
    }
    return this.dataArgument;
  }

  bindsName(name: string): boolean {
    this.mayBind ??= namesTheTextMayBind(this.text);
    // Backquoted or otherwise unusual spellings are not in the pre-pass: the tree answers for them.
    if (!this.mayBind.has(name) && /^[A-Za-z.][A-Za-z0-9._]*$/.test(name)) return false;
    let binds = this.bound.get(name);
    if (binds === undefined) {
      binds = this.occurrences({ names: [name] }).some(({ node }) => DEFINING.has(nodeRole(node)));
      this.bound.set(name, binds);
    }
    return binds;
  }

  bindsAsVariable(name: string): boolean {
    if (!this.bindsName(name)) return false;
    let variable = this.variables.get(name);
    if (variable === undefined) {
      variable = this.occurrences({ names: [name] }).some(({ node }) => {
        const role = nodeRole(node);
        if (role === 'parameter') return true;
        if (role !== 'binding') return false;
        const assignment = node.parent!;
        if (assignment.type !== NodeKind.binaryOperator) return true;
        const value = assignment.childForFieldName(fieldOf(assignment, node) === 'lhs' ? 'rhs' : 'lhs');
        return value?.type !== NodeKind.functionDefinition;
      });
      this.variables.set(name, variable);
    }
    return variable;
  }

  private judgeSavedOptions(name: string): string | undefined {
    let saved = false;
    for (const { node } of this.occurrences({ names: [name] })) {
      const role = nodeRole(node);
      if (role === 'binding') {
        const assignment = node.parent!;
        if (assignment.type !== NodeKind.binaryOperator) return `\`${name}\` is also a loop variable`;
        const value = assignment.childForFieldName(fieldOf(assignment, node) === 'lhs' ? 'rhs' : 'lhs');
        if (value?.type !== NodeKind.call || !this.rules.savedOptionsFunctions.has(calleeName(value) ?? '')) {
          return `\`${name}\` is also assigned something other than options(...)`;
        }
        saved = true;
      } else if (role === 'parameter') {
        return `\`${name}\` is also a function parameter`;
      } else if (role === 'reference' && insideTarget(node)) {
        return `\`${name}\` is modified after it is saved`;
      }
    }
    return saved ? undefined : `\`${name}\` is not assigned from options(...) in the script`;
  }
}
