/**
 * The edge middleware: turns any error into the API's error response (error-response.ts) and
 * writes one structured log line per request, with its request id. 5xx causes are logged in
 * full here because the caller only ever sees a generic message and the request id.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { errorResponse } from './error-response.ts';
import { ThrottledError } from './errors.ts';

type ApiRequest = Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>;

/** API Gateway's request id (what the caller can quote), else the Lambda invocation's. */
export function requestIdOf(event: APIGatewayProxyEvent | undefined, context: Context | undefined): string {
  return event?.requestContext?.requestId ?? context?.awsRequestId ?? 'unknown';
}

const started = new WeakMap<object, number>();

export function edge(logger: Logger): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> {
  const access = (request: ApiRequest, extra: Record<string, unknown> = {}) => {
    const statusCode = request.response?.statusCode ?? 0;
    const begun = started.get(request.event);
    const entry = {
      requestId: requestIdOf(request.event, request.context),
      method: request.event.httpMethod,
      path: request.event.path,
      statusCode,
      durationMs: begun === undefined ? undefined : Math.round(performance.now() - begun),
      ...extra,
    };
    if (statusCode >= 500) logger.error('request failed', entry);
    else logger.info('request', entry);
  };

  return {
    before: (request) => {
      started.set(request.event, performance.now());
    },
    after: (request) => {
      access(request);
    },
    onError: (request) => {
      request.response = errorResponse(request.error, requestIdOf(request.event, request.context));
      const error = request.error;
      access(request, {
        errorName: error?.name,
        // The throttle's `reason` for the caller is partly inferred; Lambda's own word, raw, is here.
        ...(error instanceof ThrottledError ? { throttleReason: error.reason, lambdaThrottleReason: error.lambdaReason ?? null } : {}),
        ...(request.response.statusCode >= 500 ? { error } : { errorMessage: error?.message }),
      });
    },
  };
}
