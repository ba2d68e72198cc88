/**
 * The invoke's deadline under cold starts: derived from the validate invocation's remaining time
 * (an AbortSignal the SDK honours), so a slow cold start on a near-limit script comes back as this
 * function's own 504 EXECUTE_DEADLINE before API Gateway's integration timeout, never retried.
 * The SDK is mocked at its boundary; one case uses the real SDK against a server that never answers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../../layers/config/service-config.ts';
import { createApi } from '../../../functions/api/create-api.ts';
import { ErrorBodySchema } from '../../../layers/contract/api.ts';
import { ExecuteDeadlineError } from '../../../functions/api/http/errors.ts';
import {
  createExecuteInvoker,
  createLambdaClient,
  invokeDeadlineMs,
  MIN_INVOKE_BUDGET_MS,
} from '../../../functions/api/invoke/execute-invoker.ts';
import { context, jsonPost } from './events.ts';

const lambda = mockClient(LambdaClient);
const silent = new Logger({ serviceName: 'jube-r-test', logLevel: 'SILENT' });
const ENV = { JUBE_R_LAMBDA_ENDPOINT: 'http://127.0.0.1:9', JUBE_R_LAMBDA_CLIENT_TIMEOUT_MS: '26000', JUBE_R_RESPONSE_RESERVE_MS: '300' };

const contextWith = (remainingMs: number) => {
  const deadline = Date.now() + remainingMs;
  return { ...context(), getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) };
};

beforeEach(() => lambda.reset());
afterEach(() => lambda.reset());

describe('invokeDeadlineMs', () => {
  const config = readServiceConfig(ENV);

  it.each([
    ['the configured client timeout when the function has time to spare', 120_000, 26_000],
    ['the remaining time minus the response reserve when that is shorter', 20_000, 19_700],
    ['nothing when the reserve is all that is left', 300, 0],
    ['the configured client timeout outside Lambda (no remaining time)', undefined, 26_000],
  ])('is %s', (_name, remaining, expected) => {
    expect(invokeDeadlineMs(config, remaining)).toBe(expected);
  });
});

describe('an execute invocation that outlives the validate function\'s time', () => {
  it('is aborted and answered 504 EXECUTE_DEADLINE before the invocation ends, with the request id, never retried', async () => {
    // Prepare: the execute function never answers (a cold start longer than the headroom).
    lambda.on(InvokeCommand).callsFake(() => new Promise(() => undefined));
    const api = createApi({ env: ENV, config: readServiceConfig(ENV), logger: silent });
    const remainingMs = 1_800;

    // Act
    const started = performance.now();
    const result = await api.handler(jsonPost('/t/acme/execute', { script: 'Sys.sleep(100)' }), contextWith(remainingMs));
    const elapsed = performance.now() - started;

    // Assess
    expect(result.statusCode).toBe(504);
    expect(ErrorBodySchema.parse(JSON.parse(result.body))).toMatchObject({ code: 'EXECUTE_DEADLINE', requestId: 'req-test-1' });
    expect(elapsed).toBeGreaterThanOrEqual(remainingMs - 300 - 50);
    expect(elapsed).toBeLessThan(remainingMs);
    const calls = lambda.commandCalls(InvokeCommand);
    expect(calls).toHaveLength(1);
    // The SDK was handed the signal, and it fired.
    const options = (calls[0]!.args as unknown[])[1] as { abortSignal?: AbortSignal } | undefined;
    expect(options?.abortSignal?.aborted).toBe(true);
  });

  it('is not started at all when less than the minimum budget is left', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 200 });
    const api = createApi({ env: ENV, config: readServiceConfig(ENV), logger: silent });

    const result = await api.handler(jsonPost('/t/acme/execute', { script: '1' }), contextWith(300 + MIN_INVOKE_BUDGET_MS - 100));

    expect(result.statusCode).toBe(504);
    expect(JSON.parse(result.body)).toMatchObject({ code: 'EXECUTE_DEADLINE' });
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
  });
});

describe('the real SDK under the deadline', () => {
  let server: Server;
  let closed: Promise<void>;
  beforeEach(async () => {
    lambda.restore();
    // Accepts the invoke and never answers, like Lambda during a long init.
    server = createServer(() => undefined);
    closed = new Promise((resolve) => server.once('connection', (socket) => socket.once('close', () => resolve())));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('abandons the HTTP request when the signal fires', async () => {
    // Prepare
    const env = { ...ENV, JUBE_R_LAMBDA_ENDPOINT: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    const config = readServiceConfig(env);
    const invoker = createExecuteInvoker(config, env, createLambdaClient(config, env));
    const event = { script: '1', timeoutSeconds: 1, variables: [], dataframes: [], requestId: 'r-1' };

    // Act / Assess
    await expect(invoker.invoke(event, 'default', { remainingTimeMs: () => 1_500 })).rejects.toBeInstanceOf(ExecuteDeadlineError);
    await closed;
  });
});
