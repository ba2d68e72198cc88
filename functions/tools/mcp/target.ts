/**
 * The API the tools call: a URL through the orchestrator's client (SigV4 with the AWS SDK's
 * default credential chain unless --no-sign), or the local stack started in this process on a free
 * loopback port (`--local`: the same handlers as `jube-r serve`, with host R).
 */
import { createJubeRClient, type JubeRClient } from '../client/jube-r-client.ts';
import { defaultCredentials } from '../cli/call-command.ts';
import { startLocalStack } from '../local/stack.ts';
import type { McpArguments } from './arguments.ts';

export interface OpenTarget {
  readonly api: JubeRClient;
  /** The API's base URL (the local stack's loopback address with --local). */
  readonly url: string;
  /** Where the tools go, for the startup line on stderr. */
  readonly describe: string;
  close(): Promise<void>;
}

export async function openTarget(args: McpArguments, env: NodeJS.ProcessEnv): Promise<OpenTarget> {
  const common = {
    tenant: args.tenant,
    ...(args.httpTimeoutMs ? { timeoutMs: args.httpTimeoutMs } : {}),
    ...(args.minimumHttpTimeoutMs ? { minimumHttpTimeoutMs: args.minimumHttpTimeoutMs } : {}),
  };
  if (args.target.kind === 'url') {
    const { url, sign, region } = args.target;
    const signingRegion = region ?? env['AWS_REGION'];
    const api = createJubeRClient({
      baseUrl: url,
      ...(sign ? { credentials: await defaultCredentials() } : {}),
      ...(signingRegion ? { region: signingRegion } : {}),
      ...common,
    });
    return { api, url, describe: `${url}${sign ? ' (SigV4)' : ''}`, close: async () => {} };
  }
  const stack = await startLocalStack({ host: '127.0.0.1', port: 0, lambdaPort: 0, env });
  stack.warm().catch(() => {
    // Warming is an optimisation: the first call loads what it needs.
  });
  return { api: createJubeRClient({ baseUrl: stack.url, ...common }), url: stack.url, describe: `the local stack at ${stack.url}`, close: () => stack.close() };
}
