/**
 * HTTP <-> API Gateway REST proxy integration, as the deployed API does it: the request becomes a
 * proxy event for the validate handler, and the handler's result becomes the HTTP response.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

export interface RawRequest {
  readonly method: string;
  /** Path with query string, as on the request line. */
  readonly url: string;
  /** Node's raw header list: name, value, name, value, ... in the order received. */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  readonly sourceIp: string;
  readonly requestId: string;
  readonly now: number;
}

function multi(pairs: Iterable<[string, string]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of pairs) (out[name] ??= []).push(value);
  return out;
}

/** A proxy event as API Gateway builds it: single-value maps keep the last value of a repeated name. */
export function toProxyEvent(request: RawRequest): APIGatewayProxyEvent {
  const url = new URL(request.url, 'http://local');
  const headerPairs: [string, string][] = [];
  for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) headerPairs.push([request.rawHeaders[i]!, request.rawHeaders[i + 1]!]);
  const multiValueHeaders = multi(headerPairs);
  const headers = Object.fromEntries(Object.entries(multiValueHeaders).map(([k, v]) => [k, v[v.length - 1]!]));
  const multiQuery = multi(url.searchParams.entries());
  const hasQuery = Object.keys(multiQuery).length > 0;
  const path = decodeURIComponent(url.pathname);
  return {
    resource: '/{proxy+}',
    path,
    httpMethod: request.method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? Object.fromEntries(Object.entries(multiQuery).map(([k, v]) => [k, v[v.length - 1]!])) : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: { proxy: path.replace(/^\//, '') },
    stageVariables: null,
    body: request.body.length > 0 ? request.body.toString('utf8') : null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: request.method,
      path: `/local${path}`,
      stage: 'local',
      requestId: request.requestId,
      requestTimeEpoch: request.now,
      resourceId: 'local',
      resourcePath: '/{proxy+}',
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: request.sourceIp,
        user: null,
        userAgent: headers['user-agent'] ?? headers['User-Agent'] ?? null,
        userArn: null,
      },
    },
  };
}

/** Response headers for Node: single and multi-value maps merged. */
export function toHttpHeaders(result: APIGatewayProxyResult): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) out[k] = String(v);
  for (const [k, v] of Object.entries(result.multiValueHeaders ?? {})) out[k] = v.map(String);
  return out;
}

export function toHttpBody(result: APIGatewayProxyResult): Buffer {
  return result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body ?? '', 'utf8');
}

/**
 * A Lambda context for an in-process invocation with `timeoutMs` to run; `tenantId` is the
 * invoke's TenantId, which Lambda hands a tenant-isolated function in its context.
 */
export function lambdaContext(functionName: string, requestId: string, timeoutMs: number, tenantId?: string): Context & { tenantId?: string } {
  const deadline = Date.now() + timeoutMs;
  return {
    ...(tenantId === undefined ? {} : { tenantId }),
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '2048',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
