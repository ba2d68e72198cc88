/** Plain HTTP requests become API Gateway REST proxy events as API Gateway builds them. */
import { describe, expect, it } from 'vitest';
import { toHttpBody, toHttpHeaders, toProxyEvent } from '../../../../functions/tools/local/api-gateway-event.ts';

const raw = (overrides: Partial<Parameters<typeof toProxyEvent>[0]> = {}) =>
  toProxyEvent({
    method: 'POST',
    url: '/execute?x=1&x=2&y=3',
    rawHeaders: ['Content-Type', 'application/json', 'X-Jube-Tenant', 'acme', 'Accept', 'a', 'Accept', 'b'],
    body: Buffer.from('{"script":"1"}'),
    sourceIp: '127.0.0.1',
    requestId: 'r-1',
    now: 1_700_000_000_000,
    ...overrides,
  });

describe('toProxyEvent', () => {
  it('carries method, path, body and the request id', () => {
    const event = raw();
    expect(event).toMatchObject({ httpMethod: 'POST', path: '/execute', body: '{"script":"1"}', isBase64Encoded: false, resource: '/{proxy+}' });
    expect(event.requestContext).toMatchObject({ requestId: 'r-1', httpMethod: 'POST', requestTimeEpoch: 1_700_000_000_000, stage: 'local' });
    expect(event.requestContext.identity.sourceIp).toBe('127.0.0.1');
  });

  it('keeps header case and the last value in single-value maps, all values in multi-value maps', () => {
    const event = raw();
    expect(event.headers).toEqual({ 'Content-Type': 'application/json', 'X-Jube-Tenant': 'acme', Accept: 'b' });
    expect(event.multiValueHeaders['Accept']).toEqual(['a', 'b']);
    expect(event.queryStringParameters).toEqual({ x: '2', y: '3' });
    expect(event.multiValueQueryStringParameters).toEqual({ x: ['1', '2'], y: ['3'] });
  });

  it('gives null for an absent body and absent query', () => {
    const event = raw({ method: 'GET', url: '/health', body: Buffer.alloc(0) });
    expect(event.body).toBeNull();
    expect(event.queryStringParameters).toBeNull();
  });
});

describe('the proxy result back to HTTP', () => {
  it('merges single and multi-value headers and decodes a base64 body', () => {
    const result = { statusCode: 200, headers: { 'Content-Type': 'application/json' }, multiValueHeaders: { 'Set-Thing': ['a', 'b'] }, body: Buffer.from('{}').toString('base64'), isBase64Encoded: true };
    expect(toHttpHeaders(result)).toEqual({ 'Content-Type': 'application/json', 'Set-Thing': ['a', 'b'] });
    expect(toHttpBody(result).toString()).toBe('{}');
  });
});
