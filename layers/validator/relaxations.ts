/**
 * Where a forbidden name cannot reach a capability (the rules' `relaxations`): read as a column,
 * or called through a function named literally. Pure questions about the visited node; the checks
 * (forbidden-symbol, options) ask them before rejecting, and script-facts.ts answers what depends
 * on the rest of the script. r-image/runner/relaxations.R asks the same questions of R's parse data.
 */
import type { Node } from 'web-tree-sitter';
import { NodeKind, literalName, operatorOf } from './context.ts';
import type { CompiledRules, Findings, ScriptFactsView, Visit } from './context.ts';
import { isOrdinaryRName } from '../contract/r-names.ts';
import { decodeStringLiteral } from './r-strings.ts';

/** Whether the visited node lies inside an argument of with()/within() (`scopeFunctions`). */
export function insideScope(visit: Visit, rules: CompiledRules): boolean {
  for (let up = 1; up <= visit.depth; up += 1) {
    const frame = visit.ancestor(up)!;
    if (frame.type === NodeKind.call && rules.scopeFunctions.has(frame.callee) && visit.ancestor(up - 1)?.field === 'arguments') {
      return true;
    }
  }
  return false;
}

/**
 * How a forbidden name read as a value stands as data, or undefined: an operand of a column
 * operator (`source == "web"`, `-call`, `~ system`), the whole value of an argument of a column
 * function not named for a function (`pivot_wider(names_from = system)`, `desc(url)`), or an
 * element of a column set (`select = c(source, url)`). Never a string or a `pkg::` name, and
 * never inside with()/within().
 */
export function columnUse(visit: Visit, rules: CompiledRules): 'operand' | 'argument' | undefined {
  if (visit.type !== NodeKind.identifier) return undefined;
  const parent = visit.ancestor(1);
  let use: 'operand' | 'argument' | undefined;
  if ((parent?.type === NodeKind.binaryOperator || parent?.type === NodeKind.unaryOperator) && rules.columnOperators.has(parent.op)) {
    use = 'operand';
  } else if (parent?.type === NodeKind.argument && visit.field === 'value' && !rules.functionValuedArguments.has(parent.argName)) {
    const call = visit.ancestor(3);
    if (call?.type === NodeKind.call && rules.columnFunctions.has(call.callee)) use = 'argument';
    else if (call?.type === NodeKind.call && rules.columnSetFunctions.has(call.callee) && inSelection(visit, rules)) use = 'argument';
  }
  return use === undefined || insideScope(visit, rules) ? undefined : use;
}

/** Whether the call 3 levels up (`c(...)`) is the value of a selecting argument of a column function. */
function inSelection(visit: Visit, rules: CompiledRules): boolean {
  const argument = visit.ancestor(4);
  const verb = visit.ancestor(6);
  return (
    argument?.type === NodeKind.argument &&
    visit.ancestor(3)?.field === 'value' &&
    rules.selectionArguments.has(argument.argName) &&
    verb?.type === NodeKind.call &&
    rules.columnFunctions.has(verb.callee)
  );
}

/**
 * The column functions an argument use hands the name to: the call holding it, and for a column
 * set (`c(...)`) the verb whose selecting argument it is.
 */
export function columnReceivers(visit: Visit, rules: CompiledRules): string[] {
  const call = visit.ancestor(3)!;
  return rules.columnSetFunctions.has(call.callee) && !rules.columnFunctions.has(call.callee) ? [call.callee, visit.ancestor(6)!.callee] : [call.callee];
}

/** Why the column use was withdrawn for this script (script-facts.ts), or undefined. */
export function columnUseWithdrawn(use: 'operand' | 'argument', visit: Visit, findings: Findings): string | undefined {
  return use === 'operand' ? findings.facts.redefinedOperator() : findings.facts.redefinedColumnFunction(columnReceivers(visit, findings.rules));
}

/** Whether a call is the right-hand side of a pipe, which inserts its left-hand side as the first argument. */
function piped(call: Node): boolean {
  const parent = call.parent;
  if (parent?.type !== NodeKind.binaryOperator || !parent.childForFieldName('rhs')?.equals(call)) return false;
  const op = operatorOf(parent);
  return op === '|>' || op.startsWith('%');
}

interface Argument {
  readonly name: string | undefined;
  readonly value: Node | null;
}

export function argumentsOf(call: Node): Argument[] {
  const list = call.childForFieldName('arguments')?.namedChildren ?? [];
  return list
    .filter((a): a is Node => a?.type === NodeKind.argument)
    .map((a) => {
      const name = a.childForFieldName('name');
      return { name: name ? literalName(name) ?? name.text : undefined, value: a.childForFieldName('value') };
    });
}

const isDots = (node: Node | null): boolean => node?.type === 'dots' || node?.type === 'dot_dot_i';

/**
 * Why `call` (a call of do.call()/match.fun(), named by `fn`) does not name its function
 * literally and harmlessly, or undefined when it does: the function argument (by its name, else
 * the first positional) is a symbol or string naming a syntactic, non-reserved name that is not
 * forbidden, a loader, an options() function, a higher-order function or a refused name, and a
 * symbol is not a variable of the script where the rules say so (its value the runtime would look
 * up as a name); the other
 * arguments are among the allowed ones (positionally too); no `...`, no pipe.
 */
export function literalCallProblem(fn: string, call: Node, rules: CompiledRules, facts: ScriptFactsView): string | undefined {
  const spec = rules.literalNameFunctions.get(fn)!;
  const example = fn === 'do.call' ? 'do.call(rbind, pieces) or do.call("rbind", pieces)' : `${fn}("mean")`;
  if (piped(call)) return `a pipe would hand ${fn}() its function; call it as ${example}`;
  const args = argumentsOf(call);
  if (args.some((a) => isDots(a.value))) return `${fn}() must be given its arguments explicitly, not through ...`;
  const allowed = new Set([spec.argument, ...spec.otherArguments]);
  const bad = args.find((a) => a.name !== undefined && !allowed.has(a.name));
  if (bad) return `${fn}() may be given only ${[...allowed].join(', ')} by name, not ${bad.name}`;
  const positional = args.filter((a) => a.name === undefined);
  const named = args.length - positional.length;
  if (positional.length > allowed.size - named) return `${fn}() takes at most ${allowed.size} arguments here (${[...allowed].join(', ')})`;
  const what = args.find((a) => a.name === spec.argument) ?? positional[0];
  const name = literalName(what?.value);
  if (name === undefined) return `${fn}() must name its function literally, e.g. ${example}`;
  if (!isOrdinaryRName(name)) return `${fn}() must name an ordinary function, not \`${name}\``;
  if (rules.forbidden.has(name)) return `\`${name}\` is forbidden`;
  if (rules.loaders.has(name) || rules.optionFunctions.has(name) || rules.higherOrder.has(name) || rules.refusedLiteralNames.has(name)) {
    return `call ${name}() directly: its checks read the call as written`;
  }
  // The runtime's version looks a name held by a variable up and refuses the names above: a
  // variable could hold any of them, so only a function's own name is literal.
  if (spec.refusesVariables && what?.value?.type === NodeKind.identifier && facts.bindsAsVariable(name)) {
    return `\`${name}\` is a variable of the script, which could hold any name at run time; name the function literally, e.g. ${example}`;
  }
  return undefined;
}

/** Why a call of local() is not a plain `local(expr)`, or undefined: one block, no envir, no pipe. */
export function localCallProblem(fn: string, call: Node): string | undefined {
  const args = argumentsOf(call);
  const ok = !piped(call) && args.length === 1 && (args[0]!.name === undefined || args[0]!.name === 'expr') && !isDots(args[0]!.value);
  return ok ? undefined : `only ${fn}({ ... }) with its one block is allowed (envir = would choose where it runs)`;
}

/**
 * Why a call of Sys.setenv() (`relaxations.environmentSettings`) sets anything but the listed
 * names to literal strings of the allowed form, or undefined when it does not. No `...`, no pipe.
 */
export function environmentSettingProblem(fn: string, call: Node, rules: CompiledRules): string | undefined {
  const { names, valuePattern } = rules.environmentSettings;
  const example = `${fn}(TZ = "UTC")`;
  const args = argumentsOf(call);
  if (piped(call) || args.length === 0 || args.some((a) => isDots(a.value))) return `write it as ${example}`;
  for (const arg of args) {
    if (arg.name === undefined || !names.has(arg.name)) {
      return `it may set only ${[...names].join(', ')}, each by name (e.g. ${example})${arg.name === undefined ? '' : `, not ${arg.name}`}`;
    }
    const value = arg.value?.type === NodeKind.string ? decodeStringLiteral(arg.value.text) : undefined;
    if (value === undefined || !valuePattern.test(value)) return `${arg.name} must be a literal string naming a zone or locale (e.g. ${example})`;
  }
  return undefined;
}

/**
 * Whether a forbidden name read as a value is data (`relaxations.dataNames`): the script binds the
 * name itself, or it is the whole value of an argument, not named for a function, of a call given
 * a data argument (`rma(yi, vi, data = dat)`). Never a string, a call or a `pkg::` name.
 */
export function dataNameUse(visit: Visit, name: string, findings: Findings): boolean {
  if (visit.type !== NodeKind.identifier) return false;
  const parent = visit.ancestor(1);
  if (parent?.type === NodeKind.namespaceOperator) return false;
  if (findings.facts.bindsName(name)) return true;
  if (parent?.type !== NodeKind.argument || visit.field !== 'value' || findings.rules.functionValuedArguments.has(parent.argName)) return false;
  if (visit.ancestor(3)?.type !== NodeKind.call || !findings.facts.mentionsDataArgument()) return false;
  // Only now the node itself: reading it through the walk's cursor costs more than its frames.
  const call = visit.node().parent?.parent?.parent;
  if (!call || call.type !== NodeKind.call) return false;
  return argumentsOf(call).some((a) => a.name !== undefined && findings.rules.dataArguments.has(a.name));
}

/**
 * Whether a package loader or options() read as a value (functionValueName) stands as data, not as
 * the function handed around: true when it does, undefined when no relaxation applies, else why
 * the column use was withdrawn. A column use (columnUse: an operand of a column operator, the
 * whole value of an argument of a column function) for every such name: an operator never calls
 * its operand and a column function takes data, so neither reaches the loader. The data names
 * (dataNameUse) only with `dataNames`, for options(): the mask's options() checks every setting
 * it is given, however it is reached, so a script binding `options` reads its own value. Not for
 * the loaders, which the runtime does not check again: a binding elsewhere in the script
 * (`lapply(pkgs, library, character.only = TRUE); library <- "x"`) or a data call that calls its
 * argument (aggregate()) would hand the real loader over.
 */
export function functionValueAsData(visit: Visit, name: string, findings: Findings, dataNames: boolean): true | string | undefined {
  if (dataNames && dataNameUse(visit, name, findings)) return true;
  const use = columnUse(visit, findings.rules);
  if (use === undefined) return undefined;
  return columnUseWithdrawn(use, visit, findings) ?? true;
}

/**
 * Why a call of attach() (`relaxations.attachedFrames`) is not `attach(df)` of a frame named by a
 * variable, with at most the listed arguments given a literal TRUE or FALSE, or undefined. The
 * runtime's attach() checks that the value is a data frame of atomic columns.
 */
export function attachProblem(fn: string, call: Node, rules: CompiledRules): string | undefined {
  const args = argumentsOf(call);
  const what = args[0];
  const plain = !piped(call) && what !== undefined && (what.name === undefined || what.name === 'what') && what.value?.type === NodeKind.identifier;
  const others = args.slice(1).every((a) => a.name !== undefined && rules.attachOtherArguments.has(a.name) && (a.value?.type === NodeKind.true || a.value?.type === NodeKind.false));
  return plain && others ? undefined : `only ${fn}(df) of a data frame named by a variable is allowed (with warn.conflicts = TRUE or FALSE); or use with(df, ...)`;
}

const isLogical = (node: Node | null): boolean => node?.type === NodeKind.true || node?.type === NodeKind.false;

/**
 * Why a call of example() (`relaxations.packageExamples`) is not `example(topic, package = "pkg")`
 * with the topic written literally (a name or a string, which example() never evaluates), the
 * package a literal string, and the other listed arguments a literal TRUE or FALSE; or undefined.
 * Whether the package may be loaded is the caller's question (examplePackage).
 */
export function exampleProblem(fn: string, call: Node, rules: CompiledRules): string | undefined {
  const example = `${fn}(lm, package = "stats")`;
  const args = argumentsOf(call);
  if (piped(call) || args.some((a) => isDots(a.value))) return `write it as ${example}`;
  const positional = args.filter((a) => a.name === undefined);
  const topic = args.find((a) => a.name === 'topic') ?? positional[0];
  if (topic?.value?.type !== NodeKind.identifier && topic?.value?.type !== NodeKind.string) {
    return `the topic must be written literally, as a name or a string (e.g. ${example})`;
  }
  // Positional arguments fill topic and package, whichever is not named (R matches names first).
  const unnamedFormals = 2 - (args.some((a) => a.name === 'topic') ? 1 : 0) - (args.some((a) => a.name === 'package') ? 1 : 0);
  if (positional.length > unnamedFormals) return `name its arguments (e.g. ${example})`;
  const pkg = examplePackageNode(call);
  if (pkg !== undefined && pkg.type !== NodeKind.string) return `the package must be a literal string (e.g. ${example})`;
  for (const arg of args) {
    if (arg.name === undefined || arg.name === 'topic' || arg.name === 'package') continue;
    if (!rules.exampleOtherArguments.has(arg.name)) {
      const others = [...rules.exampleOtherArguments].filter((a) => a !== 'package').join(', ');
      return `it may be given only the topic, package and ${others}, not ${arg.name} (e.g. ${example})`;
    }
    if (!isLogical(arg.value)) return `${arg.name} must be TRUE or FALSE (e.g. ${fn}(lm, package = "stats", ${arg.name} = TRUE))`;
  }
  return undefined;
}

/** The node giving example()'s package (named, else the second positional argument), if any. */
export function examplePackageNode(call: Node): Node | undefined {
  const args = argumentsOf(call);
  const named = args.find((a) => a.name === 'package');
  if (named) return named.value ?? undefined;
  const positional = args.filter((a) => a.name === undefined);
  const index = args.some((a) => a.name === 'topic') ? 0 : 1;
  return positional[index]?.value ?? undefined;
}

/**
 * Why a call of as.environment() (`relaxations.freshEnvironments`) could name the search path or a
 * package environment, or undefined: one argument, not a literal number or string (`1`, `-1`,
 * `"package:base"`), no pipe. Whether its value is a list is the runtime's check.
 */
export function freshEnvironmentProblem(fn: string, call: Node): string | undefined {
  const args = argumentsOf(call);
  const x = args[0];
  const one = !piped(call) && args.length === 1 && (x!.name === undefined || x!.name === 'x') && !isDots(x!.value);
  if (!one) return `only ${fn}(x) of one list or data frame is allowed, e.g. ${fn}(list(a = 1))`;
  let value = x!.value;
  if (value?.type === NodeKind.unaryOperator && (operatorOf(value) === '-' || operatorOf(value) === '+')) value = value.childForFieldName('rhs');
  if (value && LITERAL_KINDS.has(value.type)) {
    return `${fn}() of a number or a string would name the search path or a package's environment; give it a list or data frame, e.g. ${fn}(list(a = 1))`;
  }
  return undefined;
}

// R's parse data calls all of these constants (STR_CONST, NUM_CONST, NULL_CONST): contained-forms.R agrees.
const LITERAL_KINDS: ReadonlySet<string> = new Set([NodeKind.string, NodeKind.integer, NodeKind.float, NodeKind.true, NodeKind.false, 'null', 'complex', 'na', 'inf', 'nan']);

/** A constant as written (a string, number, TRUE/FALSE, NA, NULL), or c() of strings. */
function isLiteral(node: Node | null): boolean {
  if (!node) return false;
  if (LITERAL_KINDS.has(node.type)) return true;
  if (node.type !== NodeKind.call || literalName(node.childForFieldName('function')) !== 'c') return false;
  return argumentsOf(node).every((a) => a.name === undefined && a.value?.type === NodeKind.string);
}

/**
 * R's matching of `args` to `formals`: by name first, then the unnamed ones in order; a message
 * when a name is not among the formals, an argument is `...`, or there are too many.
 */
function matchArguments(fn: string, call: Node, formals: readonly string[]): Map<string, Node | null> | string {
  const args = argumentsOf(call);
  if (piped(call) || args.some((a) => isDots(a.value))) return `${fn}() must be called with its arguments written out, not piped or through ...`;
  const matched = new Map<string, Node | null>();
  for (const arg of args.filter((a) => a.name !== undefined)) {
    if (!formals.includes(arg.name!)) return `${fn}() takes only ${formals.join(', ')}, not ${arg.name}`;
    matched.set(arg.name!, arg.value);
  }
  const open = formals.filter((f) => !matched.has(f));
  const positional = args.filter((a) => a.name === undefined);
  if (positional.length > open.length) return `${fn}() takes at most ${formals.length} arguments (${formals.join(', ')})`;
  positional.forEach((a, i) => matched.set(open[i]!, a.value));
  return matched;
}

/** Whether `node` is a string literal naming an absolute or home path, which is never inside the run's directory. */
function absolutePathLiteral(node: Node | null | undefined): boolean {
  if (node?.type !== NodeKind.string) return false;
  const value = decodeStringLiteral(node.text);
  return value === undefined || /^[/~\\]/.test(value);
}

/**
 * Why a call of Sys.getenv() (`relaxations.environmentReads`) is not a direct call whose
 * arguments are literals (`Sys.getenv("NOT_CRAN")`, `Sys.getenv(c("TZ", "HOME"), unset = NA)`,
 * `Sys.getenv()`), or undefined. The runtime answers only the listed names whatever is asked.
 */
export function environmentReadProblem(fn: string, call: Node, rules: CompiledRules): string | undefined {
  const matched = matchArguments(fn, call, rules.environmentReads.arguments);
  if (typeof matched === 'string') return matched;
  for (const [formal, value] of matched) {
    if (!isLiteral(value)) return `its ${formal} must be written literally, e.g. ${fn}("TZ") or ${fn}(c("LANG", "TZ"), unset = NA)`;
  }
  return undefined;
}

/**
 * Why a call of setwd() (`relaxations.workingDirectory`) is not `setwd(dir)` with one argument,
 * not a literal absolute or home path, or undefined. The runtime checks where dir resolves.
 */
export function workingDirectoryProblem(fn: string, call: Node): string | undefined {
  const matched = matchArguments(fn, call, ['dir']);
  if (typeof matched === 'string') return matched;
  if (!matched.has('dir')) return `give it the directory: ${fn}(tempdir()) or ${fn}("sub"), and old <- ${fn}(...) to go back with ${fn}(old)`;
  if (absolutePathLiteral(matched.get('dir'))) {
    return `it may only move inside the run's directory or tempdir(): use a relative path, ${fn}("sub") or ${fn}(tempdir())`;
  }
  return undefined;
}

/**
 * Why a call of sink() (`relaxations.consoleDiversion`) is not one of the output stream: type,
 * when given, a literal among the allowed types; the file not a literal absolute or home path.
 * The runtime checks where the file resolves and what connection it is.
 */
export function consoleDiversionProblem(fn: string, call: Node, rules: CompiledRules): string | undefined {
  const { arguments: formals, types } = rules.consoleDiversion;
  const matched = matchArguments(fn, call, formals);
  if (typeof matched === 'string') return matched;
  const type = matched.get('type');
  if (type !== undefined) {
    const value = type?.type === NodeKind.string ? decodeStringLiteral(type.text) : undefined;
    if (value === undefined || !types.has(value)) {
      return `only the output stream may be diverted (type = ${[...types].map((t) => `"${t}"`).join(', ')}); messages are captured for you: ${fn}("log.txt") ... ${fn}()`;
    }
  }
  if (absolutePathLiteral(matched.get('file'))) return `it may only write inside the run's directory: use a relative path, ${fn}("out/log.txt") ... ${fn}()`;
  return undefined;
}
