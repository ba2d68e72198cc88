/**
 * The validate (API) handler with the Lambda SDK mocked at its boundary (aws-sdk-client-mock):
 * ingress errors, routing, invoke parameters, timeout clamping, tenancy, and how each Lambda
 * outcome (throttle, function error, bad payload, network failure, script result) is answered.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { InvokeCommand, LambdaClient, TooManyRequestsException } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../../layers/config/service-config.ts';
import { ExecuteResponseSchema, type ExecuteResponse } from '../../../layers/contract/execute.ts';
import { loadManifest, ManifestMissingError } from '../../../layers/packages/manifest.ts';
import { loadRules } from '../../../layers/rules/rules.ts';
import { createApi } from '../../../functions/api/create-api.ts';
import { createLambdaClient } from '../../../functions/api/invoke/execute-invoker.ts';
import { ErrorBodySchema, HealthResponseSchema, HealthSummarySchema, PackagesResponseSchema } from '../../../layers/contract/api.ts';
import { context, jsonPost, proxyEvent } from './events.ts';

const lambda = mockClient(LambdaClient);
const silent = new Logger({ serviceName: 'jube-r-test', logLevel: 'SILENT' });

const OK_RESPONSE: ExecuteResponse = {
  status: 'ok',
  consoleOutput: '[1] 2\n',
  error: null,
  warnings: [],
  durationMs: 12,
  timedOut: false,
  rVersion: '4.5.0',
  timestamp: '2026-01-01T00:00:00.000Z',
};

/** The tenant route every /execute call here takes (the local binding: any path tenant). */
const EXECUTE = '/t/acme/execute';

const payload = (value: unknown) => new Uint8Array(Buffer.from(JSON.stringify(value)));

function makeApi(env: Record<string, string> = {}) {
  const fullEnv = { JUBE_R_LAMBDA_ENDPOINT: 'http://127.0.0.1:9', ...env };
  return createApi({ env: fullEnv, config: readServiceConfig(fullEnv), logger: silent });
}

async function call(api: ReturnType<typeof makeApi>, event: ReturnType<typeof proxyEvent>) {
  const result: APIGatewayProxyResult = await api.handler(event, context());
  return { result, body: JSON.parse(result.body) as Record<string, unknown> };
}

/** The payload the handler sent to the execute function on its `n`th invoke. */
function sentEvent(n = 0): Record<string, unknown> {
  const input = lambda.commandCalls(InvokeCommand)[n]!.args[0].input;
  return JSON.parse(Buffer.from(input.Payload as Uint8Array).toString('utf8'));
}

beforeEach(() => {
  lambda.reset();
  lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: payload(OK_RESPONSE) as never });
});
afterEach(() => lambda.reset());

describe('routing', () => {
  it.each([
    ['GET', '/nope', 404, 'NOT_FOUND'],
    ['GET', '/validate', 405, 'METHOD_NOT_ALLOWED'],
    ['DELETE', EXECUTE, 405, 'METHOD_NOT_ALLOWED'],
    // The tenant is in the path: the old tenant-less route is gone, and so is one without a tenant.
    ['POST', '/execute', 404, 'NOT_FOUND'],
    ['POST', '/t//execute', 404, 'NOT_FOUND'],
    ['POST', '/t/acme/validate', 404, 'NOT_FOUND'],
    ['POST', '/health', 405, 'METHOD_NOT_ALLOWED'],
  ])('%s %s -> %i %s', async (method, path, status, code) => {
    const { result, body } = await call(makeApi(), proxyEvent(method, path));
    expect(result.statusCode).toBe(status);
    expect(body['code']).toBe(code);
    expect(ErrorBodySchema.parse(body).requestId).toBe('req-test-1');
  });

  it('names the allowed method in Allow on 405', async () => {
    const { result } = await call(makeApi(), proxyEvent('GET', EXECUTE));
    expect(result.headers?.['Allow']).toBe('POST');
  });

  it('serves /health with the live rules, the limits and the configured sandbox layers', async () => {
    const api = makeApi({ JUBE_R_SANDBOX_LAYERS: 'microvm, no-egress', JUBE_R_MAX_INFLIGHT_EXECUTE: '7', JUBE_R_RLIMIT_NPROC: '33' });
    const { result, body } = await call(api, proxyEvent('GET', '/health', { query: { detail: 'full' } }));
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['Content-Type']).toBe('application/json');
    const health = HealthResponseSchema.parse(body);
    expect(health.rules).toEqual(loadRules());
    expect(health.limits.maxInflightExecute).toBe(7);
    expect(health.limits.maxVariables).toBe(loadRules().variables.maxCount);
    expect(health.limits.rlimitProcesses).toBe(33);
    expect(health.limits.maxScriptBytes).toBe(loadRules().script.maxBytes);
    expect(health.sandbox).toEqual({ source: 'config', layers: ['microvm', 'no-egress'], sandboxed: false });
    expect(health.rVersion).toBe(loadManifest().rVersion);
  });

  it('answers a plain GET /health small: liveness, versions, sandbox, isolation and warm state, the rules and limits only with ?detail=full', async () => {
    const api = makeApi();
    const { result, body } = await call(api, proxyEvent('GET', '/health'));
    expect(result.statusCode).toBe(200);
    const summary = HealthSummarySchema.parse(body);
    expect(Object.keys(body)).not.toEqual(expect.arrayContaining(['rules']));
    expect(body).not.toHaveProperty('limits');
    expect(summary).toMatchObject({ status: 'ok', rVersion: loadManifest().rVersion });
    const full = await call(api, proxyEvent('GET', '/health', { query: { detail: 'full' } }));
    expect(result.body.length * 5).toBeLessThan(full.result.body.length);
    const bad = await call(api, proxyEvent('GET', '/health', { query: { detail: 'everything' } }));
    expect(bad.result.statusCode).toBe(400);
  });

  it.each([
    ['lambda-microvm,capsule-preload,capsule-r-internals', true],
    ['capsule-preload,capsule-landlock', true],
    ['fresh-rscript-per-call,rlimits,bwrap-namespaces', true],
    ['capsule-preload,capsule-r-internals,rlimits,fresh-rscript-per-call,private-workdir', false],
  ])('reports sandbox.sandboxed from the layers below R (%s -> %s)', async (layers, sandboxed) => {
    const { body } = await call(makeApi({ JUBE_R_SANDBOX_LAYERS: layers }), proxyEvent('GET', '/health', { query: { detail: 'full' } }));
    expect(HealthResponseSchema.parse(body).sandbox.sandboxed).toBe(sandboxed);
  });

  it('reports sandbox.sandboxed false when the deployment declares no layers', async () => {
    const { body } = await call(makeApi(), proxyEvent('GET', '/health', { query: { detail: 'full' } }));
    expect(HealthResponseSchema.parse(body).sandbox).toEqual({ source: 'unknown', layers: [], sandboxed: false });
  });

  it('serves /packages: exactly the installed packages library() accepts at /validate, with versions, and the blocked ones with why', async () => {
    const { result, body } = await call(makeApi(), proxyEvent('GET', '/packages'));
    expect(result.statusCode).toBe(200);
    const answer = PackagesResponseSchema.parse(body);
    const manifest = loadManifest();
    const listed = new Set(answer.packages.map((p) => p.name));
    // Every installed package: listed exactly when /validate accepts library() of it.
    for (const p of manifest.packages) {
      const { body: verdict } = await call(makeApi(), jsonPost('/validate', { script: `library(${p.name})` }));
      expect([p.name, verdict['valid']]).toEqual([p.name, listed.has(p.name)]);
    }
    expect(answer.packages).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'TTR', version: expect.stringMatching(/^\d/), source: 'dependency' })]));
    expect(answer.blocked.map((b) => b.name)).toEqual(loadRules().packages.blocked.map((b) => b.name));
    expect(answer.blocked.find((b) => b.name === 'processx')).toMatchObject({ why: expect.stringContaining('programs'), instead: expect.any(String) });
  });

  it('answers /validate with the validator result', async () => {
    const { result, body } = await call(makeApi(), jsonPost('/validate', { script: 'system("ls")' }));
    expect(result.statusCode).toBe(200);
    expect(body['valid']).toBe(false);
  });

  it('still validates when the package manifest is missing, allowing only the base packages', async () => {
    // Prepare
    const env = { JUBE_R_LAMBDA_ENDPOINT: 'http://127.0.0.1:9' };
    const missing = () => {
      throw new ManifestMissingError('package manifest not found');
    };
    const api = createApi({ env, config: readServiceConfig(env), logger: silent, manifest: missing });
    // Act
    const base = await call(api, jsonPost('/validate', { script: 'library(stats)\nstats::median(1:3)' }));
    const declared = await call(api, jsonPost('/validate', { script: 'library(dplyr)' }));
    // Assess
    expect(base.result.statusCode).toBe(200);
    expect(base.body).toMatchObject({ valid: true, lint: [] });
    expect(declared.result.statusCode).toBe(200);
    expect(declared.body).toMatchObject({ valid: false, errors: [{ code: 'PACKAGE_NOT_ALLOWED', symbol: 'dplyr' }] });
  });
});

describe('ingress', () => {
  const small = { JUBE_R_MAX_REQUEST_BODY_BYTES: '1024' };
  /** A /validate body of exactly `bytes` bytes. */
  const bodyOf = (bytes: number) => {
    const shell = JSON.stringify({ script: '' });
    return JSON.stringify({ script: '#'.repeat(bytes - shell.length) });
  };

  it('accepts a body of exactly the maximum and refuses one byte more with 413', async () => {
    const api = makeApi(small);
    expect((await call(api, jsonPost('/validate', bodyOf(1024)))).result.statusCode).toBe(200);
    const over = await call(api, jsonPost('/validate', bodyOf(1025)));
    expect(over.result.statusCode).toBe(413);
    expect(over.body['code']).toBe('BODY_TOO_LARGE');
  });

  it('measures a base64-encoded body by its decoded size', async () => {
    const api = makeApi(small);
    const encoded = (text: string) =>
      proxyEvent('POST', '/validate', { body: Buffer.from(text).toString('base64'), isBase64Encoded: true, headers: { 'content-type': 'application/json' } });
    expect((await call(api, encoded(bodyOf(1024)))).result.statusCode).toBe(200);
    expect((await call(api, encoded(bodyOf(1025)))).result.statusCode).toBe(413);
  });

  it('checks the size before the content type and the JSON', async () => {
    const event = proxyEvent('POST', '/validate', { body: '{'.repeat(2000), headers: { 'Content-Type': 'text/plain' } });
    expect((await call(makeApi(small), event)).result.statusCode).toBe(413);
  });

  it.each([
    ['no content type', proxyEvent('POST', '/validate', { body: '{"script":"1"}', headers: {} }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['text/plain', proxyEvent('POST', '/validate', { body: '{"script":"1"}', headers: { 'Content-Type': 'text/plain' } }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['malformed JSON', jsonPost('/validate', '{"script":'), 400, 'INVALID_JSON'],
    ['empty body', jsonPost('/validate', ''), 400, 'INVALID_JSON'],
    ['a JSON array', jsonPost('/validate', '[]'), 400, 'INVALID_REQUEST'],
    ['wrong type', jsonPost('/validate', { script: 1 }), 400, 'INVALID_REQUEST'],
    ['missing script', jsonPost(EXECUTE, {}), 400, 'INVALID_REQUEST'],
    ['unknown top-level field', jsonPost('/validate', { script: '1', extra: true }), 400, 'UNKNOWN_FIELD'],
    ['invalid tenant', jsonPost('/t/Not_OK/execute', { script: '1' }), 400, 'INVALID_TENANT'],
    ['a tenant segment that escapes', jsonPost('/t/../execute', { script: '1' }), 400, 'INVALID_TENANT'],
  ])('%s', async (_name, event, status, code) => {
    const { result, body } = await call(makeApi(), event);
    expect(result.statusCode).toBe(status);
    expect(result.headers?.['Content-Type']).toBe('application/json');
    expect(ErrorBodySchema.parse(body).code).toBe(code);
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
  });

  it('accepts the content type in any case, with parameters', async () => {
    const event = proxyEvent('POST', '/validate', { body: '{"script":"1"}', headers: { 'CONTENT-TYPE': 'Application/JSON; charset=utf-8' } });
    expect((await call(makeApi(), event)).result.statusCode).toBe(200);
  });

  it.each([
    [{ script: '1', variables: [{ name: 'a', value: 1, unit: 'kg' }] }, 'variables[0].unit'],
    [{ script: '1', dataframes: [{ name: 'd', dataPointer: 'p', format: 'csv' }] }, 'dataframes[0].format'],
  ])('names the path of an unknown nested field', async (request, path) => {
    const { result, body } = await call(makeApi(), jsonPost(EXECUTE, request));
    expect(result.statusCode).toBe(400);
    expect(body['code']).toBe('UNKNOWN_FIELD');
    expect(body['message']).toContain(path);
    expect(body['issues']).toEqual([{ path, message: 'unknown field' }]);
  });

  it.each([
    [{ script: '1', timeoutSeconds: '5' }, 'timeoutSeconds', 'must be a number'],
    [{ script: '1', variables: [{ name: 'a', value: null }] }, 'variables[0].value', 'omit'],
    [{ script: '1', variables: [{ name: '1a', value: 1 }] }, 'variables[0].name', 'syntactic R name'],
    [{ script: '1', variables: [{ name: 'a', value: [1, 'x'] }] }, 'variables[0].value', 'one type'],
    [{ script: '1', variables: Array.from({ length: 51 }, (_, i) => ({ name: `v${i}`, value: i })) }, 'variables', 'at most 50'],
    [{ script: '1', dataframes: Array.from({ length: 11 }, (_, i) => ({ name: `d${i}`, dataPointer: 'p' })) }, 'dataframes', 'at most 10'],
    [{ script: '1', variables: [{ name: 'a', value: Array(10_001).fill(1) }] }, 'variables[0].value', 'at most 10000'],
    [{ script: '1', variables: [{ name: 'x', value: 1 }], dataframes: [{ name: 'x', dataPointer: 'p' }] }, 'dataframes[0].name', 'distinct'],
    [{ script: '1', plots: { width: 2049 } }, 'plots.width', 'at most 2048 pixels'],
    [{ script: '1', plots: { height: 63 } }, 'plots.height', 'at least 64 pixels'],
    [{ script: '1', plots: { width: 500.5 } }, 'plots.width', 'whole number'],
    [{ script: '1', plots: { dpi: 301 } }, 'plots.dpi', 'at most 300'],
    [{ script: '1', context: { big: 'x'.repeat(256 * 1024 + 1) } }, 'context.big', 'at most 262144 bytes'],
    [{ script: '1', context: { xs: Array(10_001).fill(0) } }, 'context.xs', 'at most 10000'],
    [{ script: '1', context: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, 'context', 'at most 50'],
    [{ script: '1', context: { deep: JSON.parse('['.repeat(21) + ']'.repeat(21)) } }, 'context.deep[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]', 'deeper than 20'],
    [{ script: '1', context: {}, variables: [{ name: '.context', value: 1 }] }, 'variables[0].name', "the request's context"],
  ])('explains a wrong value at its path (%#)', async (request, path, words) => {
    const { result, body } = await call(makeApi(), jsonPost(EXECUTE, request));
    expect(result.statusCode).toBe(400);
    expect(body['code']).toBe('INVALID_REQUEST');
    const issue = (body['issues'] as { path: string; message: string }[]).find((i) => i.path === path);
    expect(issue?.message).toContain(words);
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
  });
});

describe('/t/{tenant}/execute', () => {
  it('invokes the execute function once, synchronously, with the clamped timeout and the request id', async () => {
    const { result, body } = await call(makeApi(), jsonPost(EXECUTE, { script: '1 + 1', variables: [{ name: 'n', value: 3 }] }));
    expect(result.statusCode).toBe(200);
    expect(ExecuteResponseSchema.parse(body)).toEqual(OK_RESPONSE);
    const calls = lambda.commandCalls(InvokeCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]!.args[0].input;
    expect(input.FunctionName).toBe('jube-r-execute');
    expect(input.InvocationType).toBe('RequestResponse');
    expect(input.TenantId).toBeUndefined();
    expect(sentEvent()).toEqual({ script: '1 + 1', timeoutSeconds: 10, variables: [{ name: 'n', value: 3 }], dataframes: [], requestId: 'req-test-1' });
  });

  it('passes plots and context on to the execute function as sent', async () => {
    const context = { threshold: 2, rows: [{ x: 1 }], nothing: null };
    await call(makeApi(), jsonPost(EXECUTE, { script: '1', plots: { width: 400, format: 'svg' }, context }));
    expect(sentEvent()).toMatchObject({ plots: { width: 400, format: 'svg' }, context });
    await call(makeApi(), jsonPost(EXECUTE, { script: '1', plots: false }));
    expect(sentEvent(1)['plots']).toBe(false);
  });

  it('passes contextEncoding on with the context', async () => {
    const context = { type: 'list', attributes: {}, value: [{ type: 'double', attributes: {}, value: [3] }] };
    const { result } = await call(makeApi(), jsonPost(EXECUTE, { script: '1', context, contextEncoding: 'r-json' }));
    expect(result.statusCode).toBe(200);
    expect(sentEvent()).toMatchObject({ context, contextEncoding: 'r-json' });
  });

  it.each([
    ['closure', { type: 'list', attributes: {}, value: [{ type: 'closure', attributes: {}, value: [] }] }, 'context.value[0].type', 'not data'],
    ['language', { type: 'list', attributes: {}, value: [{ type: 'language', attributes: {}, value: ['system("id")'] }] }, 'context.value[0].type', 'no closures, calls'],
    ['class', { type: 'list', attributes: { class: { type: 'character', attributes: {}, value: ['lm'] } }, value: [] }, 'context.attributes.class.value', 'class "lm" is not allowed'],
    ['attribute', { type: 'list', attributes: { srcref: { type: 'integer', attributes: {}, value: [1] } }, value: [] }, 'context.attributes.srcref', 'not allowed'],
    ['not a list', { type: 'double', attributes: {}, value: [1] }, 'context.type', 'must be a list'],
  ])('an r-json context holding a %s is CONTEXT_NOT_DATA at its path, never sent on', async (_, context, path, words) => {
    const { result, body } = await call(makeApi(), jsonPost(EXECUTE, { script: '1', context, contextEncoding: 'r-json' }));
    expect(result.statusCode).toBe(400);
    expect(body['code']).toBe('CONTEXT_NOT_DATA');
    expect((body['issues'] as { path: string; message: string }[]).find((i) => i.path === path)?.message).toContain(words);
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
  });

  it('the same context under the default json encoding is plain JSON and is sent on', async () => {
    const context = { type: 'list', attributes: {}, value: [{ type: 'closure', attributes: {}, value: [] }] };
    const { result } = await call(makeApi(), jsonPost(EXECUTE, { script: '1', context }));
    expect(result.statusCode).toBe(200);
  });

  it('accepts plot options exactly at their bounds', async () => {
    const { result } = await call(makeApi(), jsonPost(EXECUTE, { script: '1', plots: { width: 2048, height: 64, dpi: 36 } }));
    expect(result.statusCode).toBe(200);
  });

  it.each([
    [undefined, 10],
    [0, 1],
    [-5, 1],
    [2.2, 3],
    [20, 20],
    [1000, 20],
  ])('clamps timeoutSeconds %s to %i', async (requested, sent) => {
    await call(makeApi(), jsonPost(EXECUTE, { script: '1', ...(requested === undefined ? {} : { timeoutSeconds: requested }) }));
    expect(sentEvent()['timeoutSeconds']).toBe(sent);
  });

  it('hands a note to the execute function when it lowered timeoutSeconds, naming the maximum; nothing when it did not', async () => {
    // The execute function caps the notes (maxNotes), so the note travels in the event and the
    // response comes back as that function made it: nothing is added after the cap.
    const { body } = await call(makeApi(), jsonPost(EXECUTE, { script: '1', timeoutSeconds: 60 }));
    expect(sentEvent()['notes']).toEqual(["timeoutSeconds 60 is above this deployment's maximum; 20 s was used (GET /health?detail=full limits.scriptTimeoutSecondsMax)"]);
    expect(body['notes']).toEqual(OK_RESPONSE.notes);
    const { body: within } = await call(makeApi(), jsonPost(EXECUTE, { script: '1', timeoutSeconds: 20 }));
    expect(sentEvent(1)).not.toHaveProperty('notes');
    expect(within['notes']).toEqual(OK_RESPONSE.notes);
  });

  it('passes the output budget on as sent, and refuses a budget that is not whole positive numbers', async () => {
    await call(makeApi(), jsonPost(EXECUTE, { script: '1', outputBudget: { consoleBytes: 4096, warnings: 5 } }));
    expect(sentEvent()['outputBudget']).toEqual({ consoleBytes: 4096, warnings: 5 });
    const { result, body } = await call(makeApi(), jsonPost(EXECUTE, { script: '1', outputBudget: { valueBytes: 0 } }));
    expect(result.statusCode).toBe(400);
    expect((body['issues'] as { path: string }[])[0]?.path).toBe('outputBudget.valueBytes');
  });

  it("passes the path's tenant as TenantId when the function uses PER_TENANT tenancy", async () => {
    const api = makeApi({ JUBE_R_EXECUTE_TENANCY: 'PER_TENANT' });
    await call(api, jsonPost('/t/acme-1/execute', { script: '1' }));
    const calls = lambda.commandCalls(InvokeCommand);
    expect(calls[0]!.args[0].input.TenantId).toBe('acme-1');
  });

  it('ignores an X-Jube-Tenant header: the tenant is the path\'s, which IAM binds to the caller', async () => {
    const api = makeApi({ JUBE_R_EXECUTE_TENANCY: 'PER_TENANT' });
    const { result } = await call(api, jsonPost('/t/acme/execute', { script: '1' }, { 'X-Jube-Tenant': 'globex' }));
    expect(result.statusCode).toBe(200);
    expect(lambda.commandCalls(InvokeCommand)[0]!.args[0].input.TenantId).toBe('acme');
  });

  it('sends no TenantId where tenancy is shared', async () => {
    const { result } = await call(makeApi(), jsonPost(EXECUTE, { script: '1' }));
    expect(result.statusCode).toBe(200);
    expect(lambda.commandCalls(InvokeCommand)[0]!.args[0].input.TenantId).toBeUndefined();
  });

  it('answers a rejected script itself, in the full response shape, without invoking', async () => {
    const { result, body } = await call(makeApi(), jsonPost(EXECUTE, { script: 'system("id")' }));
    expect(result.statusCode).toBe(200);
    const response = ExecuteResponseSchema.parse(body);
    expect(response).toMatchObject({
      status: 'rejected', consoleOutput: '', warnings: [], timedOut: false, errorType: 'execution', retryable: true, rVersion: loadManifest().rVersion,
    });
    expect(response.error).toContain('CAPABILITY_NOT_AVAILABLE');
    expect(response.validation?.errors[0]?.symbol).toBe('system');
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
  });

  it('passes the script own failure through as a 200 with status "error"', async () => {
    const failed: ExecuteResponse = { ...OK_RESPONSE, status: 'error', error: 'Error: boom' };
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: payload(failed) as never });
    const { result, body } = await call(makeApi(), jsonPost(EXECUTE, { script: 'stop("boom")' }));
    expect(result.statusCode).toBe(200);
    expect(body).toEqual(failed);
  });

  it('turns a throttle into 503 with Retry-After at once, never retrying', async () => {
    lambda.on(InvokeCommand).rejects(new TooManyRequestsException({ message: 'Rate Exceeded.', $metadata: { httpStatusCode: 429 } }));
    const { result, body } = await call(makeApi(), jsonPost(EXECUTE, { script: '1' }));
    expect(result.statusCode).toBe(503);
    expect(result.headers?.['Retry-After']).toBe('1');
    expect(body).toMatchObject({ code: 'THROTTLED', requestId: 'req-test-1' });
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(1);
  });

  it("uses Lambda's retryAfterSeconds when it gives one", async () => {
    lambda.on(InvokeCommand).rejects(new TooManyRequestsException({ message: 'Rate Exceeded.', $metadata: {}, retryAfterSeconds: '7' }));
    const { result } = await call(makeApi(), jsonPost(EXECUTE, { script: '1' }));
    expect(result.headers?.['Retry-After']).toBe('7');
  });

  it.each([
    ['a function error', { StatusCode: 200, FunctionError: 'Unhandled', Payload: payload({ errorType: 'Error', errorMessage: 'secret detail' }) }],
    ['a payload that is not JSON', { StatusCode: 200, Payload: new Uint8Array(Buffer.from('not json')) }],
    ['a payload that is not an ExecuteResponse', { StatusCode: 200, Payload: payload({ status: 'maybe' }) }],
  ])('turns %s into 502 EXECUTE_FAILED with the request id and no detail', async (_name, output) => {
    lambda.on(InvokeCommand).resolves(output as never);
    const { result, body } = await call(makeApi(), jsonPost(EXECUTE, { script: '1' }));
    expect(result.statusCode).toBe(502);
    expect(ErrorBodySchema.parse(body)).toMatchObject({ code: 'EXECUTE_FAILED', requestId: 'req-test-1' });
    expect(result.body).not.toContain('secret detail');
  });

  it('turns a runtime that exited during the call into 502 EXECUTE_ENVIRONMENT_LOST, invoked once', async () => {
    // Prepare: what Lambda answers when the execute runtime process ended mid-invocation.
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, FunctionError: 'Unhandled', Payload: payload({ errorType: 'Runtime.ExitError', errorMessage: 'RequestId: x Error: Runtime exited with error: signal: killed' }) } as never);
    // Act
    const { result, body } = await call(makeApi(), jsonPost(EXECUTE, { script: '1' }));
    // Assess
    expect(result.statusCode).toBe(502);
    expect(ErrorBodySchema.parse(body)).toMatchObject({ code: 'EXECUTE_ENVIRONMENT_LOST', requestId: 'req-test-1' });
    expect((body as { message: string }).message).toContain('the next call runs after that environment is initialised again');
    expect(result.body).not.toContain('signal: killed');
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(1);
  });

  it('turns an SDK or network failure into 500 INTERNAL with the request id', async () => {
    lambda.on(InvokeCommand).rejects(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }));
    const { result, body } = await call(makeApi(), jsonPost(EXECUTE, { script: '1' }));
    expect(result.statusCode).toBe(500);
    expect(body).toMatchObject({ code: 'INTERNAL', requestId: 'req-test-1' });
    expect(result.body).not.toContain('ECONNREFUSED');
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(1);
  });
});

describe('the Lambda client', () => {
  it('never retries and gives a local endpoint dummy credentials and a region', async () => {
    const env = { JUBE_R_LAMBDA_ENDPOINT: 'http://127.0.0.1:3001' };
    const client = createLambdaClient(readServiceConfig(env), env);
    expect(await client.config.maxAttempts()).toBe(1);
    expect(await client.config.region()).toBe('us-east-1');
    expect((await client.config.credentials()).accessKeyId).toBe('jube-r-local');
  });
});
