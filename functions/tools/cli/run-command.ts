/**
 * `jube-r run FILE|- [--timeout N] [--var name=value ...] [--data name=path.csv ...]`: runs a script
 * through the execute handler with host R and prints the response JSON; exit 0 ok, 1 error or
 * rejected, 2 usage error; `--help` prints the usage. A `--var` value is JSON when it parses as JSON (number, boolean, array,
 * "quoted string"), else the literal string. `--data` binds a local CSV (`.gz`: gzip) as a dataframe.
 */
import { realpath, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { clampTimeoutSeconds, readServiceConfig } from '../../../layers/config/service-config.ts';
import type { ExecuteEventInput } from '../../../layers/contract/execute.ts';
import { failureText } from '../../../layers/contract/failure-text.ts';
import { Logger } from '@aws-lambda-powertools/logger';
import { createExecuteHandler, InvalidExecuteEventError } from '../../execute/create-handler.ts';
import type { Command } from './command.ts';
import { readScript } from './read-script.ts';
import { parseRunArguments, type RunArguments } from './script-arguments.ts';

export const USAGE = `usage: jube-r run FILE|- [--timeout N] [--var name=value ...] [--data name=path.csv ...]

Runs an R script through the execute handler with host R and prints the response JSON;
- reads the script from stdin. A failed run also prints its cause, line and hints on stderr.

  --timeout N          the script's time limit in seconds (clamped to the configured range)
  --var name=value     bind an R variable; the value is JSON when it parses as JSON
                       (number, boolean, array, "quoted string"), else the literal text
  --data name=path     bind a local CSV (.gz: gzip) as a data frame
  -h, --help           this help

exit status: 0 status ok, 1 status error or rejected, 2 usage error`;

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
  // The files the user named are the data roots here: the handler reads nothing else.
  const dataRoots = new Set<string>();
  for (const { name, path } of parsed.data) {
    let full: string;
    let bytes: number;
    try {
      full = await realpath(resolve(path));
      bytes = (await stat(full)).size;
      dataRoots.add(dirname(full));
    } catch {
      process.stderr.write(`jube-r run: cannot read --data ${name}=${path}\n`);
      return 2;
    }
    dataframes.push({ name, source: { kind: 'file', path: full, gzip: full.endsWith('.gz') }, bytes });
  }
  // stdout carries the response JSON: only errors are logged, and they go to stderr.
  const handler = createExecuteHandler({ config, dataRoots: [...dataRoots], logger: new Logger({ serviceName: 'jube-r', logLevel: 'ERROR' }) });
  try {
    const response = await handler({
      script,
      timeoutSeconds: clampTimeoutSeconds(parsed.timeout, config),
      variables: parsed.variables,
      dataframes,
    });
    process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
    // The cause, the line and the hints, for a reader of the terminal; stdout stays the JSON.
    if (response.status !== 'ok') process.stderr.write(`${failureText(response)}\n`);
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
