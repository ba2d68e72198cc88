/**
 * The tenant comes from the caller's identity: the path's `/t/{tenant}/` checked against the IAM
 * identity API Gateway puts in the request context (functions/api/http/caller.ts), with the Lambda
 * SDK mocked at its boundary. A tenant that differs from the identity's is refused with a stable
 * code before anything is invoked or any data pointer is resolved.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, readServiceConfig } from '../../../layers/config/service-config.ts';
import { ErrorBodySchema, HealthResponseSchema, routePath } from '../../../layers/contract/api.ts';
import type { ExecuteResponse } from '../../../layers/contract/execute.ts';
import { createApi } from '../../../functions/api/create-api.ts';
import { callerBinding, tenantOfCall } from '../../../functions/api/http/caller.ts';
import { CallerNotAllowedError, InvalidTenantError, TenantMismatchError } from '../../../functions/api/http/errors.ts';
import type { DataPointerResolver } from '../../../functions/api/data-pointers/types.ts';
import { context, jsonPost, proxyEvent } from './events.ts';

const lambda = mockClient(LambdaClient);
const silent = new Logger({ serviceName: 'jube-r-test', logLevel: 'SILENT' });
const OK: ExecuteResponse = {
  status: 'ok', consoleOutput: '', error: null, warnings: [], durationMs: 1, timedOut: false, rVersion: '4.5.0', timestamp: '2026-01-01T00:00:00.000Z',
};

const TENANT_ROLE = 'arn:aws:iam::123456789012:role/service/jube-r-tenants';
const ORCHESTRATOR_ROLE = 'arn:aws:iam::123456789012:role/platform-orchestrator';
/** A session of the tenant role as API Gateway names the caller: the role's path is not in it. */
const sessionOf = (role: string, session: string) => `arn:aws:sts::123456789012:assumed-role/${role}/${session}`;

const IDENTITY = { JUBE_R_TENANT_BINDING: 'identity', JUBE_R_CALLER_ROLE_ARN: TENANT_ROLE, JUBE_R_EXECUTE_TENANCY: 'PER_TENANT' };
const ORCHESTRATOR = { JUBE_R_TENANT_BINDING: 'single-orchestrator', JUBE_R_CALLER_ROLE_ARN: ORCHESTRATOR_ROLE, JUBE_R_EXECUTE_TENANCY: 'PER_TENANT' };

function makeApi(env: Record<string, string>, resolver?: DataPointerResolver) {
  const fullEnv = { JUBE_R_LAMBDA_ENDPOINT: 'http://127.0.0.1:9', ...env };
  return createApi({ env: fullEnv, config: readServiceConfig(fullEnv), logger: silent, ...(resolver ? { resolver: async () => resolver } : {}) });
}

async function execute(env: Record<string, string>, tenant: string, userArn: string | undefined, resolver?: DataPointerResolver) {
  const result = await makeApi(env, resolver).handler(jsonPost(routePath('execute', tenant), { script: '1' }, {}, userArn), context());
  return { status: result.statusCode, body: JSON.parse(result.body) as Record<string, unknown> };
}

beforeEach(() => {
  lambda.reset();
  lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: new Uint8Array(Buffer.from(JSON.stringify(OK))) as never });
});
afterEach(() => lambda.reset());

describe('identity binding: the path tenant must be the identity\'s', () => {
  it("runs a session of the tenant role named after the path's tenant, keyed by that tenant", async () => {
    const { status } = await execute(IDENTITY, 'acme', sessionOf('jube-r-tenants', 'acme'));
    expect(status).toBe(200);
    expect(lambda.commandCalls(InvokeCommand)[0]!.args[0].input.TenantId).toBe('acme');
  });

  it('refuses a path tenant that differs from the identity\'s with 403 TENANT_MISMATCH, invoking nothing and resolving no data', async () => {
    let resolved = 0;
    const resolver: DataPointerResolver = {
      resolve: async () => {
        resolved += 1;
        return { ok: true, dataframes: [] };
      },
    };
    const result = await makeApi(IDENTITY, resolver).handler(
      jsonPost('/t/globex/execute', { script: '1', dataframes: [{ name: 'd', dataPointer: 'orders' }] }, {}, sessionOf('jube-r-tenants', 'acme')),
      context(),
    );
    expect(result.statusCode).toBe(403);
    expect(ErrorBodySchema.parse(JSON.parse(result.body))).toMatchObject({
      code: 'TENANT_MISMATCH',
      message: expect.stringContaining('"globex"'),
      requestId: 'req-test-1',
    });
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
    expect(resolved).toBe(0);
  });

  it.each([
    ['no identity at all', undefined],
    ['a session of another role of the same account', sessionOf('jube-r-tenants-old', 'acme')],
    ['a session of the same role name in another account', 'arn:aws:sts::210987654321:assumed-role/jube-r-tenants/acme'],
    ['an IAM user', 'arn:aws:iam::123456789012:user/acme'],
    ['the orchestrator role', sessionOf('platform-orchestrator', 'acme')],
  ])('refuses %s with 403 CALLER_NOT_ALLOWED', async (_name, userArn) => {
    const { status, body } = await execute(IDENTITY, 'acme', userArn);
    expect(status).toBe(403);
    expect(ErrorBodySchema.parse(body).code).toBe('CALLER_NOT_ALLOWED');
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
  });

  it('checks the tenant\'s syntax first: a malformed path tenant is 400 INVALID_TENANT whoever calls', async () => {
    const { status, body } = await execute(IDENTITY, 'Acme', sessionOf('jube-r-tenants', 'Acme'));
    expect([status, body['code']]).toEqual([400, 'INVALID_TENANT']);
  });

  it('leaves the tenant-free routes to IAM: /health answers any admitted caller and says the binding', async () => {
    const result = await makeApi(IDENTITY).handler(proxyEvent('GET', '/health', { query: { detail: 'full' } }), context());
    expect(HealthResponseSchema.parse(JSON.parse(result.body)).isolation.tenantBinding).toBe('identity');
  });
});

describe('single-orchestrator binding: one trusted role names the tenants', () => {
  it('runs any tenant the orchestrator names', async () => {
    for (const tenant of ['acme', 'globex']) {
      expect((await execute(ORCHESTRATOR, tenant, sessionOf('platform-orchestrator', 'batch-7'))).status).toBe(200);
    }
    expect(lambda.commandCalls(InvokeCommand).map((c) => c.args[0].input.TenantId)).toEqual(['acme', 'globex']);
  });

  it('refuses any other caller with 403 CALLER_NOT_ALLOWED', async () => {
    const { status, body } = await execute(ORCHESTRATOR, 'acme', sessionOf('jube-r-tenants', 'acme'));
    expect([status, body['code']]).toEqual([403, 'CALLER_NOT_ALLOWED']);
  });
});

describe('tenantOfCall', () => {
  const identity = callerBinding({ tenantBinding: { mode: 'identity', roleArn: TENANT_ROLE }, lambdaEndpoint: undefined }, {});

  it('gives the path tenant back when it is the session\'s', () => {
    expect(tenantOfCall(identity, 'acme', { userArn: sessionOf('jube-r-tenants', 'acme') })).toBe('acme');
  });

  it('names each refusal by its class', () => {
    expect(() => tenantOfCall(identity, 'acme', { userArn: sessionOf('jube-r-tenants', 'globex') })).toThrow(TenantMismatchError);
    expect(() => tenantOfCall(identity, 'acme', { userArn: null })).toThrow(CallerNotAllowedError);
    expect(() => tenantOfCall(identity, undefined, { userArn: sessionOf('jube-r-tenants', 'acme') })).toThrow(InvalidTenantError);
  });

  it('unchecked (no IAM in front): the path\'s tenant, whoever calls', () => {
    const unchecked = callerBinding({ tenantBinding: { mode: undefined, roleArn: undefined }, lambdaEndpoint: undefined }, {});
    expect(unchecked.mode).toBe('unchecked');
    expect(tenantOfCall(unchecked, 'acme', undefined)).toBe('acme');
  });
});

describe('callerBinding fails closed', () => {
  it('refuses to start in Lambda (a function name, no local Lambda endpoint) without a binding', () => {
    expect(() => callerBinding({ tenantBinding: { mode: undefined, roleArn: undefined }, lambdaEndpoint: undefined }, { AWS_LAMBDA_FUNCTION_NAME: 'validate' })).toThrow(
      /JUBE_R_TENANT_BINDING is unset in Lambda/,
    );
    expect(() => makeApi({}).deps).not.toThrow();
  });

  it('takes a local API (sam local: a local Lambda endpoint) as unchecked', () => {
    const local = callerBinding({ tenantBinding: { mode: undefined, roleArn: undefined }, lambdaEndpoint: 'http://host.docker.internal:3001' }, { AWS_LAMBDA_FUNCTION_NAME: 'validate' });
    expect(local.mode).toBe('unchecked');
  });

  it('refuses a binding without its role, naming the variable', () => {
    expect(() => readServiceConfig({ JUBE_R_TENANT_BINDING: 'identity' })).toThrow(ConfigError);
    expect(() => readServiceConfig({ JUBE_R_TENANT_BINDING: 'identity' })).toThrow(/JUBE_R_CALLER_ROLE_ARN/);
    expect(() => readServiceConfig({ JUBE_R_TENANT_BINDING: 'identity', JUBE_R_CALLER_ROLE_ARN: 'acme' })).toThrow(/JUBE_R_CALLER_ROLE_ARN/);
  });
});
