/**
 * The API's faults as small named classes. Each carries a stable `code` of the contract
 * (layers/contract/api.ts); the HTTP status is chosen once, at the edge (error-response.ts),
 * never where the error is thrown.
 */
import type { ErrorCode, FieldIssue, HelpTopic, ThrottleReason } from '../../../layers/contract/api.ts';

/** The base of every fault the API answers with its own code; anything else is INTERNAL. */
export abstract class ApiError extends Error {
  abstract readonly code: ErrorCode;
}

export class BodyTooLargeError extends ApiError {
  override readonly name = 'BodyTooLargeError';
  readonly code = 'BODY_TOO_LARGE';
}
export class UnsupportedMediaTypeError extends ApiError {
  override readonly name = 'UnsupportedMediaTypeError';
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}
export class InvalidJsonError extends ApiError {
  override readonly name = 'InvalidJsonError';
  readonly code = 'INVALID_JSON';
}
export class UnknownFieldError extends ApiError {
  override readonly name = 'UnknownFieldError';
  readonly code = 'UNKNOWN_FIELD';
  constructor(readonly issues: readonly FieldIssue[]) {
    super(`unknown field${issues.length > 1 ? 's' : ''} ${issues.map((i) => `"${i.path}"`).join(', ')}; remove ${issues.length > 1 ? 'them' : 'it'} (this API rejects fields it does not define)`);
  }
}
export class InvalidRequestError extends ApiError {
  override readonly name = 'InvalidRequestError';
  /** CONTEXT_NOT_DATA when every problem is an r-json context's node that is not data. */
  constructor(readonly issues: readonly FieldIssue[], readonly code: 'INVALID_REQUEST' | 'CONTEXT_NOT_DATA' = 'INVALID_REQUEST') {
    super(issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '));
  }
}
export class InvalidTenantError extends ApiError {
  override readonly name = 'InvalidTenantError';
  readonly code = 'INVALID_TENANT';
}
export class InvalidSessionError extends ApiError {
  override readonly name = 'InvalidSessionError';
  readonly code = 'INVALID_SESSION';
}
/** The caller is not a session of the role this deployment's tenant binding admits (caller.ts). */
export class CallerNotAllowedError extends ApiError {
  override readonly name = 'CallerNotAllowedError';
  readonly code = 'CALLER_NOT_ALLOWED';
}
/** The path names a tenant other than the one the caller's identity is bound to (caller.ts). */
export class TenantMismatchError extends ApiError {
  override readonly name = 'TenantMismatchError';
  readonly code = 'TENANT_MISMATCH';
}
export class RouteNotFoundError extends ApiError {
  override readonly name = 'RouteNotFoundError';
  readonly code = 'NOT_FOUND';
}
export class MethodNotAllowedError extends ApiError {
  override readonly name = 'MethodNotAllowedError';
  readonly code = 'METHOD_NOT_ALLOWED';
  constructor(message: string, readonly allow: readonly string[]) {
    super(message);
  }
}
/** GET /help: no installed page for the topic; `suggestions` are the nearest installed topics. */
export class HelpTopicNotFoundError extends ApiError {
  override readonly name = 'HelpTopicNotFoundError';
  readonly code = 'HELP_TOPIC_NOT_FOUND';
  constructor(message: string, readonly suggestions: readonly HelpTopic[]) {
    super(message);
  }
}
/** Deliberately one message whatever the cause (malformed, stale, missing, another tenant's). */
export class DataPointerUnresolvedError extends ApiError {
  override readonly name = 'DataPointerUnresolvedError';
  readonly code = 'DATA_POINTER_UNRESOLVED';
}
export class DataframeTooLargeError extends ApiError {
  override readonly name = 'DataframeTooLargeError';
  readonly code = 'DATAFRAME_TOO_LARGE';
}
/**
 * Lambda refused the invoke with TooManyRequestsException; never retried here. `reason` says which
 * limit (layers/contract/api.ts THROTTLE_REASONS), so a caller knows whether waiting or fewer new
 * isolation keys helps; `lambdaReason` is Lambda's own `Reason` as sent (none: undefined), which the
 * edge logs, since `tenant-environments` is only ever inferred from its absence.
 */
export class ThrottledError extends ApiError {
  override readonly name = 'ThrottledError';
  readonly code = 'THROTTLED';
  readonly lambdaReason: string | undefined;
  constructor(
    readonly retryAfterSeconds: number,
    readonly reason: ThrottleReason = 'concurrency',
    options?: ErrorOptions & { readonly lambdaReason?: string | undefined },
  ) {
    super('the execute function is at its concurrency limit; retry after the Retry-After interval', options);
    this.lambdaReason = options?.lambdaReason;
  }
}
/** The execute function failed as a function (crash, timeout, bad payload), not the script. */
export class ExecuteFailedError extends ApiError {
  override readonly name = 'ExecuteFailedError';
  readonly code = 'EXECUTE_FAILED';
}
/** The execute function's runtime process ended during the call (Lambda's Runtime.ExitError). */
export class ExecuteEnvironmentLostError extends ApiError {
  override readonly name = 'ExecuteEnvironmentLostError';
  readonly code = 'EXECUTE_ENVIRONMENT_LOST';
}
/**
 * The execute function did not answer before the invoke's deadline (derived from the validate
 * function's remaining time): a cold start longer than the chain's headroom on a near-limit script.
 * Never retried here; the script may still be finishing in its own environment.
 */
export class ExecuteDeadlineError extends ApiError {
  override readonly name = 'ExecuteDeadlineError';
  readonly code = 'EXECUTE_DEADLINE';
}
/** The Lambda call itself failed (network, SDK, credentials). */
export class InvokeError extends ApiError {
  override readonly name = 'InvokeError';
  readonly code = 'INTERNAL';
}
