/**
 * The client's behaviour over a fake fetch: typed answers, the contract's error codes, retries
 * only of answers that say nothing ran (503 with Retry-After, 429), bounded, and never a retry of
 * a timeout.
 */
import { describe, expect, it } from 'vitest';
import {
  CLIENT_DEFAULTS,
  createJubeRClient,
  JubeRApiError,
  JubeRContractError,
  JubeRTimeoutError,
  retryDecision,
} from '../../../../functions/tools/client/jube-r-client.ts';
import type { ExecuteResponse } from '../../../../layers/contract/execute.ts';

const OK: ExecuteResponse = {
  status: 'ok',
  consoleOutput: '1',
  error: null,
  warnings: [],
  durationMs: 5,
  timedOut: false,
  rVersion: '4.5.0',
  timestamp: '2026-01-01T00:00:00.000Z',
};
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const throttled = (retryAfter = '1') => json(503, { code: 'THROTTLED', message: 'busy', requestId: 'r-t' }, { 'retry-after': retryAfter });

/** A fetch that answers from a script of responses, recording each request. */
function scripted(...answers: (Response | (() => Promise<Response>))[]) {
  const requests: { url: string; init: RequestInit }[] = [];
  const fetchImpl = (async (url: URL | string, init: RequestInit = {}) => {
    requests.push({ url: String(url), init });
    const next = answers.shift();
    if (!next) throw new Error('unexpected request');
    return typeof next === 'function' ? next() : next;
  }) as typeof fetch;
  const slept: number[] = [];
  return { fetchImpl, requests, slept, sleep: async (ms: number) => void slept.push(ms) };
}

const client = (s: ReturnType<typeof scripted>, extra: Partial<Parameters<typeof createJubeRClient>[0]> = {}) =>
  createJubeRClient({ baseUrl: 'http://127.0.0.1:8080', fetch: s.fetchImpl, sleep: s.sleep, tenant: 'acme', ...extra });

describe('createJubeRClient', () => {
  it("posts the tenant's /t/{tenant}/execute and returns the typed response", async () => {
    const s = scripted(json(200, OK));
    await expect(client(s).execute({ script: 'cat(1)', timeoutSeconds: 5 })).resolves.toEqual(OK);
    const headers = s.requests[0]!.init.headers as Record<string, string>;
    expect(s.requests[0]!.url).toBe('http://127.0.0.1:8080/t/acme/execute');
    expect(headers).toMatchObject({ 'content-type': 'application/json' });
    expect(headers['x-jube-tenant']).toBeUndefined();
    expect(headers['host']).toBeUndefined();
    expect(JSON.parse(String(s.requests[0]!.init.body))).toEqual({ script: 'cat(1)', timeoutSeconds: 5 });
  });

  it("takes a call's own tenant over the client's, and refuses an execute with none before sending anything", async () => {
    const s = scripted(json(200, OK));
    await client(s).execute({ script: '1' }, { tenant: 'globex' });
    expect(s.requests[0]!.url).toBe('http://127.0.0.1:8080/t/globex/execute');
    await expect(client(s, { tenant: undefined }).execute({ script: '1' })).rejects.toThrow(/needs a tenant/);
    expect(s.requests).toHaveLength(1);
  });

  it('sends the session on /execute, a call\'s own session over the client\'s, and never on other routes', async () => {
    const s = scripted(json(200, OK), json(200, OK), json(200, { valid: true, errors: [], lint: [], durationMs: 1 }));
    const c = client(s, { session: 'chat-1' });
    await c.execute({ script: 'cat(1)' });
    await c.execute({ script: 'cat(1)' }, { session: 'chat-2' });
    await c.validate({ script: '1' });
    const sessions = s.requests.map((r) => (r.init.headers as Record<string, string>)['x-jube-session']);
    expect(sessions).toEqual(['chat-1', 'chat-2', undefined]);
  });

  it('keeps the stage of the base URL, for the tenant-free routes and the tenant\'s alike', async () => {
    const s = scripted(json(200, { valid: true, errors: [], lint: [], durationMs: 1 }), json(200, OK));
    const c = client(s, { baseUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod', minimumHttpTimeoutMs: 30_000 });
    await c.validate({ script: '1' });
    await c.execute({ script: '1' });
    expect(s.requests.map((r) => r.url)).toEqual([
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod/validate',
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod/t/acme/execute',
    ]);
  });

  it('signs for execute-api in the host\'s region when given credentials, afresh on every attempt', async () => {
    const s = scripted(throttled(), json(200, OK));
    const dates = [new Date('2026-01-02T03:04:05Z'), new Date('2026-01-02T03:04:07Z')];
    await client(s, {
      baseUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod',
      minimumHttpTimeoutMs: 30_000,
      credentials: { accessKeyId: 'AKIDX', secretAccessKey: 'secret' },
      now: () => dates.shift()!,
    }).execute({ script: '1' });
    const auth = s.requests.map((r) => (r.init.headers as Record<string, string>)['authorization']);
    expect(auth[0]).toMatch(/Credential=AKIDX\/20260102\/eu-west-1\/execute-api\/aws4_request/);
    expect(auth[1]).not.toBe(auth[0]);
  });

  it('refuses to sign when the region cannot be known', () => {
    const s = scripted();
    expect(() => client(s, { credentials: { accessKeyId: 'a', secretAccessKey: 'b' } })).toThrowError(/pass region/);
  });

  it('waits Retry-After and retries a 503, at most maxRetries times, then reports the last answer', async () => {
    const s = scripted(throttled('2'), throttled('1'), throttled('1'));
    const error = await client(s).execute({ script: '1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JubeRApiError);
    expect(error).toMatchObject({ status: 503, code: 'THROTTLED', requestId: 'r-t', attempts: CLIENT_DEFAULTS.maxRetries + 1 });
    expect(s.slept).toEqual([2000, 1000]);
  });

  it('succeeds once the throttle clears', async () => {
    const s = scripted(throttled(), json(200, OK));
    await expect(client(s).execute({ script: '1' })).resolves.toEqual(OK);
    expect(s.requests).toHaveLength(2);
  });

  it('never retries a timeout, on /execute or anywhere', async () => {
    const timeout = () => Promise.reject(Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' }));
    const s = scripted(timeout);
    await expect(client(s).execute({ script: 'Sys.sleep(60)' }, { timeoutMs: 10 })).rejects.toBeInstanceOf(JubeRTimeoutError);
    expect(s.requests).toHaveLength(1);
  });

  it.each([
    [504, { code: 'EXECUTE_DEADLINE', message: 'late', requestId: 'r-5' }, 'EXECUTE_DEADLINE'],
    [502, { code: 'EXECUTE_FAILED', message: 'crash', requestId: 'r-5' }, 'EXECUTE_FAILED'],
    [403, { code: 'TENANT_MISMATCH', message: 'the path names tenant "acme", but this caller\'s identity is bound to tenant "globex"', requestId: 'r-5' }, 'TENANT_MISMATCH'],
  ])('reports %i with its code and does not retry it', async (status, body, code) => {
    const s = scripted(json(status, body));
    await expect(client(s).execute({ script: '1' })).rejects.toMatchObject({ status, code, requestId: 'r-5', attempts: 1 });
  });

  it('reports API Gateway\'s own answers (IAM, its 504) with their error type and no contract code', async () => {
    const s = scripted(json(403, { message: 'Missing Authentication Token' }, { 'x-amzn-errortype': 'MissingAuthenticationTokenException', 'x-amzn-requestid': 'gw-1' }));
    await expect(client(s).health()).rejects.toMatchObject({
      status: 403,
      code: undefined,
      gatewayErrorType: 'MissingAuthenticationTokenException',
      requestId: 'gw-1',
      message: '403: Missing Authentication Token',
    });
  });

  it('refuses a 200 that does not match the contract', async () => {
    const s = scripted(json(200, { status: 'maybe' }));
    await expect(client(s).execute({ script: '1' })).rejects.toBeInstanceOf(JubeRContractError);
  });
});

describe('retryDecision', () => {
  const limits = { maxRetries: 2, maxRetryAfterSeconds: 30, backoffBaseMs: 500 };
  it.each<[string, number, string | null, number, ReturnType<typeof retryDecision>]>([
    ['503 with Retry-After', 503, '3', 1, { retry: true, afterMs: 3000 }],
    ['503 without Retry-After (not the contract\'s throttle)', 503, null, 1, { retry: false }],
    ['503 asking for longer than the bound', 503, '31', 1, { retry: false }],
    ['429 (API Gateway throttle) without Retry-After: backoff', 429, null, 2, { retry: true, afterMs: 1000 }],
    ['the attempt after the last retry', 503, '1', 3, { retry: false }],
    ['504', 504, '1', 1, { retry: false }],
    ['500', 500, null, 1, { retry: false }],
  ])('%s', (_name, status, header, attempt, expected) => {
    expect(retryDecision(status, header, attempt, limits)).toEqual(expected);
  });
});
