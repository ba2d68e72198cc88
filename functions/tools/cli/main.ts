/**
 * `jube-r <command>`: the command line over the same handlers the service runs, and a caller of a
 * deployed API. Exit codes: 0 success, 1 the script was invalid or failed, 2 usage error, 3 (call)
 * the API answered an error or did not answer, (data) the store refused or failed.
 * `jube-r --help` (or `-h`, or `help`) prints the commands; `jube-r <command> --help` and
 * `jube-r help <command>` print that command's usage.
 */
import { isHelp, type Command } from './command.ts';

const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  validate: {
    summary: 'validate [--format json|text] FILE|-   check a script; exit 0 valid, 1 invalid',
    load: async () => (await import('./validate-command.ts')).default,
  },
  run: {
    summary: 'run FILE|- [--timeout N] [--var name=value ...] [--data name=file.csv ...]   run a script locally',
    load: async () => (await import('./run-command.ts')).default,
  },
  call: {
    summary: 'call ROUTE [FILE|-] [--url URL] [--tenant T] ...   call a deployed API, SigV4-signed (run "jube-r call" for options)',
    load: async () => (await import('./call-command.ts')).default,
  },
  data: {
    summary: 'data put FILE.csv[.gz] --tenant T --pointer P [--bucket B]   store a tenant table; prints its pointer',
    load: async () => (await import('./data-command.ts')).default,
  },
  mcp: {
    summary: 'mcp (--local | --url URL) [--http --port N]   an MCP server with the R tools, over stdio or Streamable HTTP',
    load: async () => (await import('../mcp/command.ts')).default,
  },
  serve: {
    summary: 'serve                      the local stack on JUBE_R_HOST:JUBE_R_PORT (127.0.0.1:8080)',
    load: async () => (await import('./serve-command.ts')).default,
  },
};

export const USAGE = `usage: jube-r <command> [options]

commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}

jube-r <command> --help prints a command's options.
exit status: 0 success, 1 the script was invalid or failed, 2 usage error, 3 (call) the API answered an error`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (isHelp(name) || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    if (topic !== undefined && COMMANDS[topic]) return (await COMMANDS[topic].load())(['--help']);
    process.stdout.write(`${USAGE}\n`);
    return topic === undefined ? 0 : 2;
  }
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) {
    process.stderr.write(`${name === undefined ? '' : `jube-r: unknown command ${name}\n`}${USAGE}\n`);
    return 2;
  }
  return (await command.load())(rest);
}
