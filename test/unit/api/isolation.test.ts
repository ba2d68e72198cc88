/**
 * Isolation keys at the API: X-Jube-Session's syntax, the key each isolation mode derives, the
 * TenantId the invoke carries (the Lambda SDK mocked at its boundary), data staying tenant-scoped,
 * GET /health's report, and the TooManyRequestsException of Lambda's cap on tenant environments.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { InvokeCommand, LambdaClient, TooManyRequestsException } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../../layers/config/service-config.ts';
import type { ExecuteResponse } from '../../../layers/contract/execute.ts';
import { ErrorBodySchema, HealthResponseSchema } from '../../../layers/contract/api.ts';
import { tenantEnvironmentCap } from '../../../layers/contract/isolation.ts';
import { createApi } from '../../../functions/api/create-api.ts';
import { sessionOf, MAX_SESSION_LENGTH } from '../../../functions/api/http/session.ts';
import { InvalidSessionError } from '../../../functions/api/http/errors.ts';
import { invokeParams, throttleReason } from '../../../functions/api/invoke/execute-invoker.ts';
import {
  ISOLATION_KEY_PATTERN,
  isolationKey,
  MAX_ISOLATION_KEY_LENGTH,
} from '../../../functions/api/invoke/isolation-key.ts';
import { MAX_TENANT_LENGTH } from '../../../functions/api/data-pointers/pointer.ts';
import type { DataPointerResolver } from '../../../functions/api/data-pointers/types.ts';
import { context, jsonPost, proxyEvent } from './events.ts';

const lambda = mockClient(LambdaClient);
const silent = new Logger({ serviceName: 'jube-r-test', logLevel: 'SILENT' });
const OK: ExecuteResponse = {
  status: 'ok', consoleOutput: '', error: null, warnings: [], durationMs: 1, timedOut: false, rVersion: '4.5.0', timestamp: '2026-01-01T00:00:00.000Z',
};
const PER_TENANT = { JUBE_R_EXECUTE_TENANCY: 'PER_TENANT' };

function makeApi(env: Record<string, string> = {}, resolver?: DataPointerResolver) {
  const fullEnv = { JUBE_R_LAMBDA_ENDPOINT: 'http://127.0.0.1:9', ...env };
  return createApi({ env: fullEnv, config: readServiceConfig(fullEnv), logger: silent, ...(resolver ? { resolver: async () => resolver } : {}) });
}

async function call(api: ReturnType<typeof makeApi>, event: ReturnType<typeof proxyEvent>) {
  const result: APIGatewayProxyResult = await api.handler(event, context());
  return { result, body: JSON.parse(result.body) as Record<string, unknown> };
}

const tenantIds = () => lambda.commandCalls(InvokeCommand).map((c) => c.args[0].input.TenantId);

beforeEach(() => {
  lambda.reset();
  lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: new Uint8Array(Buffer.from(JSON.stringify(OK))) as never });
});
afterEach(() => lambda.reset());

describe('X-Jube-Session', () => {
  it('is optional', () => {
    expect(sessionOf({})).toBeUndefined();
  });

  it.each([
    ['one character', 'a'],
    ['digits and dashes', '0-agent-7'],
    ['the longest allowed', 'a'.repeat(MAX_SESSION_LENGTH)],
  ])('accepts %s', (_name, value) => {
    expect(sessionOf({ 'x-jube-session': value })).toBe(value);
  });

  it.each([
    ['empty', ''],
    ['one character too long', 'a'.repeat(MAX_SESSION_LENGTH + 1)],
    ['upper case', 'Agent-1'],
    ['a leading dash', '-agent'],
    ['an underscore (the key separator)', 'agent_1'],
    ['a dot', 'agent.1'],
    ['a slash', 'a/b'],
    ['a space', 'a b'],
    ['non-ASCII', 'agént'],
  ])('refuses %s with INVALID_SESSION', (_name, value) => {
    expect(() => sessionOf({ 'x-jube-session': value })).toThrow(InvalidSessionError);
  });

  it('is read whatever the case of the header name, and a malformed one is a 400 INVALID_SESSION before any invoke', async () => {
    const api = makeApi(PER_TENANT);
    const { result, body } = await call(api, jsonPost('/t/acme/execute', { script: '1' }, { 'X-JUBE-Session': 'Bad_Session' }));
    expect(result.statusCode).toBe(400);
    expect(ErrorBodySchema.parse(body)).toMatchObject({ code: 'INVALID_SESSION', message: expect.stringContaining('X-Jube-Session') });
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
  });
});

const sessionOrUndefined = (value: string): string | undefined => {
  try {
    return sessionOf({ 'x-jube-session': value });
  } catch {
    return undefined;
  }
};

describe('isolationKey', () => {
  const longest = { tenant: 'a'.repeat(MAX_TENANT_LENGTH), session: 'b'.repeat(MAX_SESSION_LENGTH) };

  it('tenant: the tenant, whatever the session', () => {
    expect(isolationKey('tenant', { tenant: 'acme', session: undefined })).toBe('acme');
    expect(isolationKey('tenant', { tenant: 'acme', session: 's1' })).toBe('acme');
  });

  it('session: the tenant and its session; without a session the tenant', () => {
    expect(isolationKey('session', { tenant: 'acme', session: 's1' })).toBe('acme_s1');
    expect(isolationKey('session', { tenant: 'acme', session: undefined })).toBe('acme');
  });

  it('session: deterministic, so one session reuses its environment', () => {
    expect(isolationKey('session', { tenant: 'acme', session: 's1' })).toBe(isolationKey('session', { tenant: 'acme', session: 's1' }));
  });

  it('never gives two (tenant, session) pairs one key, where plain concatenation with "-" would', () => {
    // "a-b" + "c" and "a" + "b-c" join to the same "a-b-c" with a dash; "_" cannot occur in either part.
    expect(isolationKey('session', { tenant: 'a-b', session: 'c' })).not.toBe(isolationKey('session', { tenant: 'a', session: 'b-c' }));
    expect(isolationKey('session', { tenant: 'acme', session: 's1' })).not.toBe(isolationKey('session', { tenant: 'acme', session: 's2' }));
    expect(isolationKey('session', { tenant: 'acme', session: 's1' })).not.toBe(isolationKey('session', { tenant: 'other', session: 's1' }));
  });

  it('run: a fresh key per call, of the tenant, never equal to a session key', () => {
    const keys = new Set(Array.from({ length: 50 }, () => isolationKey('run', { tenant: 'acme', session: 's1' })));
    expect(keys.size).toBe(50);
    for (const key of keys) {
      expect(key).toMatch(/^acme__[0-9a-f]{32}$/);
      // A session key is <tenant>_<session>; what follows "acme_" here is no valid session, so no session yields it.
      expect(sessionOrUndefined(key.slice('acme_'.length))).toBeUndefined();
    }
  });

  it('stays within the key length and character set at the longest tenant and session', () => {
    for (const mode of ['tenant', 'session', 'run'] as const) {
      const key = isolationKey(mode, longest);
      expect(key.length).toBeLessThanOrEqual(MAX_ISOLATION_KEY_LENGTH);
      expect(key).toMatch(ISOLATION_KEY_PATTERN);
    }
    expect(isolationKey('session', longest)).toHaveLength(MAX_ISOLATION_KEY_LENGTH);
    expect(MAX_ISOLATION_KEY_LENGTH).toBeLessThanOrEqual(128);
  });
});

describe("the invoke's TenantId", () => {
  it('is the key under PER_TENANT and absent under SHARED (Lambda refuses either mismatch)', () => {
    const event = { script: '1', timeoutSeconds: 1, variables: [], dataframes: [], requestId: 'r' };
    expect(invokeParams(readServiceConfig(PER_TENANT), event, 'acme_s1').TenantId).toBe('acme_s1');
    expect(invokeParams(readServiceConfig({}), event, 'acme_s1').TenantId).toBeUndefined();
  });

  it('session mode: two sessions of one tenant get two TenantIds, one session keeps its own', async () => {
    const api = makeApi({ ...PER_TENANT, JUBE_R_ISOLATION: 'session' });
    for (const session of ['s1', 's2', 's1']) {
      await call(api, jsonPost('/t/acme/execute', { script: '1' }, { 'x-jube-session': session }));
    }
    await call(api, jsonPost('/t/acme/execute', { script: '1' }));
    expect(tenantIds()).toEqual(['acme_s1', 'acme_s2', 'acme_s1', 'acme']);
  });

  it('tenant mode: the session does not change the TenantId', async () => {
    const api = makeApi({ ...PER_TENANT, JUBE_R_ISOLATION: 'tenant' });
    await call(api, jsonPost('/t/acme/execute', { script: '1' }, { 'x-jube-session': 's1' }));
    await call(api, jsonPost('/t/acme/execute', { script: '1' }, { 'x-jube-session': 's2' }));
    expect(tenantIds()).toEqual(['acme', 'acme']);
  });

  it('run mode: every call a distinct TenantId, even within one session', async () => {
    const api = makeApi({ ...PER_TENANT, JUBE_R_ISOLATION: 'run' });
    for (let i = 0; i < 3; i += 1) await call(api, jsonPost('/t/acme/execute', { script: '1' }, { 'x-jube-session': 's1' }));
    const ids = tenantIds();
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^acme__[0-9a-f]{32}$/);
  });

  it('a session never changes whose data a call binds: pointers resolve under the tenant alone', async () => {
    const asked: string[] = [];
    const resolver: DataPointerResolver = {
      resolve: async (tenant) => {
        asked.push(tenant);
        return { ok: true, dataframes: [] };
      },
    };
    const api = makeApi({ ...PER_TENANT, JUBE_R_ISOLATION: 'session' }, resolver);
    await call(api, jsonPost('/t/acme/execute', { script: '1', dataframes: [{ name: 'd', dataPointer: 'p1' }] }, { 'x-jube-session': 's1' }));
    expect(asked).toEqual(['acme']);
    expect(tenantIds()).toEqual(['acme_s1']);
  });
});

describe("Lambda's cap on tenant environments", () => {
  // As AWS documents it: TooManyRequestsException "Rate exceeded", with no Reason of the concurrency or rate limits.
  const capHit = () => new TooManyRequestsException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 429 } });

  it('is 503 THROTTLED with Retry-After and reason tenant-environments under PER_TENANT', async () => {
    lambda.on(InvokeCommand).rejects(capHit());
    const { result, body } = await call(makeApi(PER_TENANT), jsonPost('/t/acme/execute', { script: '1' }, { 'x-jube-session': 's9' }));
    expect(result.statusCode).toBe(503);
    expect(result.headers?.['Retry-After']).toBe('1');
    expect(ErrorBodySchema.parse(body)).toMatchObject({
      code: 'THROTTLED',
      reason: 'tenant-environments',
      // An inference from a missing Reason, and said to be one.
      message: expect.stringContaining('probably its cap on isolated execution environments'),
    });
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(1);
  });

  it('logs Lambda\'s own Reason raw, none or unknown, beside the inferred reason', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = new Logger({ serviceName: 'jube-r-test', logLevel: 'INFO' });
    logger.error = ((message: string, entry: Record<string, unknown>) => lines.push({ message, ...entry })) as typeof logger.error;
    const api = createApi({ env: { JUBE_R_LAMBDA_ENDPOINT: 'http://127.0.0.1:9', ...PER_TENANT }, config: readServiceConfig({ JUBE_R_LAMBDA_ENDPOINT: 'http://127.0.0.1:9', ...PER_TENANT }), logger });
    lambda.on(InvokeCommand).rejectsOnce(capHit()).rejectsOnce(new TooManyRequestsException({ message: 'Rate exceeded', $metadata: {}, Reason: 'SomeFutureLimitExceeded' as never }));
    const first = await call(api, jsonPost('/t/acme/execute', { script: '1' }));
    const second = await call(api, jsonPost('/t/acme/execute', { script: '1' }));
    expect([first.body['reason'], second.body['reason']]).toEqual(['tenant-environments', 'tenant-environments']);
    expect(lines.map((l) => [l['throttleReason'], l['lambdaThrottleReason']])).toEqual([
      ['tenant-environments', null],
      ['tenant-environments', 'SomeFutureLimitExceeded'],
    ]);
  });

  it('keeps Lambda\'s retryAfterSeconds', async () => {
    lambda.on(InvokeCommand).rejects(new TooManyRequestsException({ message: 'Rate exceeded', $metadata: {}, retryAfterSeconds: '12' }));
    const { result } = await call(makeApi(PER_TENANT), jsonPost('/t/acme/execute', { script: '1' }));
    expect(result.headers?.['Retry-After']).toBe('12');
  });

  it('is told apart from reserved concurrency and rate limits by their Reason', async () => {
    lambda.on(InvokeCommand).rejects(
      new TooManyRequestsException({ message: 'Rate Exceeded.', $metadata: {}, Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded' }),
    );
    const { body } = await call(makeApi(PER_TENANT), jsonPost('/t/acme/execute', { script: '1' }));
    expect(body).toMatchObject({ code: 'THROTTLED', reason: 'concurrency' });
    expect(throttleReason({ Reason: 'FunctionInvocationRateLimitExceeded' }, true)).toBe('invocation-rate');
    expect(throttleReason({ Reason: 'ConcurrentInvocationLimitExceeded' }, true)).toBe('concurrency');
  });

  it('control: without tenant isolation the same exception is read as concurrency', () => {
    expect(throttleReason(capHit(), false)).toBe('concurrency');
    expect(throttleReason(capHit(), true)).toBe('tenant-environments');
  });
});

describe('GET /health isolation', () => {
  it('reports PER_TENANT, the mode and the cap on tenant environments (2.5 per unit of concurrency)', async () => {
    const api = createApi({
      env: {},
      config: readServiceConfig({ ...PER_TENANT, JUBE_R_ISOLATION: 'run', JUBE_R_MAX_INFLIGHT_EXECUTE: '20' }),
      logger: silent,
    });
    const { body } = await call(api, proxyEvent('GET', '/health', { query: { detail: 'full' } }));
    expect(HealthResponseSchema.parse(body).isolation).toEqual({
      tenancy: 'PER_TENANT', mode: 'run', boundary: 'lambda-tenant-isolation', maxTenantEnvironments: 50, tenantBinding: 'unchecked',
    });
    expect(tenantEnvironmentCap(1000)).toBe(2500);
    expect(tenantEnvironmentCap(1)).toBe(2);
  });

  it('reports SHARED with its stated reason, and that nothing keeps keys apart', async () => {
    const api = makeApi({ JUBE_R_SHARED_TENANCY_REASON: 'sandbox account, smoke tests only', JUBE_R_ISOLATION: 'tenant' });
    const { body } = await call(api, proxyEvent('GET', '/health', { query: { detail: 'full' } }));
    expect(HealthResponseSchema.parse(body).isolation).toEqual({
      tenancy: 'SHARED', sharedTenancyReason: 'sandbox account, smoke tests only', mode: 'tenant', boundary: 'none', tenantBinding: 'unchecked',
    });
  });
});

describe('tenantOfKey (what the execute side scopes data by)', () => {
  it.each(['tenant', 'session', 'run'] as const)('gives back the tenant of every %s key', async (mode) => {
    const { tenantOfKey } = await import('../../../layers/contract/isolation.ts');
    const { isolationKey } = await import('../../../functions/api/invoke/isolation-key.ts');
    for (const session of [undefined, 'chat-1', 'a-b-c']) {
      expect(tenantOfKey(isolationKey(mode, { tenant: 'acme-corp', session }))).toBe('acme-corp');
    }
  });
});
