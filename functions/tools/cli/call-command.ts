/**
 * `jube-r call ROUTE [FILE|-] [options]`: calls a jube-r API (the deployed private API, or a local
 * stack) through the orchestrator's client (functions/tools/client/jube-r-client.ts), signing with
 * SigV4 for execute-api using the AWS SDK's default credential chain, and prints the JSON answer.
 *
 *   jube-r call health|packages
 *   jube-r call validate FILE|-
 *   jube-r call execute FILE|- --tenant T [--timeout N] [--var name=value ...] [--data name=pointer ...]
 *   jube-r call session --tenant T --session S   (ends the session: DELETE /t/T/session)
 *   options: --url URL (or JUBE_R_API_URL)  --region R  --tenant T (execute: /t/T/execute)  --session S  --no-sign
 *            --min-http-timeout MS (or JUBE_R_MIN_HTTP_TIMEOUT_MS: the stack output OrchestratorMinimumHttpTimeoutMs,
 *            required for a deployed API; the default wait lies above it)  --http-timeout MS (above that minimum)
 *
 * Exit codes: 0 the call succeeded (and the script was valid / ran ok), 1 invalid or failed
 * script, 2 usage error, 3 the API answered an error or did not answer (printed to stderr).
 */
import { z } from 'zod';
import {
  CLIENT_DEFAULTS,
  createJubeRClient,
  httpTimeoutMs as httpTimeoutMsOf,
  JubeRApiError,
  JubeRTimeoutError,
  ROUTES,
  type JubeRClient,
  type JubeRClientOptions,
  type RouteName,
} from '../client/jube-r-client.ts';
import type { Credentials } from '../client/sigv4.ts';
import { isHelp, type Command } from './command.ts';
import { readScript } from './read-script.ts';
import { parseRunArguments, UsageError } from './script-arguments.ts';

const USAGE = `usage: jube-r call health|packages|validate FILE|-|execute FILE|- --tenant T [--timeout N] [--var name=value ...] [--data name=pointer ...]
       jube-r call session --tenant T --session S   (ends the session: its workspace is deleted)
       options: --url URL (or JUBE_R_API_URL), --region R, --tenant T (execute calls /t/T/execute; where the
                deployment binds tenants to identities, the tenant your role session is named after), --session S (execute: calls of
                one session keep their workspace), --no-sign,
                --min-http-timeout MS (or JUBE_R_MIN_HTTP_TIMEOUT_MS; the stack output OrchestratorMinimumHttpTimeoutMs, required but for the local stack),
                --http-timeout MS (default: that minimum + ${CLIENT_DEFAULTS.timeoutMarginMs} ms)`;

const CallEnvSchema = z.object({
  JUBE_R_API_URL: z.url().optional(),
  JUBE_R_MIN_HTTP_TIMEOUT_MS: z.coerce.number().int().min(1).optional(),
});

export interface CallArguments {
  readonly route: RouteName;
  readonly url: string;
  readonly region: string | undefined;
  readonly tenant: string | undefined;
  readonly session: string | undefined;
  readonly httpTimeoutMs: number | undefined;
  /** The deployment's OrchestratorMinimumHttpTimeoutMs; undefined only for the local stack. */
  readonly minimumHttpTimeoutMs: number | undefined;
  readonly sign: boolean;
  /** The script arguments of validate and execute. */
  readonly rest: string[];
}

/** Splits the call's own options from the script arguments; validates the URL once. */
export function parseCallArguments(args: readonly string[], env: NodeJS.ProcessEnv): CallArguments {
  const [route, ...tail] = args;
  if (route === undefined || !(route in ROUTES)) throw new UsageError(`unknown route ${JSON.stringify(route ?? '')}`);
  const fromEnv = CallEnvSchema.safeParse({
    JUBE_R_API_URL: env['JUBE_R_API_URL'] || undefined,
    JUBE_R_MIN_HTTP_TIMEOUT_MS: env['JUBE_R_MIN_HTTP_TIMEOUT_MS'] || undefined,
  });
  if (!fromEnv.success) throw new UsageError(`bad environment: ${fromEnv.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  let url = fromEnv.data.JUBE_R_API_URL;
  let minimumHttpTimeoutMs = fromEnv.data.JUBE_R_MIN_HTTP_TIMEOUT_MS;
  let region: string | undefined;
  let tenant: string | undefined;
  let session: string | undefined;
  let httpTimeoutMs: number | undefined;
  let sign = true;
  const rest: string[] = [];
  const value = (flag: string, next: string | undefined): string => {
    if (next === undefined || next === '') throw new UsageError(`${flag} needs a value`);
    return next;
  };
  for (let i = 0; i < tail.length; i += 1) {
    const arg = tail[i]!;
    if (arg === '--url') url = value(arg, tail[++i]);
    else if (arg === '--region') region = value(arg, tail[++i]);
    else if (arg === '--tenant') tenant = value(arg, tail[++i]);
    else if (arg === '--session') session = value(arg, tail[++i]);
    else if (arg === '--no-sign') sign = false;
    else if (arg === '--http-timeout') httpTimeoutMs = milliseconds(arg, value(arg, tail[++i]));
    else if (arg === '--min-http-timeout') minimumHttpTimeoutMs = milliseconds(arg, value(arg, tail[++i]));
    else rest.push(arg);
  }
  if (url === undefined) throw new UsageError('no API URL: pass --url or set JUBE_R_API_URL (the stack output ApiUrl)');
  if (!z.url().safeParse(url).success) throw new UsageError(`--url ${url} is not a URL`);
  if ((route === 'health' || route === 'packages') && rest.length > 0) throw new UsageError(`${route} takes no arguments`);
  if (route === 'execute' && tenant === undefined) throw new UsageError('execute needs --tenant T (its path is /t/{tenant}/execute)');
  if (route !== 'execute' && tenant !== undefined) throw new UsageError(`${route} takes no --tenant (only execute is a tenant's route)`);
  try {
    // The client's own rule (a deployed API needs its minimum; a timeout must exceed it), as a usage error.
    httpTimeoutMs = httpTimeoutMsOf(new URL(url), minimumHttpTimeoutMs, httpTimeoutMs);
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (--min-http-timeout or JUBE_R_MIN_HTTP_TIMEOUT_MS)`);
  }
  return { route: route as RouteName, url, region, tenant, session, httpTimeoutMs, minimumHttpTimeoutMs, sign, rest };
}

function milliseconds(flag: string, text: string): number {
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 1) throw new UsageError(`${flag} needs a whole number of milliseconds`);
  return ms;
}

/** The client's options for a parsed call, credentials apart (they come from the SDK's chain). */
export function callClientOptions(call: CallArguments, env: NodeJS.ProcessEnv): JubeRClientOptions {
  const region = call.region ?? env['AWS_REGION'];
  return {
    baseUrl: call.url,
    ...(region ? { region } : {}),
    ...(call.tenant ? { tenant: call.tenant } : {}),
    ...(call.session ? { session: call.session } : {}),
    ...(call.minimumHttpTimeoutMs === undefined ? {} : { minimumHttpTimeoutMs: call.minimumHttpTimeoutMs }),
    ...(call.httpTimeoutMs === undefined ? {} : { timeoutMs: call.httpTimeoutMs }),
  };
}

export async function defaultCredentials(): Promise<Credentials> {
  // The SDK's own chain: environment, shared config/SSO, web identity, container and instance roles.
  const { defaultProvider } = await import('@aws-sdk/credential-provider-node');
  return defaultProvider();
}

async function send(client: JubeRClient, call: CallArguments): Promise<{ answer: unknown; exit: number }> {
  switch (call.route) {
    case 'health':
      return { answer: await client.health(), exit: 0 };
    case 'packages':
      return { answer: await client.packages(), exit: 0 };
    case 'validate': {
      const parsed = parseRunArguments(call.rest);
      if (parsed.timeout !== undefined || parsed.variables.length > 0 || parsed.data.length > 0) throw new UsageError('validate takes only the script');
      const answer = await client.validate({ script: await readScript(parsed.source) });
      return { answer, exit: answer.valid ? 0 : 1 };
    }
    case 'execute': {
      const parsed = parseRunArguments(call.rest);
      const answer = await client.execute({
        script: await readScript(parsed.source),
        ...(parsed.timeout === undefined ? {} : { timeoutSeconds: parsed.timeout }),
        ...(parsed.variables.length > 0 ? { variables: parsed.variables as never } : {}),
        ...(parsed.data.length > 0 ? { dataframes: parsed.data.map(({ name, path }) => ({ name, dataPointer: path })) } : {}),
      });
      return { answer, exit: answer.status === 'ok' ? 0 : 1 };
    }
    case 'session':
      if (call.rest.length > 0) throw new UsageError('session takes no script');
      if (call.session === undefined) throw new UsageError('session needs --session S: the session to end');
      return { answer: await client.endSession(), exit: 0 };
  }
}

const command: Command = async (args) => {
  if (args.some((arg) => isHelp(arg))) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let call: CallArguments;
  let client: JubeRClient;
  try {
    call = parseCallArguments(args, process.env);
    client = createJubeRClient({ ...callClientOptions(call, process.env), ...(call.sign ? { credentials: await defaultCredentials() } : {}) });
  } catch (error) {
    process.stderr.write(`jube-r call: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  try {
    const { answer, exit } = await send(client, call);
    process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    return exit;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`jube-r call: ${error.message}\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof JubeRApiError) {
      process.stderr.write(`jube-r call: ${error.message}${error.requestId ? ` (requestId ${error.requestId})` : ''}\n`);
      if (error.body) process.stdout.write(`${JSON.stringify(error.body, null, 2)}\n`);
      return 3;
    }
    if (error instanceof JubeRTimeoutError) {
      process.stderr.write(`jube-r call: ${error.message}\n`);
      return 3;
    }
    process.stderr.write(`jube-r call: ${(error as Error).message}\n`);
    return 3;
  }
};
export default command;
