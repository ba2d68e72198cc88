/** API Gateway proxy results: every response is JSON with `Content-Type: application/json`. */
import type { APIGatewayProxyResult } from 'aws-lambda';

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}
