/** Fixtures: API Gateway REST proxy events and a Lambda context, as the deployed API sends them. */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

export function proxyEvent(
  method: string,
  path: string,
  options: { body?: string | null; headers?: Record<string, string>; isBase64Encoded?: boolean; requestId?: string; userArn?: string; query?: Record<string, string> } = {},
): APIGatewayProxyEvent {
  const headers = options.headers ?? (options.body === undefined ? {} : { 'Content-Type': 'application/json' });
  return {
    resource: '/{proxy+}',
    path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: options.query ?? null,
    multiValueQueryStringParameters: options.query ? Object.fromEntries(Object.entries(options.query).map(([k, v]) => [k, [v]])) : null,
    pathParameters: { proxy: path.slice(1) },
    stageVariables: null,
    body: options.body ?? null,
    isBase64Encoded: options.isBase64Encoded ?? false,
    // IAM authorization puts the caller's ARN here (`$context.identity.userArn`).
    requestContext: {
      requestId: options.requestId ?? 'req-test-1',
      stage: 'test',
      ...(options.userArn === undefined ? {} : { identity: { userArn: options.userArn } }),
    } as APIGatewayProxyEvent['requestContext'],
  };
}

export const jsonPost = (path: string, body: unknown, headers: Record<string, string> = {}, userArn?: string) =>
  proxyEvent('POST', path, {
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...headers },
    ...(userArn === undefined ? {} : { userArn }),
  });

export const context = (): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'jube-r-validate',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:jube-r-validate',
  memoryLimitInMB: '1024',
  awsRequestId: 'aws-req-1',
  logGroupName: '/aws/lambda/jube-r-validate',
  logStreamName: 'test',
  getRemainingTimeInMillis: () => 30_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});
