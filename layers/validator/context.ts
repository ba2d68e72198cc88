/**
 * What every check and lint rule sees: the rules compiled once into sets, the node being
 * visited with its ancestors' frames (the walk annotates each frame with the few facts the checks
 * need: operator, callee, argument name), and a sink for findings.
 */
import type { Node, Point } from 'web-tree-sitter';
import { capabilityFunctionIndex, loadCapabilities, type Capabilities, type CapabilityCall } from '../rules/capabilities.ts';
import type { ScriptRules } from '../rules/rules.ts';
import { allowedPackages } from '../rules/rules.ts';
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
  forStatement: 'for_statement',
} as const;
export type NodeKind = (typeof NodeKind)[keyof typeof NodeKind];

/** The node kind of most `%op%` operators (`%in%` and `%o%` have their own). */
export const SPECIAL = 'special';

/** The rules as sets and maps, built once per validator. */
export interface CompiledRules {
  readonly capabilities: Capabilities;
  /** "name" and "pkg::name" of every capability function -> its category and row. */
  readonly capabilityFunctions: ReadonlyMap<string, CapabilityCall>;
  readonly loaders: ReadonlySet<string>;
  readonly allowedPackages: ReadonlySet<string>;
  /** A package a script is told not to load -> why, and what to do instead. */
  readonly blockedPackages: ReadonlyMap<string, { readonly why: string; readonly instead: string }>;
  /** A meta-package's name -> the packages it attaches (script-rules.json packages.metaPackages). */
  readonly metaPackages: ReadonlyMap<string, readonly string[]>;
  /** A package the image does not hold -> what to write instead (script-rules.json packages.alternatives). */
  readonly alternatives: ReadonlyMap<string, string>;
  readonly installedPackages: ReadonlySet<string>;
}

export function compileRules(rules: ScriptRules, installed: ReadonlySet<string>, capabilities = loadCapabilities()): CompiledRules {
  return {
    capabilities,
    capabilityFunctions: capabilityFunctionIndex(capabilities),
    loaders: new Set(rules.packageLoaders),
    allowedPackages: allowedPackages(rules, installed),
    blockedPackages: new Map(rules.packages.blocked.map((p) => [p.name, { why: p.why, instead: p.instead }])),
    metaPackages: new Map(rules.packages.metaPackages.map((p) => [p.name, p.members])),
    alternatives: new Map(rules.packages.alternatives.map((p) => [p.name, p.instead])),
    installedPackages: installed,
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
}

export const newFrame = (): Frame => ({ type: '', field: null, op: '', callee: '', calleePackage: '', nsName: '', argName: '' });

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

export interface Findings {
  readonly rules: CompiledRules;
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

export interface LintRule extends Check {
  readonly severity: LintFinding['severity'];
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

export function nameRole(visit: Visit): NameRole {
  const parent = visit.ancestor(1);
  const field = visit.field;
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
      return parent.field === 'function' && visit.ancestor(2)?.type === NodeKind.call ? 'call' : 'reference';
    case NodeKind.binaryOperator:
      return isAssignmentTarget(parent.op, field) ? 'binding' : 'reference';
    case NodeKind.forStatement:
      return field === 'variable' ? 'binding' : 'reference';
    default:
      return 'reference';
  }
}

/** A name written literally: an identifier (maybe backquoted) or a string, decoded; else undefined. */
export function literalName(node: Node | null | undefined): string | undefined {
  if (!node) return undefined;
  if (node.type === NodeKind.identifier) return decodeName(node.text);
  if (node.type === NodeKind.string) return decodeStringLiteral(node.text);
  return undefined;
}

/** A call's arguments: each one's name (undefined when positional) and value node. */
export function argumentsOf(call: Node): { readonly name: string | undefined; readonly value: Node | null; readonly node: Node }[] {
  const args = call.childForFieldName('arguments')?.namedChildren ?? [];
  return args
    .filter((a): a is Node => a?.type === NodeKind.argument)
    .map((node) => ({ name: literalName(node.childForFieldName('name')), value: node.childForFieldName('value'), node }));
}
