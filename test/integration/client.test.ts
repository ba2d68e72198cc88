/**
 * The orchestrator's client and `jube-r call` against the local stack (`jube-r serve`, as `npm
 * start` runs it, in its own process) with IAM authorization on: every request must carry a SigV4
 * signature for execute-api made with the JUBE_R_LOCAL_SIGV4_* key pair, checked by the stack
 * before the handler sees it, as API Gateway does for the deployed private API.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJubeRClient, JubeRApiError, JubeRTimeoutError, type JubeRClientOptions } from '../../functions/tools/client/jube-r-client.ts';
import { REPO, request, startStack, type RunningStack } from './local-stack.ts';

const run = promisify(execFile);
const KEYS = { accessKeyId: 'AKIDJUBERLOCAL', secretAccessKey: 'jube-r-local-secret' };
const REGION = 'eu-west-1';
let stack: RunningStack;

beforeAll(async () => {
  stack = await startStack({
    JUBE_R_LOCAL_SIGV4_ACCESS_KEY_ID: KEYS.accessKeyId,
    JUBE_R_LOCAL_SIGV4_SECRET_ACCESS_KEY: KEYS.secretAccessKey,
    JUBE_R_LOCAL_SIGV4_REGION: REGION,
    // One execution at a time, so a second concurrent call is throttled.
    JUBE_R_MAX_INFLIGHT_EXECUTE: '1',
  });
});
afterAll(async () => {
  await stack?.stop();
});

/** A client on the stack, counting the HTTP requests it makes. */
function counted(options: Partial<JubeRClientOptions> = {}) {
  let requests = 0;
  const client = createJubeRClient({
    baseUrl: stack.url,
    region: REGION,
    credentials: KEYS,
    tenant: 'acme',
    fetch: (async (...args: Parameters<typeof fetch>) => {
      requests += 1;
      return fetch(...args);
    }) as typeof fetch,
    ...options,
  });
  return { client, requests: () => requests };
}

describe('the client against the local stack with IAM authorization', () => {
  it('gets typed answers from every route with a valid signature', async () => {
    const { client } = counted();
    expect((await client.health()).status).toBe('ok');
    expect((await client.packages()).packages.length).toBeGreaterThan(0);
    expect(await client.validate({ script: 'system("id")' })).toMatchObject({ valid: false, errors: [expect.objectContaining({ code: 'CAPABILITY_NOT_AVAILABLE' })] });
    expect(await client.execute({ script: 'cat(n * 2)', variables: [{ name: 'n', value: 21 }] })).toMatchObject({ status: 'ok', consoleOutput: '42' });
  });

  it('is refused with API Gateway\'s 403 when signed with another secret, or not signed at all', async () => {
    const { client } = counted({ credentials: { ...KEYS, secretAccessKey: 'wrong' } });
    const error = await client.health().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JubeRApiError);
    expect(error).toMatchObject({ status: 403, code: undefined, gatewayErrorType: 'InvalidSignatureException', attempts: 1 });

    const unsigned = await request(`${stack.url}/health`);
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers.get('x-amzn-errortype')).toBe('MissingAuthenticationTokenException');
    expect(unsigned.json).toEqual({ message: 'Missing Authentication Token' });
  });

  it('waits out a 503 THROTTLED with Retry-After and succeeds once the execution slot is free', async () => {
    // Prepare: one slow script holds the only slot.
    const holder = counted().client.execute({ script: 'Sys.sleep(2)\ncat("held")' });
    await new Promise((r) => setTimeout(r, 700));
    const { client, requests } = counted({ maxRetries: 5 });

    // Act
    const answer = await client.execute({ script: 'cat("after")' });

    // Assess
    expect(answer).toMatchObject({ status: 'ok', consoleOutput: 'after' });
    expect(requests()).toBeGreaterThan(1);
    expect(await holder).toMatchObject({ status: 'ok', consoleOutput: 'held' });
  });

  it('never retries /execute when it times out', async () => {
    const { client, requests } = counted({ maxRetries: 5 });
    const error = await client.execute({ script: 'Sys.sleep(3)' }, { timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JubeRTimeoutError);
    expect(requests()).toBe(1);
    // The abandoned run still holds the slot until it ends; a retrying call waits it out.
    expect(await counted({ maxRetries: 10 }).client.execute({ script: 'cat(1)' })).toMatchObject({ status: 'ok' });
  });
});

describe('curl --aws-sigv4 (docs/deploying.md)', () => {
  it('is accepted by the same IAM authorization', async () => {
    const { stdout } = await run(
      'curl',
      ['-s', '--aws-sigv4', `aws:amz:${REGION}:execute-api`, '--user', `${KEYS.accessKeyId}:${KEYS.secretAccessKey}`,
        '-X', 'POST', `${stack.url}/t/acme/execute`, '-H', 'Content-Type: application/json',
        '-d', '{"script":"cat(mean(c(1, 2, 3)))"}'],
      { timeout: 60_000 },
    );
    expect(JSON.parse(stdout)).toMatchObject({ status: 'ok', consoleOutput: '2' });
  });
});

describe('jube-r call', () => {
  const cli = (args: string[], env: Record<string, string> = {}) =>
    run(process.execPath, [path.join(REPO, 'scripts/jube-r.mjs'), 'call', ...args], {
      cwd: REPO,
      timeout: 60_000,
      // The SDK's default credential chain finds the key pair in the environment.
      env: { ...process.env, AWS_ACCESS_KEY_ID: KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: KEYS.secretAccessKey, AWS_REGION: REGION, ...env },
    });

  it('calls the API signed with the default credential chain and prints the answer', async () => {
    const { stdout } = await cli(['health', '--url', stack.url]);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'ok', service: 'jube-r' });
  });

  it('runs a script file with variables, as `jube-r run` takes them', async () => {
    const { stdout } = await cli(['execute', 'docs/examples/summary.R', '--var', 'n=100', '--tenant', 'acme'], { JUBE_R_API_URL: stack.url });
    expect(JSON.parse(stdout)).toMatchObject({ status: 'ok' });
  });

  it('exits 3 with the gateway\'s reason when the signature is refused', async () => {
    const failure = await cli(['health', '--url', stack.url], { AWS_SECRET_ACCESS_KEY: 'wrong' }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 3, stderr: expect.stringContaining('403: The request signature we calculated does not match') });
  });
});
