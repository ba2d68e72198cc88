/**
 * `jube-r run FILE|- [--timeout N] [--var name=value ...] [--data name=path.csv ...]`: runs a script
 * through the execute handler with host R and prints the response JSON; exit 0 ok, 1 error or
 * rejected, 2 usage error; `--help` prints the usage. A `--var` value is JSON when it parses as JSON (number, boolean, array,
 * "quoted string"), else the literal string. `--data` binds a local CSV (`.gz`: gzip) as a dataframe.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { clampTimeoutSeconds, readServiceConfig } from '../../layers/config/service-config.ts';
import type { ExecuteEventInput } from '../../layers/contract/execute.ts';
import { Logger } from '@aws-lambda-powertools/logger';
import { InvalidExecuteEventError } from '../execute/event.ts';
import { createExecuteHandler } from '../execute/handler.ts';
import { isHelp, type Command } from './command.ts';
import { readScript } from './read-script.ts';

export const USAGE = `usage: jube-r run FILE|- [--timeout N] [--var name=value ...] [--data name=path.csv ...]

Runs an R script through the execute handler with host R and prints the response JSON;
- reads the script from stdin.

  --timeout N          the script's time limit in seconds (clamped to the configured range)
  --var name=value     bind an R variable; the value is JSON when it parses as JSON
                       (number, boolean, array, "quoted string"), else the literal text
  --data name=path     bind a local CSV (.gz: gzip) as a data frame
  -h, --help           this help

exit status: 0 status ok, 1 status error or rejected, 2 usage error`;

class UsageError extends Error {
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

const command: Command = async (args) => {
  let parsed: RunArguments;
  let script: string;
  try {
    parsed = parseRunArguments(args);
    if (parsed.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    script = await readScript(parsed.source);
  } catch (error) {
    process.stderr.write(`jube-r run: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    return 2;
  }
  const config = readServiceConfig();
  const dataframes: ExecuteEventInput['dataframes'] = [];
  for (const { name, path } of parsed.data) {
    const full = resolve(path);
    let bytes: number;
    try {
      bytes = (await stat(full)).size;
    } catch {
      process.stderr.write(`jube-r run: cannot read --data ${name}=${path}\n`);
      return 2;
    }
    dataframes.push({ name, source: { kind: 'file', path: full, gzip: full.endsWith('.gz') }, bytes });
  }
  // stdout carries the response JSON: only errors are logged, and they go to stderr.
  const handler = createExecuteHandler({ config, logger: new Logger({ serviceName: 'jube-r', logLevel: 'ERROR' }) });
  try {
    const response = await handler({
      script,
      timeoutSeconds: clampTimeoutSeconds(parsed.timeout, config),
      variables: parsed.variables,
      dataframes,
    });
    process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
    return response.status === 'ok' ? 0 : 1;
  } catch (error) {
    if (error instanceof InvalidExecuteEventError) {
      process.stderr.write(`jube-r run: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
};
export default command;
