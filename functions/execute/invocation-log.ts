/**
 * The one structured log line per invocation: what an operator searches by (request
 * id, tenant) and what tells a healthy run from a sick one (status, time, timeout, truncation,
 * response size, the sandbox layers the run had). Pure; the handler writes it with its logger.
 */
import type { ExecuteResponse } from '../../layers/contract/execute.ts';

/** The part of the Lambda context the handler uses. */
export interface LambdaContextLike {
  getRemainingTimeInMillis(): number;
  readonly awsRequestId?: string;
  /** Set by Lambda when the function uses tenant isolation (PER_TENANT). */
  readonly tenantId?: string;
}

export interface InvocationFacts {
  readonly context: LambdaContextLike | undefined;
  /** The API request id the validate function passed on, for correlation across the two logs. */
  readonly apiRequestId: string | undefined;
  readonly response: ExecuteResponse;
  readonly durationMs: number;
  /** The layers of the run; undefined when R never started (rejected, nothing staged). */
  readonly sandboxLayers: readonly string[] | undefined;
}

export function invocationLogAttributes(facts: InvocationFacts): Record<string, unknown> {
  const { context, response } = facts;
  return {
    requestId: context?.awsRequestId,
    ...(facts.apiRequestId === undefined ? {} : { apiRequestId: facts.apiRequestId }),
    ...(context?.tenantId === undefined ? {} : { tenant: context.tenantId }),
    status: response.status,
    durationMs: facts.durationMs,
    timedOut: response.timedOut,
    truncated: response.truncated === true,
    responseBytes: Buffer.byteLength(JSON.stringify(response), 'utf8'),
    ...(facts.sandboxLayers === undefined ? {} : { sandboxLayers: [...facts.sandboxLayers] }),
  };
}
