/**
 * The local API: plain HTTP in, API Gateway REST proxy events through the validate handler,
 * its results back out. At most maxRequestBodyBytes + 1 bytes of a body are read, enough for
 * the handler to see an oversized body and answer 413 itself, as it does behind API Gateway.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { callerMessage, ERROR_STATUS, type ErrorBody } from '../../../layers/contract/api.ts';
import type { ApiHandler } from '../../api/create-api.ts';
import { lambdaContext, toHttpBody, toHttpHeaders, toProxyEvent } from './api-gateway-event.ts';
import { listen, type ListeningServer } from './listen.ts';
import { readBody } from './read-body.ts';
import { verifySigV4, type LocalSigV4 } from './sigv4-verifier.ts';

export interface ApiServerOptions {
  readonly host: string;
  readonly port: number;
  readonly handler: ApiHandler;
  readonly maxRequestBodyBytes: number;
  /** The validate function's timeout, for the handler's context. */
  readonly functionTimeoutMs: number;
  /** Check every request's SigV4 signature against these keys, as the deployed API's IAM authorization does. */
  readonly sigV4?: LocalSigV4 | undefined;
}

export interface ApiServer extends ListeningServer {
  inflight(): number;
}

/**
 * The handler answers its own errors (its edge middleware); this is only for one that escapes it,
 * answered as API Gateway would see a failed integration: the contract's INTERNAL body.
 */
function internalError(requestId: string): APIGatewayProxyResult {
  const body: ErrorBody = { code: 'INTERNAL', message: callerMessage('INTERNAL', undefined), requestId };
  return { statusCode: ERROR_STATUS.INTERNAL, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}

export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  let inflight = 0;

  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    const requestId = randomUUID();
    const { body, overflow } = await readBody(request, options.maxRequestBodyBytes + 1);
    // An oversized body cannot be hashed whole; the handler refuses it with 413 without doing any work.
    if (options.sigV4 && !overflow) {
      const failure = await verifySigV4(
        { method: request.method ?? 'GET', url: request.url ?? '/', headers: lowerCaseHeaderMap(request.rawHeaders), body: body.toString('utf8') },
        options.sigV4,
      );
      if (failure) {
        // API Gateway's own answer: not the contract's error body, since the handler never ran.
        response.writeHead(403, { 'Content-Type': 'application/json', 'x-amzn-ErrorType': failure.type, 'x-amzn-RequestId': requestId });
        response.end(JSON.stringify({ message: failure.message }));
        return;
      }
    }
    const event = toProxyEvent({
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      rawHeaders: request.rawHeaders,
      body,
      sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
      requestId,
      now: Date.now(),
    });
    let result;
    try {
      result = await options.handler(event, lambdaContext('jube-r-validate', requestId, options.functionTimeoutMs));
    } catch {
      result = internalError(requestId);
    }
    const headers: Record<string, string | string[]> = { ...toHttpHeaders(result), 'x-amzn-RequestId': requestId };
    // The unread rest of an oversized body is not drained; the connection ends with this answer.
    if (overflow) headers['Connection'] = 'close';
    response.writeHead(result.statusCode, headers);
    response.end(toHttpBody(result));
  };

  const server: Server = createServer((request, response) => {
    inflight += 1;
    response.once('close', () => (inflight -= 1));
    serve(request, response).catch(() => {
      if (!response.headersSent) {
        const result = internalError('unknown');
        response.writeHead(result.statusCode, toHttpHeaders(result));
        response.end(toHttpBody(result));
      } else response.destroy();
    });
  });
  // Longer than clients' usual idle reuse, so a kept-alive socket is not closed under a request.
  server.keepAliveTimeout = 65_000;
  return { ...(await listen(server, options.host, options.port)), inflight: () => inflight };
}

/** Node's raw header list as one lower-case name -> value map (repeated names joined as HTTP does). */
function lowerCaseHeaderMap(rawHeaders: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    out[name] = out[name] === undefined ? value : `${out[name]},${value}`;
  }
  return out;
}
