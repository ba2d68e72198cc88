/**
 * `jube-r mcp`'s options, parsed without I/O: the transport (stdio, or Streamable HTTP on a loopback
 * address by default) and the target (a URL through the client, or the local stack in-process).
 */
import { z } from 'zod';
import { httpTimeoutMs as httpTimeoutMsOf } from '../client/jube-r-client.ts';
import { UsageError } from '../cli/script-arguments.ts';
import { checkedSessionId } from './session.ts';

/**
 * The tenant r_execute runs as with --local when none is named: the local stack binds no identity
 * to tenants (`unchecked`), and its data directory is per tenant like a deployment's bucket.
 */
export const LOCAL_TENANT = 'local';

/** At most this many MCP sessions at once over HTTP by default: each may hold a warm environment. */
export const DEFAULT_MAX_SESSIONS = 64;
export const DEFAULT_HTTP_PORT = 8765;

export type McpTarget =
  | { readonly kind: 'local' }
  | { readonly kind: 'url'; readonly url: string; readonly sign: boolean; readonly region: string | undefined };

export interface McpArguments {
  readonly help: boolean;
  readonly transport: 'stdio' | 'http';
  readonly host: string;
  readonly port: number;
  readonly maxSessions: number;
  readonly target: McpTarget;
  /** The tenant of r_execute's /t/{tenant}/execute: --tenant, required with --url; LOCAL_TENANT with --local. */
  readonly tenant: string;
  /** stdio only: the session's X-Jube-Session; default a fresh id per server process. */
  readonly session: string | undefined;
  readonly httpTimeoutMs: number | undefined;
  /** A deployed API's OrchestratorMinimumHttpTimeoutMs: the client waits longer than its longest run. */
  readonly minimumHttpTimeoutMs: number | undefined;
}

function wholeNumber(flag: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw new UsageError(`${flag} needs a whole number from ${min} to ${max}`);
  return value;
}

export function parseMcpArguments(args: readonly string[], env: NodeJS.ProcessEnv): McpArguments {
  let help = false;
  let http = false;
  let local = false;
  let url: string | undefined;
  let sign = true;
  let region: string | undefined;
  let host = '127.0.0.1';
  let port: number | undefined;
  let maxSessions = DEFAULT_MAX_SESSIONS;
  let tenant: string | undefined;
  let session: string | undefined;
  let httpTimeoutMs: number | undefined;
  const minFromEnv = env['JUBE_R_MIN_HTTP_TIMEOUT_MS'];
  let minimumHttpTimeoutMs = minFromEnv ? wholeNumber('JUBE_R_MIN_HTTP_TIMEOUT_MS', minFromEnv, 1, 3_600_000) : undefined;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    const value = (): string => {
      const next = args[++i];
      if (next === undefined || next === '') throw new UsageError(`${arg} needs a value`);
      return next;
    };
    if (arg === '--help' || arg === '-h') help = true;
    else if (arg === '--http') http = true;
    else if (arg === '--local') local = true;
    else if (arg === '--url') url = value();
    else if (arg === '--no-sign') sign = false;
    else if (arg === '--region') region = value();
    else if (arg === '--host') host = value();
    else if (arg === '--port') port = wholeNumber(arg, value(), 0, 65_535);
    else if (arg === '--max-sessions') maxSessions = wholeNumber(arg, value(), 1, 10_000);
    else if (arg === '--tenant') tenant = value();
    else if (arg === '--session') session = checkedOption(value());
    else if (arg === '--http-timeout') httpTimeoutMs = wholeNumber(arg, value(), 1, 3_600_000);
    else if (arg === '--min-http-timeout') minimumHttpTimeoutMs = wholeNumber(arg, value(), 1, 3_600_000);
    else throw new UsageError(`unknown option ${arg}`);
  }
  const base = { help, transport: http ? 'http' : 'stdio', host, port: port ?? DEFAULT_HTTP_PORT, maxSessions, tenant: tenant ?? LOCAL_TENANT, session, httpTimeoutMs, minimumHttpTimeoutMs } as const;
  if (help) return { ...base, target: { kind: 'local' } };
  if (!http && (port !== undefined || host !== '127.0.0.1')) throw new UsageError('--port and --host need --http');
  if (http && session !== undefined) throw new UsageError('--session is for stdio: over HTTP each MCP session gets its own');
  if (local && url !== undefined) throw new UsageError('pass --local or --url, not both');
  if (local) return { ...base, target: { kind: 'local' } };
  url ??= env['JUBE_R_API_URL'] || undefined;
  if (url === undefined) throw new UsageError('no target: pass --local (the local stack in this process) or --url URL (or set JUBE_R_API_URL)');
  if (!z.url().safeParse(url).success) throw new UsageError(`--url ${url} is not a URL`);
  try {
    httpTimeoutMsOf(new URL(url), minimumHttpTimeoutMs, httpTimeoutMs);
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (--min-http-timeout or JUBE_R_MIN_HTTP_TIMEOUT_MS)`);
  }
  if (tenant === undefined) throw new UsageError('--url needs --tenant T: r_execute calls /t/T/execute (the tenant your role session is named after, where the deployment binds tenants to identities)');
  return { ...base, target: { kind: 'url', url, sign, region } };
}

function checkedOption(session: string): string {
  try {
    return checkedSessionId(session);
  } catch (error) {
    throw new UsageError(`--session: ${(error as Error).message}`);
  }
}
