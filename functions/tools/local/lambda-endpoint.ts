/**
 * A local Lambda Invoke endpoint with the wire API of `sam local start-lambda` and of Lambda
 * itself (`POST /2015-03-31/functions/{name}/invocations`), so the validate handler's SDK client
 * reaches it through configuration only. It enforces the function's reserved concurrency as
 * Lambda does: an invocation beyond the cap is refused at once with a 429
 * `TooManyRequestsException`, never queued.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ExecuteRuntime } from './runtime.ts';
import { listen, type ListeningServer } from './listen.ts';
import { readBody } from './read-body.ts';

/** Lambda's synchronous invocation payload limit (request and response alike). */
export const MAX_INVOKE_PAYLOAD_BYTES = 6 * 1024 * 1024;

const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

export interface LambdaEndpointOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly functionName: string;
  readonly runtime: ExecuteRuntime;
  /** Reserved concurrency: invocations running at once. */
  readonly maxInflight: number;
  /**
   * The function uses tenant isolation (PER_TENANT): every invoke must carry a TenantId and the
   * runtime keys its environments by it; otherwise a TenantId is refused. Both as Lambda answers.
   */
  readonly perTenant?: boolean;
  /** The function's configured timeout. */
  readonly functionTimeoutMs: number;
  readonly log?: (entry: Record<string, unknown>) => void;
}

/** `close` stops accepting connections; running invocations finish (or are ended by the runtime). */
export interface LambdaEndpoint extends ListeningServer {
  inflight(): number;
}

/** True when `requested` (a name, a function ARN or a partial ARN, maybe qualified) names `functionName`. */
export function namesFunction(requested: string, functionName: string): boolean {
  if (requested === functionName) return true;
  const parts = requested.split(':');
  const at = parts.indexOf('function');
  const name = at >= 0 ? parts[at + 1] : parts.length === 2 ? parts[0] : undefined;
  const qualifier = at >= 0 ? parts[at + 2] : parts.length === 2 ? parts[1] : undefined;
  return name === functionName && (qualifier === undefined || qualifier === '$LATEST');
}

/**
 * Every answer closes its connection: the SDK's keep-alive agent could otherwise reuse a socket
 * the server is just closing, and with `maxAttempts: 1` that race would surface as a failed call.
 */
const CLOSE = { Connection: 'close' } as const;

function lambdaError(response: ServerResponse, status: number, type: string, message: string, extra: Record<string, string> = {}) {
  const requestId = randomUUID();
  response.writeHead(status, {
    ...CLOSE,
    'Content-Type': 'application/json',
    'x-amzn-RequestId': requestId,
    'x-amzn-ErrorType': type,
  });
  response.end(JSON.stringify({ Type: 'User', message, ...extra }));
}

export async function startLambdaEndpoint(options: LambdaEndpointOptions): Promise<LambdaEndpoint> {
  let inflight = 0;
  const log = options.log ?? (() => undefined);

  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://local').pathname;
    const match = INVOKE_PATH.exec(path);
    if (!match || request.method !== 'POST') {
      lambdaError(response, 404, 'UnknownOperationException', `Unknown operation ${request.method} ${path}`);
      return;
    }
    const requested = decodeURIComponent(match[1]!);
    if (!namesFunction(requested, options.functionName)) {
      lambdaError(response, 404, 'ResourceNotFoundException', `Function not found: ${requested}`);
      return;
    }
    const invocationType = request.headers['x-amz-invocation-type'] ?? 'RequestResponse';
    if (invocationType !== 'RequestResponse') {
      lambdaError(response, 400, 'InvalidParameterValueException', `the local endpoint supports InvocationType RequestResponse only, not ${String(invocationType)}`);
      return;
    }
    const { body, overflow } = await readBody(request, MAX_INVOKE_PAYLOAD_BYTES);
    if (overflow) {
      lambdaError(response, 413, 'RequestTooLargeException', `Request must be smaller than ${MAX_INVOKE_PAYLOAD_BYTES} bytes for the InvokeFunction operation`);
      return;
    }
    let payload: unknown;
    try {
      payload = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
    } catch {
      lambdaError(response, 400, 'InvalidRequestContentException', 'Could not parse request body into json');
      return;
    }
    const tenant = request.headers['x-amz-tenant-id'];
    const perTenant = options.perTenant ?? false;
    if (perTenant !== (typeof tenant === 'string')) {
      lambdaError(response, 400, 'InvalidParameterValueException', 'Tenant ID configuration not specified or passed to a function when tenant isolation is not enabled.');
      return;
    }
    // Checked and taken in one synchronous step, so two arrivals can never both get the last slot.
    if (inflight >= options.maxInflight) {
      log({ message: 'invoke throttled', inflight, maxInflight: options.maxInflight });
      lambdaError(response, 429, 'TooManyRequestsException', 'Rate Exceeded.', {
        Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded',
      });
      return;
    }
    inflight += 1;
    const requestId = randomUUID();
    const started = Date.now();
    try {
      const outcome = await options.runtime.invoke(payload, {
        requestId,
        timeoutMs: options.functionTimeoutMs,
        ...(typeof tenant === 'string' ? { tenantId: tenant } : {}),
      });
      const headers: Record<string, string> = {
        ...CLOSE,
        'Content-Type': 'application/json',
        'x-amzn-RequestId': requestId,
        'X-Amz-Executed-Version': '$LATEST',
      };
      if (!outcome.ok && outcome.throttled) {
        // Lambda's cap on tenant environments: a TooManyRequestsException without a Reason of its own.
        log({ message: 'invoke throttled: no environment for this key', tenant });
        lambdaError(response, 429, 'TooManyRequestsException', 'Rate exceeded');
        return;
      }
      if (outcome.ok) {
        response.writeHead(200, headers);
        response.end(JSON.stringify(outcome.payload ?? null));
      } else {
        response.writeHead(200, { ...headers, 'X-Amz-Function-Error': 'Unhandled' });
        response.end(JSON.stringify({ errorType: outcome.errorType, errorMessage: outcome.errorMessage, trace: [] }));
      }
      log({ message: 'invoke', requestId, tenant, ok: outcome.ok, durationMs: Date.now() - started });
    } finally {
      inflight -= 1;
    }
  };

  const server: Server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        lambdaError(response, 500, 'ServiceException', `local endpoint failure: ${(error as Error)?.message ?? String(error)}`);
      } else response.destroy();
    });
  });
  return { ...(await listen(server, options.host, options.port)), inflight: () => inflight };
}
