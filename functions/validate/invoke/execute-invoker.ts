/**
 * Invokes the execute function once per /execute call. The client never retries
 * (`maxAttempts: 1`): a throttle must reach the caller as a 503 at once, and a slow script must
 * never run twice. Its request timeout (`lambdaClientTimeoutMs`) outlives the execute function's
 * own timeout, so the function's answer (or Lambda's timeout error) arrives before the client gives up.
 */
import { InvokeCommand, LambdaClient, TooManyRequestsException, type InvokeCommandInput } from '@aws-sdk/client-lambda';
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import { ExecuteResponseSchema, type ExecuteEventInput, type ExecuteResponse } from '../../../layers/contract/execute.ts';
import { ExecuteFailedError, InvokeError, ThrottledError } from '../http/errors.ts';

export interface ExecuteInvoker {
  invoke(event: ExecuteEventInput, tenant: string): Promise<ExecuteResponse>;
}

/** Seconds a throttled caller is told to wait when Lambda does not say. */
export const DEFAULT_RETRY_AFTER_SECONDS = 1;

const hasAwsCredentials = (env: NodeJS.ProcessEnv): boolean =>
  Boolean(env['AWS_ACCESS_KEY_ID'] || env['AWS_PROFILE'] || env['AWS_CONTAINER_CREDENTIALS_FULL_URI'] || env['AWS_CONTAINER_CREDENTIALS_RELATIVE_URI'] || env['AWS_WEB_IDENTITY_TOKEN_FILE']);

export function createLambdaClient(config: ServiceConfig, env: NodeJS.ProcessEnv): LambdaClient {
  const local = config.lambdaEndpoint !== undefined;
  return new LambdaClient({
    maxAttempts: 1,
    requestHandler: { requestTimeout: config.lambdaClientTimeoutMs, connectionTimeout: 5_000 },
    ...(local ? { endpoint: config.lambdaEndpoint } : {}),
    // A local endpoint (this stack's emulator, `sam local start-lambda`) checks no signature;
    // dummy credentials keep the SDK from searching the machine for real ones.
    ...(local && !hasAwsCredentials(env)
      ? { credentials: { accessKeyId: 'jube-r-local', secretAccessKey: 'jube-r-local' } }
      : {}),
    ...(local && !env['AWS_REGION'] && !env['AWS_DEFAULT_REGION'] ? { region: 'us-east-1' } : {}),
  });
}

export function invokeParams(config: ServiceConfig, event: ExecuteEventInput, tenant: string): InvokeCommandInput {
  return {
    FunctionName: config.executeFunctionName,
    InvocationType: 'RequestResponse',
    Payload: Buffer.from(JSON.stringify(event)),
    ...(config.executePerTenant ? { TenantId: tenant } : {}),
  };
}

function isThrottle(error: unknown): boolean {
  if (error instanceof TooManyRequestsException) return true;
  const e = error as { name?: unknown; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'TooManyRequestsException' || e?.$metadata?.httpStatusCode === 429;
}

function retryAfter(error: unknown): number {
  const raw = (error as { retryAfterSeconds?: unknown } | null)?.retryAfterSeconds;
  const seconds = typeof raw === 'string' || typeof raw === 'number' ? Number(raw) : Number.NaN;
  return Number.isFinite(seconds) && seconds >= 1 ? Math.ceil(seconds) : DEFAULT_RETRY_AFTER_SECONDS;
}

export function createExecuteInvoker(
  config: ServiceConfig,
  env: NodeJS.ProcessEnv,
  client: LambdaClient = createLambdaClient(config, env),
): ExecuteInvoker {
  return {
    async invoke(event, tenant) {
      let output;
      try {
        output = await client.send(new InvokeCommand(invokeParams(config, event, tenant)));
      } catch (error) {
        if (isThrottle(error)) throw new ThrottledError(retryAfter(error), { cause: error });
        throw new InvokeError(`invoking ${config.executeFunctionName} failed: ${(error as Error)?.message ?? String(error)}`, { cause: error });
      }
      const text = output.Payload ? Buffer.from(output.Payload).toString('utf8') : '';
      if (output.FunctionError) {
        throw new ExecuteFailedError(`execute function error (${output.FunctionError}): ${text.slice(0, 2000)}`);
      }
      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch (cause) {
        throw new ExecuteFailedError(`execute function returned a payload that is not JSON: ${text.slice(0, 200)}`, { cause });
      }
      const parsed = ExecuteResponseSchema.safeParse(payload);
      if (!parsed.success) {
        throw new ExecuteFailedError(`execute function returned an invalid response: ${parsed.error.message.slice(0, 2000)}`, { cause: parsed.error });
      }
      return parsed.data;
    },
  };
}
