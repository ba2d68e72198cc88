/**
 * The edge: the one place an error becomes an HTTP status and an error body (the codes, statuses
 * and body shape are the contract's, layers/contract/api.ts). Callers see the message only below
 * 500; a 5xx says something generic and carries the request id so an operator can find the real
 * cause in the logs.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { callerMessage, ERROR_STATUS, type ErrorBody, type ErrorCode, type HelpTopic, type ThrottleReason } from '../../../layers/contract/api.ts';
import { ApiError, HelpTopicNotFoundError, InvalidRequestError, MethodNotAllowedError, ThrottledError, UnknownFieldError } from './errors.ts';
import { jsonResponse } from './response.ts';

interface Classified {
  readonly code: ErrorCode;
  readonly headers?: Record<string, string>;
  readonly issues?: readonly { path: string; message: string }[];
  readonly reason?: ThrottleReason;
  readonly suggestions?: readonly HelpTopic[];
}

function classify(error: unknown): Classified {
  if (!(error instanceof ApiError)) return { code: 'INTERNAL' };
  if (error instanceof UnknownFieldError || error instanceof InvalidRequestError) return { code: error.code, issues: error.issues };
  if (error instanceof MethodNotAllowedError) return { code: error.code, headers: { Allow: error.allow.join(', ') } };
  if (error instanceof ThrottledError) return { code: error.code, headers: { 'Retry-After': String(error.retryAfterSeconds) }, reason: error.reason };
  if (error instanceof HelpTopicNotFoundError) return { code: error.code, suggestions: error.suggestions };
  return { code: error.code };
}

/** Turns any error into the API's response; unknown errors are INTERNAL. */
export function errorResponse(error: unknown, requestId: string): APIGatewayProxyResult {
  const { code, headers, issues, reason, suggestions } = classify(error);
  const message = callerMessage(code, error instanceof Error ? error.message : undefined, reason);
  const body: ErrorBody = { code, message, requestId, ...(issues ? { issues: [...issues] } : {}), ...(reason ? { reason } : {}), ...(suggestions ? { suggestions: [...suggestions] } : {}) };
  return jsonResponse(ERROR_STATUS[code], body, headers);
}
