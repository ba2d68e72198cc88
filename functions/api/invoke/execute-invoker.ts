/**
 * Invokes the execute function once per /execute call. The client never retries
 * (`maxAttempts: 1`): a throttle must reach the caller as a 503 at once, and a slow script must
 * never run twice.
 *
 * The invoke has a deadline (an AbortSignal passed to the SDK): the configured client timeout
 * (`lambdaClientTimeoutMs`, which outlives a cold execute invocation, infra/lib/timeout-chain.ts),
 * shortened to what this validate invocation has left minus `responseReserveMs`. Validator loading
 * and data-pointer resolution come before the invoke, and an execute cold start is not counted in
 * the execute function's timeout; if they add up past the validate function's own time, the caller
 * still gets this function's answer (504 EXECUTE_DEADLINE) rather than API Gateway's bare 504.
 */
import { InvokeCommand, LambdaClient, TooManyRequestsException, type InvokeCommandInput } from '@aws-sdk/client-lambda';
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import { ExecutePayloadSchema, type ExecuteEventInput, type ExecutePayload } from '../../../layers/contract/execute.ts';
import type { ThrottleReason } from '../../../layers/contract/api.ts';
import { ExecuteDeadlineError, ExecuteEnvironmentLostError, ExecuteFailedError, InvokeError, ThrottledError } from '../http/errors.ts';

export interface InvokeOptions {
  /** The validate invocation's remaining time, read when the invoke starts. */
  readonly remainingTimeMs?: () => number;
}

export interface ExecuteInvoker {
  /** `isolationKey`: the call's key (isolation-key.ts), sent as the TenantId under PER_TENANT. */
  /** The execute function's payload: the response and, for a session's call, the snapshot it wrote. */
  invoke(event: ExecuteEventInput, isolationKey: string, options?: InvokeOptions): Promise<ExecutePayload>;
}

/** Below this, starting a script is pointless: it could not answer before the deadline. */
export const MIN_INVOKE_BUDGET_MS = 1000;

/** The invoke's deadline in milliseconds from now. Pure. */
export function invokeDeadlineMs(config: Pick<ServiceConfig, 'lambdaClientTimeoutMs' | 'responseReserveMs'>, remainingMs: number | undefined): number {
  if (remainingMs === undefined || !Number.isFinite(remainingMs)) return config.lambdaClientTimeoutMs;
  return Math.min(config.lambdaClientTimeoutMs, Math.floor(remainingMs - config.responseReserveMs));
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

/**
 * Lambda refuses a TenantId for a function without tenant isolation and requires one for a function
 * with it (InvalidParameterValueException), so it is sent exactly under PER_TENANT.
 */
export function invokeParams(config: ServiceConfig, event: ExecuteEventInput, isolationKey: string): InvokeCommandInput {
  return {
    FunctionName: config.executeFunctionName,
    InvocationType: 'RequestResponse',
    Payload: Buffer.from(JSON.stringify(event)),
    ...(config.executePerTenant ? { TenantId: isolationKey } : {}),
  };
}

/** Lambda's error type in a function error payload ({"errorType": ..., "errorMessage": ...}). */
function functionErrorType(text: string): string | undefined {
  try {
    const type = (JSON.parse(text) as { errorType?: unknown } | null)?.errorType;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}

/** The SDK's names for a request it gave up on: our AbortSignal, or its own request timeout. */
function isDeadline(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

/**
 * `send` with the deadline: the SDK aborts the HTTP request on the signal, and the race answers
 * even where nothing below honours it (a mocked client, a stuck handler).
 */
async function sendBefore(client: LambdaClient, command: InvokeCommand, deadlineMs: number) {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`no answer within ${deadlineMs} ms`);
      error.name = 'AbortError';
      controller.abort(error);
      reject(error);
    }, deadlineMs);
  });
  try {
    return await Promise.race([client.send(command, { abortSignal: controller.signal }), expired]);
  } finally {
    clearTimeout(timer);
  }
}

function isThrottle(error: unknown): boolean {
  if (error instanceof TooManyRequestsException) return true;
  const e = error as { name?: unknown; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'TooManyRequestsException' || e?.$metadata?.httpStatusCode === 429;
}

const CONCURRENCY_REASONS = new Set(['ConcurrentInvocationLimitExceeded', 'ReservedFunctionConcurrentInvocationLimitExceeded']);
const RATE_REASONS = new Set(['FunctionInvocationRateLimitExceeded', 'ReservedFunctionInvocationRateLimitExceeded', 'CallerRateLimitExceeded']);

/** Lambda's `Reason` on a TooManyRequestsException, as sent; undefined when it gave none. */
export function lambdaThrottleReason(error: unknown): string | undefined {
  const reason = (error as { Reason?: unknown } | null)?.Reason;
  return typeof reason === 'string' && reason !== '' ? reason : undefined;
}

/**
 * Which limit a TooManyRequestsException hit, from its `Reason`. Lambda's Reason values name the
 * concurrency and rate limits only; AWS describes the cap on tenant environments (2,500 active or
 * idle per 1,000 concurrency, "Troubleshooting tenant isolation for Lambda functions") as a
 * TooManyRequestsException "Rate exceeded" with no Reason of its own. So under PER_TENANT a throttle
 * that names none of those limits (none, or one this code does not know) is *probably* that cap:
 * `tenant-environments` is an inference, and the raw Reason goes to the log (ThrottledError.lambdaReason).
 * Elsewhere it is read as concurrency.
 */
export function throttleReason(error: unknown, perTenant: boolean): ThrottleReason {
  const reason = lambdaThrottleReason(error);
  if (reason !== undefined && CONCURRENCY_REASONS.has(reason)) return 'concurrency';
  if (reason !== undefined && RATE_REASONS.has(reason)) return 'invocation-rate';
  return perTenant ? 'tenant-environments' : 'concurrency';
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
    async invoke(event, isolationKey, options = {}) {
      const deadlineMs = invokeDeadlineMs(config, options.remainingTimeMs?.());
      if (deadlineMs < MIN_INVOKE_BUDGET_MS) {
        throw new ExecuteDeadlineError(`only ${deadlineMs} ms left for the invoke; the script was not started`);
      }
      let output;
      try {
        output = await sendBefore(client, new InvokeCommand(invokeParams(config, event, isolationKey)), deadlineMs);
      } catch (error) {
        if (isThrottle(error)) {
          throw new ThrottledError(retryAfter(error), throttleReason(error, config.executePerTenant), { cause: error, lambdaReason: lambdaThrottleReason(error) });
        }
        if (isDeadline(error)) {
          throw new ExecuteDeadlineError(`the execute function did not answer within ${deadlineMs} ms`, { cause: error });
        }
        throw new InvokeError(`invoking ${config.executeFunctionName} failed: ${(error as Error)?.message ?? String(error)}`, { cause: error });
      }
      const text = output.Payload ? Buffer.from(output.Payload).toString('utf8') : '';
      if (output.FunctionError) {
        const message = `execute function error (${output.FunctionError}): ${text.slice(0, 2000)}`;
        // The runtime process ended during the call: Lambda resets that environment (in the same
        // microVM, for the same key) before its next call, so only this call is lost. Never retried here: the script may have done its work already.
        if (functionErrorType(text) === 'Runtime.ExitError') throw new ExecuteEnvironmentLostError(message);
        throw new ExecuteFailedError(message);
      }
      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch (cause) {
        throw new ExecuteFailedError(`execute function returned a payload that is not JSON: ${text.slice(0, 200)}`, { cause });
      }
      const parsed = ExecutePayloadSchema.safeParse(payload);
      if (!parsed.success) {
        throw new ExecuteFailedError(`execute function returned an invalid response: ${parsed.error.message.slice(0, 2000)}`, { cause: parsed.error });
      }
      return parsed.data;
    },
  };
}
