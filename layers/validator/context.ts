/**
 * What every check and lint rule sees: the rules compiled once into sets, the node being
 * visited with its ancestors' frames (the walk annotates each frame with the few facts the checks
 * need: operator, callee, argument name, assignment-target flag), and a sink for findings.
 */
import type { Node, Point } from 'web-tree-sitter';
import type { ScriptRules } from '../rules/rules.ts';
import { allowedPackages, checkedExportArguments, forbiddenSymbolIndex, internalFunctions, namedExports } from '../rules/rules.ts';
import type { ArgumentKind } from '../rules/rules.ts';
import type { LintFinding, ValidationErrorCode } from '../contract/validation.ts';
import type { Interest } from './candidates.ts';
import { decodeName, decodeStringLiteral } from './r-strings.ts';

/** The tree-sitter-r node kinds the checks name (node-types.json of @davisvaughan/tree-sitter-r). */
export const NodeKind = {
  program: 'program',
  identifier: 'identifier',
  string: 'string',
  call: 'call',
  arguments: 'arguments',
  argument: 'argument',
  parameter: 'parameter',
  binaryOperator: 'binary_operator',
  unaryOperator: 'unary_operator',
  namespaceOperator: 'namespace_operator',
  extractOperator: 'extract_operator',
  subset: 'subset',
  subset2: 'subset2',
  forStatement: 'for_statement',
  functionDefinition: 'function_definition',
  float: 'float',
  integer: 'integer',
  true: 'true',
  false: 'false',
} as const;
export type NodeKind = (typeof NodeKind)[keyof typeof NodeKind];

/** The node kind of most `%op%` operators (`%in%` and `%o%` have their own). */
export const SPECIAL = 'special';

/** An operator node's operator as written (`<-`, `==`, `%>%`), or ''. */
export function operatorOf(node: Node): string {
  const op = node.childForFieldName('operator');
  if (!op) return '';
  return op.type === SPECIAL ? op.text : op.type;
}

/** The rules as sets and maps, built once per validator. */
export interface CompiledRules {
  readonly forbidden: ReadonlyMap<string, string>;
  readonly blockedOperators: ReadonlyMap<string, string>;
  readonly loaders: ReadonlySet<string>;
  readonly loaderNamedArguments: ReadonlySet<string>;
  readonly allowedPackages: ReadonlySet<string>;
  readonly blockedPackages: ReadonlyMap<string, string>;
  /** A meta-package's name -> the packages it attaches (script-rules.json packages.metaPackages). */
  readonly metaPackages: ReadonlyMap<string, readonly string[]>;
  /** An installed dependency a script may not load -> what to write instead (packages.allowedDependencies.insteadOf). */
  readonly dependencyAdvice: ReadonlyMap<string, string>;
  /** A blocked package -> the exports a script may still call as `pkg::name` (packages.namedExports). */
  readonly namedExports: ReadonlyMap<string, ReadonlySet<string>>;
  /** A package the script may load -> the internal functions it may reach as `pkg:::name` (packages.internalFunctions). */
  readonly internalFunctions: ReadonlyMap<string, ReadonlySet<string>>;
  /** `pkg::name` -> why that export of a named-exports package is not among them. */
  readonly refusedExports: ReadonlyMap<string, string>;
  /** packages.packageQueries: `pkg::name` -> held to the loaders' rules, with these named arguments allowed. */
  readonly packageQueries: ReadonlySet<string>;
  readonly packageQueryArguments: ReadonlySet<string>;
  /** `pkg::name` of a named export whose arguments are checked -> its allowed arguments and their kinds. */
  readonly checkedExports: ReadonlyMap<string, ReadonlyMap<string, ArgumentKind>>;
  readonly installedPackages: ReadonlySet<string>;
  readonly installedPackageList: readonly string[];
  readonly optionFunctions: ReadonlySet<string>;
  readonly deniedOptions: ReadonlySet<string>;
  /** Options settable only to these numbers, written literally (`options(warn = 1)`). */
  readonly restrictedOptions: ReadonlyMap<string, readonly number[]>;
  readonly higherOrder: ReadonlySet<string>;
  readonly functionArgumentNames: ReadonlySet<string>;
  /** Every "prefix" such that "prefix.rest" is forbidden: a generic of that name could dispatch to it. */
  readonly forbiddenGenericPrefixes: ReadonlySet<string>;
  /** Every "rest" such that "prefix.rest" is forbidden: an object of that class could dispatch to it. */
  readonly forbiddenClassSuffixes: ReadonlySet<string>;
  /** Every X such that the replacement function `X<-` is forbidden (`body(f) <- v`). */
  readonly forbiddenReplacementBases: ReadonlySet<string>;
  /** relaxations.columnNames: operators whose operands, and functions whose arguments, are data. */
  readonly columnOperators: ReadonlySet<string>;
  readonly columnFunctions: ReadonlySet<string>;
  /** Argument names that carry a function (the rules' list plus the higher-order ones). */
  readonly functionValuedArguments: ReadonlySet<string>;
  readonly scopeFunctions: ReadonlySet<string>;
  /** relaxations.columnNames.columnSets: c() as a set of columns, and the arguments that select. */
  readonly columnSetFunctions: ReadonlySet<string>;
  readonly selectionArguments: ReadonlySet<string>;
  /** relaxations.literalFunctionNames: function -> the argument naming the function, and the others allowed. */
  readonly literalNameFunctions: ReadonlyMap<string, { readonly argument: string; readonly otherArguments: readonly string[]; readonly refusesVariables: boolean }>;
  readonly refusedLiteralNames: ReadonlySet<string>;
  /** relaxations.attachedFrames: attach(df) of a frame named by a variable. */
  readonly attachFunctions: ReadonlySet<string>;
  readonly attachOtherArguments: ReadonlySet<string>;
  /** relaxations.packageExamples: example(), the package whose `pkg::example` it also is, its other arguments. */
  readonly exampleFunctions: ReadonlySet<string>;
  readonly examplePackage: string;
  readonly exampleOtherArguments: ReadonlySet<string>;
  /** relaxations.freshEnvironments: as.environment() of a list or data frame. */
  readonly freshEnvironmentFunctions: ReadonlySet<string>;
  /** relaxations.dataNames.dataArguments: a call given one of these reads its bare arguments as data. */
  readonly dataArguments: ReadonlySet<string>;
  /** relaxations.environmentSettings: functions, the names they may set, the values' pattern. */
  readonly environmentSettings: { readonly functions: ReadonlySet<string>; readonly names: ReadonlySet<string>; readonly valuePattern: RegExp };
  /** relaxations.environmentReads: Sys.getenv() with literal arguments among these. */
  readonly environmentReads: { readonly functions: ReadonlySet<string>; readonly arguments: readonly string[] };
  /** relaxations.workingDirectory: setwd(dir) with its one argument. */
  readonly workingDirectoryFunctions: ReadonlySet<string>;
  /** relaxations.consoleDiversion: sink() of the output stream, with these arguments (in R's order). */
  readonly consoleDiversion: { readonly functions: ReadonlySet<string>; readonly arguments: readonly string[]; readonly types: ReadonlySet<string> };
  /** relaxations.localBlocks. */
  readonly localFunctions: ReadonlySet<string>;
  /** relaxations.superassignment: blocked operators allowed when their target is bound in an enclosing script scope. */
  readonly superassignOperators: ReadonlySet<string>;
  readonly superassignAdvice: string;
  /** relaxations.savedOptions: the functions whose saved list may be given back to them. */
  readonly savedOptionsFunctions: ReadonlySet<string>;
}

export function compileRules(
  rules: ScriptRules,
  declared: readonly string[],
  installed: ReadonlySet<string>,
): CompiledRules {
  const forbidden = forbiddenSymbolIndex(rules);
  const relax = rules.relaxations;
  const prefixes = new Set<string>();
  const replacementBases = new Set<string>();
  const suffixes = new Set<string>();
  for (const symbol of forbidden.keys()) {
    if (symbol.endsWith('<-')) replacementBases.add(symbol.slice(0, -2));
    for (let i = symbol.indexOf('.', 1); i > 0; i = symbol.indexOf('.', i + 1)) {
      prefixes.add(symbol.slice(0, i));
      if (i + 1 < symbol.length) suffixes.add(symbol.slice(i + 1));
    }
  }
  const allowed = allowedPackages(rules, declared);
  return {
    forbidden,
    blockedOperators: new Map(rules.blockedOperators.map((o) => [o.operator, o.why])),
    loaders: new Set(rules.packageLoaders),
    loaderNamedArguments: new Set(rules.packageLoaderArguments.allowedNamedArguments),
    allowedPackages: allowed,
    blockedPackages: new Map(rules.packages.blocked.map((p) => [p.name, p.why])),
    metaPackages: new Map(rules.packages.metaPackages.map((p) => [p.name, p.members])),
    dependencyAdvice: new Map(Object.entries(rules.packages.allowedDependencies.insteadOf)),
    namedExports: namedExports(rules),
    internalFunctions: internalFunctions(rules, allowed),
    refusedExports: new Map(
      rules.packages.namedExports.packages.flatMap((p) => Object.entries(p.refused).map(([name, why]) => [`${p.name}::${name}`, why])),
    ),
    packageQueries: new Set(rules.packages.packageQueries.functions),
    packageQueryArguments: new Set(rules.packages.packageQueries.allowedNamedArguments),
    checkedExports: checkedExportArguments(rules),
    installedPackages: installed,
    installedPackageList: [...installed].sort(),
    optionFunctions: new Set(rules.options.functions),
    deniedOptions: new Set(rules.options.deniedNames),
    restrictedOptions: new Map(Object.entries(rules.options.restrictedValues.names)),
    higherOrder: new Set(rules.higherOrderFunctions.names),
    functionArgumentNames: new Set(rules.higherOrderFunctions.functionArgumentNames),
    forbiddenGenericPrefixes: prefixes,
    forbiddenClassSuffixes: suffixes,
    forbiddenReplacementBases: replacementBases,
    columnOperators: new Set(relax.columnNames.operators),
    columnFunctions: new Set(relax.columnNames.columnFunctions),
    functionValuedArguments: new Set([...relax.columnNames.functionValuedArguments, ...rules.higherOrderFunctions.functionArgumentNames]),
    scopeFunctions: new Set(relax.columnNames.scopeFunctions),
    columnSetFunctions: new Set(relax.columnNames.columnSets.functions),
    selectionArguments: new Set(relax.columnNames.columnSets.arguments),
    literalNameFunctions: new Map(Object.entries(relax.literalFunctionNames.functions)),
    refusedLiteralNames: new Set(relax.literalFunctionNames.refusedNames),
    localFunctions: new Set(relax.localBlocks.functions),
    superassignOperators: new Set(relax.superassignment.operators),
    superassignAdvice: relax.superassignment.advice,
    dataArguments: new Set(relax.dataNames.dataArguments),
    attachFunctions: new Set(relax.attachedFrames.functions),
    attachOtherArguments: new Set(relax.attachedFrames.otherArguments),
    exampleFunctions: new Set(relax.packageExamples.functions),
    examplePackage: relax.packageExamples.package,
    exampleOtherArguments: new Set(relax.packageExamples.otherArguments),
    freshEnvironmentFunctions: new Set(relax.freshEnvironments.functions),
    environmentSettings: {
      functions: new Set(relax.environmentSettings.functions),
      names: new Set(relax.environmentSettings.names),
      valuePattern: new RegExp(relax.environmentSettings.valuePattern),
    },
    environmentReads: { functions: new Set(relax.environmentReads.functions), arguments: relax.environmentReads.arguments },
    workingDirectoryFunctions: new Set(relax.workingDirectory.functions),
    consoleDiversion: {
      functions: new Set(relax.consoleDiversion.functions),
      arguments: relax.consoleDiversion.arguments,
      types: new Set(relax.consoleDiversion.types),
    },
    savedOptionsFunctions: new Set(relax.savedOptions.functions),
  };
}

/** Facts about one node on the path from the root to the visited node; reused between nodes. */
export interface Frame {
  type: string;
  field: string | null;
  /** Operator token of an operator node ('<-', '::', '$', '~', ...). */
  op: string;
  /** call: the called name (decoded) when the function is a name, a string or pkg::name; else ''. */
  callee: string;
  /** call: the pkg of pkg::name as the function; namespace_operator: its package. */
  calleePackage: string;
  /** namespace_operator: the decoded name on its right. */
  nsName: string;
  /** argument: its decoded name, '' when positional. */
  argName: string;
  /** The node is an assignment target (or on the way to one, as in `body(f) <- v`). */
  target: boolean;
  /** binary_operator assignment whose target is `class(x)`/`oldClass(x)`: its value names classes. */
  assignsClass: boolean;
  /** Inside the value given as an object's class (argument `class =`, or `class(x) <- value`). */
  classValue: boolean;
}

export const newFrame = (): Frame => ({
  type: '',
  field: null,
  op: '',
  callee: '',
  calleePackage: '',
  nsName: '',
  argName: '',
  target: false,
  assignsClass: false,
  classValue: false,
});

/** The visited node, read through the walk's cursor; valid only during the visit. */
export interface Visit {
  readonly type: string;
  readonly field: string | null;
  readonly depth: number;
  readonly frame: Frame;
  /** The frame `up` levels above the visited node (1 = parent), if any. */
  ancestor(up: number): Frame | undefined;
  text(): string;
  node(): Node;
}

/** What the whole script does that a relaxation depends on (implemented by script-facts.ts). */
export interface ScriptFactsView {
  /** Why operands of the column operators are not relaxed in this script, or undefined. */
  redefinedOperator(): string | undefined;
  /** Why arguments of the column functions `receivers` are not relaxed in this script, or undefined. */
  redefinedColumnFunction(receivers: readonly string[]): string | undefined;
  /** Why `options(name)` does not restore a saved options list, or undefined. */
  savedOptionsProblem(name: string): string | undefined;
  /** Whether the script binds the forbidden name `name` itself (an assignment, a loop variable or a parameter). */
  bindsName(name: string): boolean;
  /** Whether the script binds `name` as a variable: a parameter, a loop variable, or assigned anything but a function definition. */
  bindsAsVariable(name: string): boolean;
  /** Whether the text could give some call a data argument (`data =`): when not, no node need be asked. */
  mentionsDataArgument(): boolean;
}

export interface Findings {
  readonly rules: CompiledRules;
  /** Facts about the whole script, computed on first use. */
  readonly facts: ScriptFactsView;
  error(code: ValidationErrorCode, message: string, symbol?: string, at?: Point): void;
  lint(message: string, at?: Point): void;
}

export interface Check {
  /** One line on what the check rejects and why (docs, /health). */
  readonly summary: string;
  readonly nodeTypes: readonly NodeKind[];
  /**
   * The tokens whose nodes this check must see (the fast walk visits only those): every
   * finding the check can report must stand on, or be the call of, a token named here.
   */
  readonly interest: (rules: CompiledRules) => Interest;
  readonly visit: (visit: Visit, findings: Findings) => void;
}

export interface LintRule {
  readonly summary: string;
  readonly severity: LintFinding['severity'];
  readonly nodeTypes: readonly NodeKind[];
  /** As for Check. */
  readonly interest: (rules: CompiledRules) => Interest;
  readonly visit: (visit: Visit, findings: Findings) => void;
}

const ASSIGN_LEFT = new Set(['<-', '<<-', '=', ':=']);
const ASSIGN_RIGHT = new Set(['->', '->>']);

/** Whether `field` of an operator node with token `op` is the name being assigned to. */
export const isAssignmentTarget = (op: string, field: string | null): boolean =>
  (field === 'lhs' && ASSIGN_LEFT.has(op)) || (field === 'rhs' && ASSIGN_RIGHT.has(op));

/**
 * How a name (identifier, or string in a name slot) is used where it stands: only 'call' and
 * 'reference' read a binding; the others are names R never looks up as a function or value.
 */
export type NameRole = 'call' | 'reference' | 'binding' | 'argument-name' | 'parameter' | 'field' | 'package';

/** Where a name stands, as far as its role depends on it: its field, its parent and the grandparent's kind. */
export interface NamePlace {
  readonly field: string | null;
  readonly parent: Pick<Frame, 'type' | 'op' | 'field'> | undefined;
  readonly grandparentType: string | undefined;
}

export function roleAt({ field, parent, grandparentType }: NamePlace): NameRole {
  if (!parent) return 'reference';
  switch (parent.type) {
    case NodeKind.call:
      return field === 'function' ? 'call' : 'reference';
    case NodeKind.argument:
      return field === 'name' ? 'argument-name' : 'reference';
    case NodeKind.parameter:
      return field === 'name' ? 'parameter' : 'reference';
    case NodeKind.extractOperator:
      return field === 'rhs' ? 'field' : 'reference';
    case NodeKind.namespaceOperator:
      if (field === 'lhs') return 'package';
      return parent.field === 'function' && grandparentType === NodeKind.call ? 'call' : 'reference';
    case NodeKind.binaryOperator:
      return isAssignmentTarget(parent.op, field) ? 'binding' : 'reference';
    case NodeKind.forStatement:
      return field === 'variable' ? 'binding' : 'reference';
    default:
      return 'reference';
  }
}

export const nameRole = (visit: Visit): NameRole =>
  roleAt({ field: visit.field, parent: visit.ancestor(1), grandparentType: visit.ancestor(2)?.type });

/**
 * Whether a string literal stands where R expects a function and would resolve it by name:
 * the function of a call (`"system"(...)`), an argument of a higher-order function or of
 * do.call()/match.fun() (`sapply(x, "system")`, `purrr::map(x, "system")`, `do.call("system", a)`),
 * also when piped into one, or a function-valued argument (`FUN = "system"`).
 */
export function stringNamesFunction(visit: Visit, rules: CompiledRules): boolean {
  const parent = visit.ancestor(1);
  if (!parent) return false;
  if (parent.type === NodeKind.call) return visit.field === 'function';
  const resolves = (callee: string): boolean => rules.higherOrder.has(callee) || rules.literalNameFunctions.has(callee);
  if (parent.type === NodeKind.binaryOperator && visit.field === 'lhs' && (parent.op === '|>' || parent.op.startsWith('%'))) {
    // `"system" |> sapply(X = 1)`: the pipe makes the string an argument of the call on its right.
    const rhs = visit.node().parent?.childForFieldName('rhs');
    return rhs?.type === NodeKind.call && resolves(calleeName(rhs) ?? '');
  }
  if (parent.type !== NodeKind.argument || visit.field !== 'value') return false;
  if (rules.functionArgumentNames.has(parent.argName)) return true;
  const call = visit.ancestor(3);
  return call?.type === NodeKind.call && resolves(call.callee);
}

/** The called name of a call node (plain, backquoted, a string or pkg::name), or undefined. */
export function calleeName(call: Node): string | undefined {
  const fn = call.childForFieldName('function');
  if (fn?.type === NodeKind.namespaceOperator) return literalName(fn.childForFieldName('rhs'));
  return literalName(fn);
}

/** A name written literally: an identifier (maybe backquoted) or a string, decoded; else undefined. */
export function literalName(node: Node | null | undefined): string | undefined {
  if (!node) return undefined;
  if (node.type === NodeKind.identifier) return decodeName(node.text);
  if (node.type === NodeKind.string) return decodeStringLiteral(node.text);
  return undefined;
}

/**
 * The name a node hands around as a function value without calling it: an identifier read as a
 * value (`f <- options`), or a string where R resolves a function by name (`sapply(x, "library")`).
 */
export function functionValueName(visit: Visit, rules: CompiledRules): string | undefined {
  if (visit.type === NodeKind.identifier) return nameRole(visit) === 'reference' ? decodeName(visit.text()) : undefined;
  if (visit.ancestor(1)?.type === NodeKind.call || !stringNamesFunction(visit, rules)) return undefined;
  return decodeStringLiteral(visit.text());
}
