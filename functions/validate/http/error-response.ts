/**
 * The edge: the one place an error becomes an HTTP status and an error body. Callers see the
 * message only below 500; a 5xx says something generic and carries the request id so an operator
 * can find the real cause in the logs.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { z } from 'zod';
import { ApiError, InvalidRequestError, MethodNotAllowedError, ThrottledError, UnknownFieldError } from './errors.ts';
import { jsonResponse } from './response.ts';

/** Every stable error code, with its status (docs/api.md lists the same table). */
export const ERROR_STATUS = {
  INVALID_JSON: 400,
  INVALID_REQUEST: 400,
  UNKNOWN_FIELD: 400,
  INVALID_TENANT: 400,
  TENANT_REQUIRED: 400,
  NOT_FOUND: 404,
  /** 404 like an object one may not see: the same answer whether malformed, stale, missing or not yours. */
  DATA_POINTER_UNRESOLVED: 404,
  METHOD_NOT_ALLOWED: 405,
  BODY_TOO_LARGE: 413,
  DATAFRAME_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTERNAL: 500,
  EXECUTE_FAILED: 502,
  THROTTLED: 503,
  /** The validate function's own answer before API Gateway's integration timeout would fire. */
  EXECUTE_DEADLINE: 504,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export const FieldIssueSchema = z.strictObject({ path: z.string(), message: z.string() });

/** The one error body shape, for every status. */
export const ErrorBodySchema = z.strictObject({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  requestId: z.string(),
  /** Per-field problems for INVALID_REQUEST and UNKNOWN_FIELD. */
  issues: z.array(FieldIssueSchema).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

const GENERIC_5XX: Record<number, string> = {
  500: 'internal error; quote the requestId when reporting it',
  502: 'the execute function failed to produce a result; quote the requestId when reporting it',
  503: 'the execute function is at its concurrency limit; retry after the Retry-After interval',
  504: 'the execute function did not answer in time (a cold start or a script at its limit); it was not retried, quote the requestId when reporting it',
};

interface Classified {
  readonly code: ErrorCode;
  readonly headers?: Record<string, string>;
  readonly issues?: readonly { path: string; message: string }[];
}

function classify(error: unknown): Classified {
  if (!(error instanceof ApiError)) return { code: 'INTERNAL' };
  if (error instanceof UnknownFieldError || error instanceof InvalidRequestError) return { code: error.code, issues: error.issues };
  if (error instanceof MethodNotAllowedError) return { code: error.code, headers: { Allow: error.allow.join(', ') } };
  if (error instanceof ThrottledError) return { code: error.code, headers: { 'Retry-After': String(error.retryAfterSeconds) } };
  return { code: error.code };
}

/** Turns any error into the API's response; unknown errors are INTERNAL. */
export function errorResponse(error: unknown, requestId: string): APIGatewayProxyResult {
  const { code, headers, issues } = classify(error);
  const statusCode = ERROR_STATUS[code];
  const message =
    statusCode < 500 && error instanceof Error ? error.message : (GENERIC_5XX[statusCode] ?? GENERIC_5XX[500]!);
  const body: ErrorBody = { code, message, requestId, ...(issues ? { issues: [...issues] } : {}) };
  return jsonResponse(statusCode, body, headers);
}
