/**
 * Ingress middleware, in the order that keeps every check cheap: route (404/405), body size
 * before any parsing (413), content type (415), then JSON (400) through middy's parser.
 * Header names are lower-cased first: API Gateway passes them in the caller's own case.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { matchRoute } from '../routes/table.ts';
import { BodyTooLargeError, InvalidJsonError, UnsupportedMediaTypeError } from './errors.ts';

type ApiRequest = Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>;

const JSON_MEDIA_TYPE = /^application\/(.+\+)?json\s*($|;)/i;

export function lowerCaseHeaders(headers: APIGatewayProxyEvent['headers'] | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined && value !== null) out[name.toLowerCase()] = value;
  }
  return out;
}

/** The decoded size of a proxy event's body, without decoding it. */
export function bodyBytes(event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>): number {
  if (event.body === null || event.body === undefined) return 0;
  return event.isBase64Encoded ? Buffer.byteLength(event.body, 'base64') : Buffer.byteLength(event.body, 'utf8');
}

export function ingress(options: { readonly maxBodyBytes: number }): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> {
  // The content type is checked here, so the parser's own check (which reads only two spellings
  // of the header name) is off; its errors are translated into the API's own.
  // (`disableContentTypeCheck` exists at run time in 6.4 but not yet in its type definitions.)
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0]);

  const ingressBefore = async (request: ApiRequest): Promise<void> => {
    const event = request.event;
    event.headers = lowerCaseHeaders(event.headers);
    const { route } = matchRoute(event.httpMethod, event.path);
    if (!route.body) return;

    const size = bodyBytes(event);
    if (size > options.maxBodyBytes) {
      throw new BodyTooLargeError(`the request body is ${size} bytes; at most ${options.maxBodyBytes} bytes are accepted`);
    }
    const contentType = event.headers['content-type'];
    if (contentType === undefined || !JSON_MEDIA_TYPE.test(contentType)) {
      throw new UnsupportedMediaTypeError(
        `send the body as JSON with the header Content-Type: application/json (got ${contentType === undefined ? 'no Content-Type' : JSON.stringify(contentType.slice(0, 100))})`,
      );
    }
    if (event.body === null || event.body === undefined || event.body.trim() === '') {
      throw new InvalidJsonError('the request body is empty; send a JSON object');
    }
    try {
      await parser.before?.(request);
    } catch (error) {
      const detail = (error as { cause?: { message?: unknown } }).cause?.message;
      throw new InvalidJsonError(`the request body is not valid JSON${typeof detail === 'string' ? ` (${detail})` : ''}`, { cause: error });
    }
  };

  return { before: ingressBefore };
}
