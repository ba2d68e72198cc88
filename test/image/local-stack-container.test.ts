/**
 * `npm start` with JUBE_R_EXECUTE_RUNTIME=container: the local stack's Lambda Invoke endpoint runs
 * the execute function inside the hardened image instead of with host R, as deployed (PER_TENANT,
 * one container per isolation key, warm), and a caller over HTTP sees the same contract, dataframes
 * from the local data dir included.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { ExecuteResponseSchema } from '../../layers/contract/execute.ts';
import { PODMAN } from '../../functions/tools/local/container-runtime.ts';
import { startStack, type RunningStack } from '../integration/local-stack.ts';
import { buildImage } from './image-harness.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'jube-r-stack-data-'));
let stack: RunningStack | undefined;

beforeAll(async () => {
  chmodSync(dataDir, 0o755);
  mkdirSync(join(dataDir, 'acme'), { mode: 0o755 });
  writeFileSync(join(dataDir, 'acme', 'sales.csv'), 'region,amount\nnorth,10\nsouth,32\n', { mode: 0o644 });
  await buildImage();
  // No JUBE_R_WARM (the helper turns the warm start off unless told): the stack's own default.
  stack = await startStack({ JUBE_R_EXECUTE_RUNTIME: 'container', JUBE_R_DATA_DIR: dataDir, JUBE_R_WARM: '' });
});

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

afterAll(async () => {
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const execute = async (body: unknown, tenant = 'acme', session?: string) => {
  const response = await fetch(`${stack!.url}/t/${tenant}/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(session ? { 'x-jube-session': session } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
};

describe('the local stack with the execute function in the container', () => {
  it('emulates what is deployed with no variable set: PER_TENANT, a container per key, a tenant in the path, and warm', async () => {
    const health = async () => (await (await fetch(`${stack!.url}/health`)).json()) as { isolation: Record<string, unknown>; warm: Record<string, unknown> };
    const before = await health();
    const untenanted = await fetch(`${stack!.url}/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ script: '1' }) });
    const served = await execute({ script: 'cat(1)' });
    const after = await health();

    expect(before.isolation).toMatchObject({ tenancy: 'PER_TENANT', boundary: 'container-per-key' });
    expect(before.warm).toEqual({ enabled: true, state: 'not-loaded' });
    // The tenant-less route is gone: every call names its tenant in the path.
    expect(untenanted.status).toBe(404);
    expect(served.body).toMatchObject({ status: 'ok' });
    // The key's environment registered its warm start during its Init.
    expect(after.warm).toEqual({ enabled: true, state: 'ready' });
  });

  it("keeps a session's workspace in its own container, and restores it in a new one after that container is killed", async () => {
    const run = async (script: string, session?: string) => ExecuteResponseSchema.parse((await execute({ script }, 'acme', session)).body);
    const first = await run('d <- mtcars |> subset(cyl == 4)\nf <- function(x) mean(x)\ncat(Sys.info()[["nodename"]])', 'kept');
    const second = await run('cat(f(d$mpg))', 'kept');
    const other = await run('cat(exists("d"), exists("f"))', 'other');
    const none = await run('cat(exists("d"), exists("f"))');
    expect(first.session).toMatchObject({ state: 'new', call: 1 });
    expect(second.consoleOutput).toBe(mean([22.8, 24.4, 22.8, 32.4, 30.4, 33.9, 21.5, 27.3, 26, 30.4, 21.4]).toPrecision(7));
    expect(second.session).toMatchObject({ state: 'restored', call: 2 });
    expect([other.consoleOutput, none.consoleOutput]).toEqual(['FALSE FALSE', 'FALSE FALSE']);

    // The container's hostname is its id: kill it, and the key's next call gets a new environment.
    await execa(PODMAN[0], [...PODMAN.slice(1), 'kill', first.consoleOutput]);
    const restored = await run('cat(Sys.info()[["nodename"]], f(d$mpg))', 'kept');
    expect(restored.status, JSON.stringify(restored)).toBe('ok');
    expect(restored.session).toMatchObject({ state: 'restored', call: 3 });
    expect(restored.consoleOutput.split(' ')[0]).not.toBe(first.consoleOutput);
    expect(restored.consoleOutput.split(' ')[1]).toBe(second.consoleOutput);
  });

  it('runs a script inside the image and reports the image R version', async () => {
    const { status, body } = await execute({ script: 'cat(R.version$major, "\\n"); 6 * 7' });
    expect(status).toBe(200);
    const parsed = ExecuteResponseSchema.parse(body);
    expect(parsed).toMatchObject({ status: 'ok', consoleOutput: '4 \n[1] 42\n' });
    // The image is Debian 13 (R 4.5); the host that runs this test is Debian 12 (R 4.2).
    expect(parsed.rVersion).toMatch(/^4\.5\./);
  });

  it('binds a tenant table from the local data dir mounted into the container', async () => {
    const { status, body } = await execute({ script: 'cat(sum(sales$amount), "\\n")', dataframes: [{ name: 'sales', dataPointer: 'sales' }] }, 'acme');
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'ok', consoleOutput: '42 \n' });
  });

  it('still rejects a forbidden script before it reaches the container', async () => {
    const { status, body } = await execute({ script: 'system("id")' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'rejected' });
  });
});

describe('the local stack, container runtime, a script that kills the execute handler', () => {
  let killable: RunningStack | undefined;
  beforeAll(async () => {
    // The layers below R with the capsule off (it would refuse the kill): the R layer assumed broken.
    killable = await startStack({ JUBE_R_EXECUTE_RUNTIME: 'container', JUBE_R_CAPSULE: 'off', JUBE_R_TEST_ESCAPED_RUNNER: 'true' });
  });
  afterAll(async () => {
    await killable?.stop();
  });

  it('costs only its own call: a clear 502 of the API, then the next call is served', async () => {
    const post = async (script: string) => {
      const response = await fetch(`${killable!.url}/t/acme/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ script }) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    // The payload shape: it passes the validate function's static walk (no forbidden name
    // or string appears), and with the R layer gone it runs a shell that kills R's parent.
    const killed = await post(
      [
        'q <- quote(I(s("kill -9 $(cut -d \' \' -f4 /proc/$PPID/stat)", FALSE, 0L)))',
        'q[[1]] <- as.name(paste0(".Inter", "nal")); q[[2]][[1]] <- as.name(paste0("sys", "tem"))',
        // R 4.3 added receive.console.signals to the internal.
        'if (getRversion() >= "4.3.0") q[[2]][[5]] <- FALSE',
        'sapply(list(q), paste0("ev", "al"))',
        'Sys.sleep(10)',
      ].join('\n'),
    );
    const next = await post('cat("served\\n")');
    expect(killed.status, JSON.stringify(killed.body)).toBe(502);
    // Not a hang until a timeout (that would be the function's timeout, EXECUTE_FAILED): the
    // runtime's exit is reported as such.
    expect(killed.body).toMatchObject({ code: 'EXECUTE_ENVIRONMENT_LOST' });
    expect(next).toMatchObject({ status: 200, body: { status: 'ok', consoleOutput: 'served\n' } });
  });
});

/**
 * The local stack as a PER_TENANT deployment: the API derives each call's TenantId from the tenant
 * and X-Jube-Session, and the container runtime gives every key its own container. A script sees
 * which environment served it through its hostname (each container has its own UTS namespace).
 */
describe.each([
  ['session', { same: true, otherSession: false }],
  ['run', { same: false, otherSession: false }],
] as const)('the local stack, container runtime, PER_TENANT with isolation %s', (mode, expected) => {
  let keyed: RunningStack | undefined;
  beforeAll(async () => {
    keyed = await startStack({ JUBE_R_EXECUTE_RUNTIME: 'container', JUBE_R_ISOLATION: mode });
  });
  afterAll(async () => {
    await keyed?.stop();
  });

  const hostOf = async (session: string) => {
    const response = await fetch(`${keyed!.url}/t/acme/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-jube-session': session },
      body: JSON.stringify({ script: 'cat(Sys.info()[["nodename"]])' }),
    });
    const body = ExecuteResponseSchema.parse(await response.json());
    expect(body.status, JSON.stringify(body)).toBe('ok');
    return body.consoleOutput;
  };

  it(`reports the container boundary in /health and keys environments by ${mode}`, async () => {
    // Act
    const health = (await (await fetch(`${keyed!.url}/health`)).json()) as { isolation: Record<string, unknown> };
    const first = await hostOf('s1');
    const again = await hostOf('s1');
    const other = await hostOf('s2');

    // Assess
    expect(health.isolation).toMatchObject({ tenancy: 'PER_TENANT', mode, boundary: 'container-per-key' });
    expect(first).toMatch(/^\S+$/);
    expect(first === again).toBe(expected.same);
    expect(first === other).toBe(expected.otherSession);
  });
});
