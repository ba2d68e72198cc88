/**
 * The arguments of a named export whose arguments are checked (packages.namedExports `arguments`:
 * withr's with_options, with_envvar, with_tempfile, ..., rlang's local_options): called directly as
 * `pkg::name(...)`, given only the listed arguments, each holding what its kind allows.
 * r-image/runner/export-arguments.R judges the same on R's parse data, and the runner's `::` checks
 * the values again.
 */
import type { Node } from 'web-tree-sitter';
import type { ArgumentKind } from '../../rules/rules.ts';
import { NodeKind, calleeName, operatorOf } from '../context.ts';
import type { Findings } from '../context.ts';
import { isOrdinaryRName } from '../../contract/r-names.ts';
import { decodeStringLiteral } from '../r-strings.ts';
import { argumentsOf } from '../relaxations.ts';
import { literalNumber } from './options.ts';

/** fileSuffix: what tempfile() may put after tempdir()/ without leaving it. */
export const FILE_SUFFIX = /^(?!.*[.][.])[A-Za-z0-9._-]{0,64}$/;

const isDots = (node: Node | null): boolean => node?.type === 'dots' || node?.type === 'dot_dot_i';

/** Reports every problem of the call `call` of `pkg::name`, whose allowed arguments are `spec`. */
export function checkExportArguments(pkg: string, name: string, spec: ReadonlyMap<string, ArgumentKind>, call: Node | undefined, findings: Findings): void {
  const fn = `${pkg}::${name}`;
  const refuse = (why: string, at?: Node): void => findings.error('PACKAGE_NOT_ALLOWED', `'${fn}' is allowed in jube-r only with checked arguments: ${why}.`, pkg, at?.startPosition);
  if (call === undefined || piped(call)) {
    refuse(`call it directly as ${fn}(...), not as a value or through a pipe`);
    return;
  }
  const formals = [...spec.keys()];
  const before = formals.slice(0, formals.includes('...') ? formals.indexOf('...') : formals.length);
  const args = argumentsOf(call);
  const named = new Set(args.map((a) => a.name).filter((n): n is string => n !== undefined));
  const open = before.filter((f) => !named.has(f));
  for (const arg of args) {
    if (isDots(arg.value)) {
      refuse('its arguments must be written out, not passed through ...', arg.value ?? undefined);
      continue;
    }
    let formal: string;
    let kind: ArgumentKind | undefined;
    if (arg.name === undefined) {
      formal = open.shift() ?? '';
      kind = spec.get(formal);
      if (kind === undefined) {
        refuse(`name every argument after ${allowedOf(new Map([...spec].filter(([f]) => before.includes(f))))}`, arg.value ?? undefined);
        continue;
      }
    } else if (spec.has(arg.name) && arg.name !== '...') {
      formal = arg.name;
      kind = spec.get(arg.name);
    } else if (spec.has('...') && !formals.some((f) => f !== '...' && f.startsWith(arg.name!))) {
      // Not a prefix of a formal: R would not match it partially, so it lands in `...`.
      formal = arg.name;
      kind = spec.get('...');
    } else {
      refuse(`it may be given only ${allowedOf(spec)}, written in full, not ${arg.name}`, arg.value ?? undefined);
      continue;
    }
    if (kind === 'refused') {
      refuse(`it may be given only ${allowedOf(spec)}, not ${formal}`, arg.value ?? undefined);
      continue;
    }
    checkValue(formal, kind!, arg.value, findings, refuse);
  }
}

const allowedOf = (spec: ReadonlyMap<string, ArgumentKind>): string =>
  [...spec].filter(([, kind]) => kind !== 'refused').map(([formal]) => formal).join(', ');

function checkValue(formal: string, kind: ArgumentKind, value: Node | null, findings: Findings, refuse: (why: string, at?: Node) => void): void {
  const rules = findings.rules;
  const at = value ?? undefined;
  switch (kind) {
    case 'refused':
    case 'value':
    case 'seed':
      return;
    case 'option':
      checkOption(formal, value, findings);
      return;
    case 'options':
    case 'settings': {
      const entries = literalEntries(value);
      if (entries === undefined) {
        const example = kind === 'options' ? 'list(digits = 3)' : 'c(TZ = "UTC")';
        refuse(`${formal} must be written as ${example}, every setting by name`, at);
        return;
      }
      for (const entry of entries) {
        if (kind === 'options') checkOption(entry.name, entry.value, findings);
        else checkSetting(entry.name, entry.value, findings, refuse);
      }
      return;
    }
    case 'setting':
      checkSetting(formal, value, findings, refuse);
      return;
    case 'zone': {
      const text = value?.type === NodeKind.string ? decodeStringLiteral(value.text) : undefined;
      if (text === undefined || !rules.environmentSettings.valuePattern.test(text)) refuse(`${formal} must be a literal string naming a zone or locale (e.g. "UTC")`, at);
      return;
    }
    case 'name': {
      const text = value?.type === NodeKind.string ? decodeStringLiteral(value.text) : undefined;
      if (text === undefined || !isOrdinaryRName(text)) refuse(`${formal} must be a literal string naming a variable (e.g. "path")`, at);
      return;
    }
    case 'fileSuffix': {
      const text = value?.type === NodeKind.string ? decodeStringLiteral(value.text) : undefined;
      if (text === undefined || !FILE_SUFFIX.test(text)) refuse(`${formal} must be a literal string of letters, digits, '.', '_' and '-' (e.g. ".csv")`, at);
      return;
    }
  }
}

/** The settings of a `list(name = value, ...)` or `c(...)` call, every one named; else undefined. */
function literalEntries(value: Node | null): { name: string; value: Node | null }[] | undefined {
  if (value?.type !== NodeKind.call) return undefined;
  const fn = value.childForFieldName('function');
  if (fn?.type !== NodeKind.identifier) return undefined;
  const callee = calleeName(value);
  if (callee !== 'list' && callee !== 'c') return undefined;
  const args = argumentsOf(value);
  if (args.some((a) => a.name === undefined || isDots(a.value))) return undefined;
  return args.map((a) => ({ name: a.name!, value: a.value }));
}

function checkOption(name: string, value: Node | null, findings: Findings): void {
  const { deniedOptions, restrictedOptions } = findings.rules;
  const allowed = restrictedOptions.get(name);
  const at = value?.startPosition;
  if (allowed !== undefined) {
    const number = literalNumber(value);
    if (number === undefined || !allowed.includes(number)) {
      findings.error('OPTION_NOT_ALLOWED', `The option '${name}' may be set only to ${allowed.join(', ')}, written as a number.`, name, at);
    }
  } else if (deniedOptions.has(name)) {
    findings.error('OPTION_NOT_ALLOWED', `The option '${name}' cannot be set in jube-r (it runs programs or code later, or weakens limits); remove it.`, name, at);
  }
}

/** A time zone or locale setting: one of the environmentSettings names, to a literal string of their form. */
function checkSetting(name: string, value: Node | null, findings: Findings, refuse: (why: string, at?: Node) => void): void {
  const { names, valuePattern } = findings.rules.environmentSettings;
  if (!names.has(name)) {
    refuse(`it may set only ${[...names].join(', ')}, each by name, not ${name}`, value ?? undefined);
    return;
  }
  const text = value?.type === NodeKind.string ? decodeStringLiteral(value.text) : undefined;
  if (text === undefined || !valuePattern.test(text)) refuse(`${name} must be a literal string naming a zone or locale (e.g. "UTC")`, value ?? undefined);
}

function piped(call: Node): boolean {
  const parent = call.parent;
  if (parent?.type !== NodeKind.binaryOperator || !parent.childForFieldName('rhs')?.equals(call)) return false;
  const op = operatorOf(parent);
  return op === '|>' || op.startsWith('%');
}
