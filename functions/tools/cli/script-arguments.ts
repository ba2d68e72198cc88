/**
 * The script arguments `jube-r run` and `jube-r call validate|execute` share:
 * `FILE|- [--timeout N] [--var name=value ...] [--data name=value ...]`. A `--var` value is JSON
 * when it parses as JSON (number, boolean, array, "quoted string"), else the literal string; a
 * `--data` value is a local CSV path for `run` and a data pointer for `call`.
 */

import { isHelp } from './command.ts';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface RunArguments {
  /** -h/--help was given: print the usage and run nothing. */
  readonly help?: true;
  readonly source: string;
  readonly timeout: number | undefined;
  readonly variables: { name: string; value: unknown }[];
  readonly data: { name: string; path: string }[];
}

/** A --var value: JSON when it is JSON, otherwise the text itself. */
export function parseVarValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function splitPair(flag: string, pair: string | undefined): [string, string] {
  const at = pair?.indexOf('=') ?? -1;
  if (pair === undefined || at <= 0) throw new UsageError(`${flag} needs name=value`);
  return [pair.slice(0, at), pair.slice(at + 1)];
}

export function parseRunArguments(args: readonly string[]): RunArguments {
  let source: string | undefined;
  let timeout: number | undefined;
  const variables: { name: string; value: unknown }[] = [];
  const data: { name: string; path: string }[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (isHelp(arg)) return { help: true, source: '', timeout: undefined, variables: [], data: [] };
    if (arg === '--timeout') {
      const n = Number(args[++i]);
      if (!Number.isFinite(n)) throw new UsageError('--timeout needs a number of seconds');
      timeout = n;
    } else if (arg === '--var') {
      const [name, value] = splitPair('--var', args[++i]);
      variables.push({ name, value: parseVarValue(value) });
    } else if (arg === '--data') {
      const [name, path] = splitPair('--data', args[++i]);
      data.push({ name, path });
    } else if (arg.startsWith('--')) {
      throw new UsageError(`unknown option ${arg}`);
    } else if (source === undefined) {
      source = arg;
    } else {
      throw new UsageError('only one script');
    }
  }
  if (source === undefined || source === '') throw new UsageError('no script given');
  return { source, timeout, variables, data };
}
