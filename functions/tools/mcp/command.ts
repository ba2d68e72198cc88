/**
 * `jube-r mcp`: the MCP server for agents in MCP hosts. Over stdio (the default) one server
 * process is one session; over Streamable HTTP (`--http`) each MCP session is one. The health of
 * the target is read once at startup for the tools' descriptions and schemas.
 * In stdio mode stdout is the protocol: anything else this process would print there (a logger,
 * the local stack) is sent to stderr instead.
 */
import { Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { HealthResponse } from '../../../layers/contract/api.ts';
import type { Command } from '../cli/command.ts';
import { UsageError } from '../cli/script-arguments.ts';
import { DEFAULT_HTTP_PORT, DEFAULT_MAX_SESSIONS, parseMcpArguments, type McpArguments } from './arguments.ts';
import { startMcpHttpServer } from './http.ts';
import { createJubeRMcpServer } from './server.ts';
import { newSessionId } from './session.ts';
import { openTarget, type OpenTarget } from './target.ts';

export const USAGE = `usage: jube-r mcp (--local | --url URL) [--http [--port N] [--host H] [--max-sessions N]] [options]

An MCP server with the tools r_health, r_packages, r_validate, r_execute and r_help, over stdio
(default; one process is one session) or Streamable HTTP at /mcp (--http; one session per MCP session).

  --local              the local stack in this process (host R, as jube-r serve)
  --url URL            a jube-r API (default JUBE_R_API_URL), SigV4-signed with the AWS credential chain
  --no-sign            send unsigned (a local stack's URL)
  --region R           signing region (default: from an execute-api host, or AWS_REGION)
  --tenant T           r_execute's tenant (/t/T/execute); required with --url (default with --local: local)
  --session S          stdio: the X-Jube-Session (default: a new one per process)
  --http-timeout MS    per request to the API (above the minimum)
  --min-http-timeout MS  a deployed API's stack output OrchestratorMinimumHttpTimeoutMs (required
                       but for a local URL; or JUBE_R_MIN_HTTP_TIMEOUT_MS)
  --http               Streamable HTTP instead of stdio
  --host H             with --http: the address to bind (default 127.0.0.1)
  --port N             with --http: the port (default ${DEFAULT_HTTP_PORT}; 0 picks a free one)
  --max-sessions N     with --http: MCP sessions open at once (default ${DEFAULT_MAX_SESSIONS})
  -h, --help           this help

exit status: 0 stopped, 1 could not start, 2 usage error`;

/** Room for the JSON-RPC request around a tool's arguments in one POST. */
const JSON_RPC_ENVELOPE_BYTES = 64 * 1024;

/** Waits for the end: a signal, or (stdio) the host closing our stdin. */
function stopped(stdio: boolean): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
    if (stdio) process.stdin.once('end', () => resolve('stdin closed'));
  });
}

async function readHealth(target: OpenTarget): Promise<HealthResponse | undefined> {
  try {
    return await target.api.health();
  } catch (error) {
    process.stderr.write(`jube-r mcp: GET /health failed (${(error as Error).message}); the tools will say to call r_health\n`);
    return undefined;
  }
}

/** stdout for the protocol alone: every other write to process.stdout goes to stderr. */
function protocolStdout(): Writable {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return new Writable({ write: (chunk, encoding, done) => void write(chunk, encoding, done) });
}

async function serve(args: McpArguments): Promise<number> {
  const stdio = args.transport === 'stdio';
  const out = stdio ? protocolStdout() : undefined;
  // The local stack's access log, one line per call, would only fill a host's log.
  if (args.target.kind === 'local') process.env['POWERTOOLS_LOG_LEVEL'] ??= 'WARN';
  let target: OpenTarget;
  try {
    target = await openTarget(args, process.env);
  } catch (error) {
    process.stderr.write(`jube-r mcp: ${(error as Error).message}\n`);
    return 1;
  }
  const health = await readHealth(target);
  const end = stopped(stdio);
  let close: () => Promise<void>;
  if (stdio) {
    const session = args.session ?? newSessionId();
    const server = createJubeRMcpServer({ api: target.api, session, health });
    await server.connect(new StdioServerTransport(process.stdin, out));
    process.stderr.write(`jube-r mcp: stdio, session ${session}, tools call ${target.describe}\n`);
    close = () => server.close();
  } else {
    let http;
    try {
      http = await startMcpHttpServer({
        host: args.host,
        port: args.port,
        maxSessions: args.maxSessions,
        // The API's own body limit, plus the JSON-RPC envelope around the arguments.
        ...(health ? { maxRequestBodyBytes: health.limits.maxRequestBodyBytes + JSON_RPC_ENVELOPE_BYTES } : {}),
        serverFor: (session) => createJubeRMcpServer({ api: target.api, session, health }),
      });
    } catch (error) {
      process.stderr.write(`jube-r mcp: ${(error as Error).message}\n`);
      await target.close();
      return 1;
    }
    process.stdout.write(`jube-r mcp listening on ${http.url}\n  tools call ${target.describe}\n`);
    close = () => http.close();
  }
  const why = await end;
  process.stderr.write(`jube-r mcp: ${why}, shutting down\n`);
  const force = setTimeout(() => process.exit(1), 15_000);
  force.unref();
  await close();
  await target.close();
  // Keep-alive sockets of the SDK's fetch must not hold the exit.
  setTimeout(() => process.exit(0), 200).unref();
  return 0;
}

const command: Command = async (argv) => {
  let args: McpArguments;
  try {
    args = parseMcpArguments(argv, process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`jube-r mcp: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  return serve(args);
};
export default command;
