/**
 * The local Lambda Invoke endpoint speaks Lambda's wire protocol well enough that the real AWS
 * SDK client (configured exactly as the validate handler configures it) reads its answers as it
 * reads Lambda's: a payload, a function error, and a 429 it surfaces as TooManyRequestsException.
 * The execute runtime behind it is a stand-in here; test/integration runs the real one with R.
 */
import { InvokeCommand, TooManyRequestsException, type LambdaClient } from '@aws-sdk/client-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../../../layers/config/service-config.ts';
import type { ExecuteRuntime, InvokeAnswer } from '../../../../functions/tools/local/runtime.ts';
import { namesFunction, startLambdaEndpoint, type LambdaEndpoint } from '../../../../functions/tools/local/lambda-endpoint.ts';
import { createExecuteInvoker, createLambdaClient } from '../../../../functions/api/invoke/execute-invoker.ts';
import { ThrottledError } from '../../../../functions/api/http/errors.ts';

/** A runtime whose invocations finish only when the test says so. */
function heldRuntime() {
  const pending: { payload: unknown; tenantId: string | undefined; finish: (outcome: InvokeAnswer) => void }[] = [];
  const runtime: ExecuteRuntime = {
    kind: 'process',
    invoke: (payload, context) => new Promise((finish) => pending.push({ payload, tenantId: context.tenantId, finish })),
    warmStatus: async () => ({ state: 'unknown' }),
    close: async () => undefined,
  };
  return { runtime, pending };
}

let endpoint: LambdaEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint?.dropConnections();
  endpoint = undefined;
});

async function setUp(maxInflight: number, perTenant = false): Promise<{ client: LambdaClient; pending: ReturnType<typeof heldRuntime>['pending'] }> {
  const { runtime, pending } = heldRuntime();
  endpoint = await startLambdaEndpoint({ host: '127.0.0.1', port: 0, functionName: 'jube-r-execute', runtime, maxInflight, functionTimeoutMs: 10_000, perTenant });
  const env = { JUBE_R_LAMBDA_ENDPOINT: endpoint.url };
  return { client: createLambdaClient(readServiceConfig(env), env), pending };
}

const invoke = (client: LambdaClient, payload: unknown, functionName = 'jube-r-execute', tenantId?: string) =>
  client.send(
    new InvokeCommand({
      FunctionName: functionName,
      InvocationType: 'RequestResponse',
      Payload: Buffer.from(JSON.stringify(payload)),
      ...(tenantId === undefined ? {} : { TenantId: tenantId }),
    }),
  );

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
}

describe('the local Lambda Invoke endpoint', () => {
  it('returns the function result as the payload', async () => {
    const { client, pending } = await setUp(2);
    const call = invoke(client, { script: '1' });
    await until(() => pending.length === 1);
    expect(pending[0]!.payload).toEqual({ script: '1' });
    pending[0]!.finish({ ok: true, payload: { status: 'ok' } });

    const output = await call;

    expect(output.StatusCode).toBe(200);
    expect(output.FunctionError).toBeUndefined();
    expect(output.ExecutedVersion).toBe('$LATEST');
    expect(JSON.parse(Buffer.from(output.Payload!).toString())).toEqual({ status: 'ok' });
  });

  it('reports a function error as Lambda does', async () => {
    const { client, pending } = await setUp(2);
    const call = invoke(client, {});
    await until(() => pending.length === 1);
    pending[0]!.finish({ ok: false, errorType: 'InvalidExecuteEventError', errorMessage: 'bad event' });

    const output = await call;

    expect(output.FunctionError).toBe('Unhandled');
    expect(JSON.parse(Buffer.from(output.Payload!).toString())).toEqual({ errorType: 'InvalidExecuteEventError', errorMessage: 'bad event', trace: [] });
  });

  it('refuses an invocation beyond the cap at once with a TooManyRequestsException, and accepts again after', async () => {
    const { client, pending } = await setUp(1);
    const first = invoke(client, { n: 1 });
    await until(() => pending.length === 1);

    const refused = await invoke(client, { n: 2 }).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(TooManyRequestsException);
    expect(refused).toMatchObject({ Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded', message: 'Rate Exceeded.', $metadata: { httpStatusCode: 429, attempts: 1 } });
    expect(pending).toHaveLength(1);
    pending[0]!.finish({ ok: true, payload: 1 });
    await first;
    expect(endpoint!.inflight()).toBe(0);

    const again = invoke(client, { n: 3 });
    await until(() => pending.length === 2);
    pending[1]!.finish({ ok: true, payload: 3 });
    expect((await again).StatusCode).toBe(200);
  });

  it('passes the TenantId to the runtime of a function with tenant isolation', async () => {
    const { client, pending } = await setUp(2, true);
    const call = invoke(client, {}, 'jube-r-execute', 'acme_s1');
    await until(() => pending.length === 1);
    expect(pending[0]!.tenantId).toBe('acme_s1');
    pending[0]!.finish({ ok: true, payload: null });
    expect((await call).StatusCode).toBe(200);
  });

  it.each([
    ['an invoke without TenantId to a PER_TENANT function', true, undefined],
    ['an invoke with a TenantId to a function without tenant isolation', false, 'acme'],
  ])('refuses %s with InvalidParameterValueException, as Lambda does', async (_name, perTenant, tenantId) => {
    const { client, pending } = await setUp(2, perTenant);
    await expect(invoke(client, {}, 'jube-r-execute', tenantId)).rejects.toMatchObject({ name: 'InvalidParameterValueException' });
    expect(pending).toHaveLength(0);
  });

  it('answers a runtime with no environment left for a new key as Lambda does: TooManyRequestsException "Rate exceeded", no Reason', async () => {
    const { client, pending } = await setUp(2, true);
    const call = invoke(client, {}, 'jube-r-execute', 'acme_new');
    await until(() => pending.length === 1);
    pending[0]!.finish({ ok: false, errorType: 'TooManyRequestsException', errorMessage: 'no environment', throttled: true });

    const refused = await call.catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(TooManyRequestsException);
    expect(refused).toMatchObject({ message: 'Rate exceeded', $metadata: { httpStatusCode: 429 } });
    expect((refused as TooManyRequestsException).Reason).toBeUndefined();
    expect(endpoint!.inflight()).toBe(0);
  });

  it('reaches the API as 503 THROTTLED reason tenant-environments through the real invoker', async () => {
    const { runtime } = heldRuntime();
    const refusing: ExecuteRuntime = { ...runtime, invoke: async () => ({ ok: false, errorType: 'TooManyRequestsException', errorMessage: 'full', throttled: true }) };
    endpoint = await startLambdaEndpoint({ host: '127.0.0.1', port: 0, functionName: 'jube-r-execute', runtime: refusing, maxInflight: 2, functionTimeoutMs: 10_000, perTenant: true });
    const env = { JUBE_R_LAMBDA_ENDPOINT: endpoint.url, JUBE_R_EXECUTE_TENANCY: 'PER_TENANT' };
    const invoker = createExecuteInvoker(readServiceConfig(env), env);

    const refused = await invoker.invoke({ script: '1', timeoutSeconds: 1, variables: [], dataframes: [], requestId: 'r' }, 'acme__new').catch((e: unknown) => e);

    expect(refused).toBeInstanceOf(ThrottledError);
    expect(refused).toMatchObject({ reason: 'tenant-environments', retryAfterSeconds: 1 });
  });

  it('answers an unknown function with ResourceNotFoundException', async () => {
    const { client } = await setUp(1);
    await expect(invoke(client, {}, 'someone-else')).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  it.each([
    ['jube-r-execute', true],
    ['arn:aws:lambda:us-east-1:000000000000:function:jube-r-execute', true],
    ['arn:aws:lambda:us-east-1:000000000000:function:jube-r-execute:$LATEST', true],
    ['jube-r-execute:$LATEST', true],
    ['arn:aws:lambda:us-east-1:000000000000:function:jube-r-execute:v2', false],
    ['jube-r', false],
  ])('names the function: %s -> %s', (requested, expected) => {
    expect(namesFunction(requested, 'jube-r-execute')).toBe(expected);
  });
});
