/**
 * The red-team tier that assumes the capsule fell: in the image posture (podman, read-only root,
 * the image's own entrypoint, the Runtime API emulator with canary credentials), a native program
 * runs in place of Rscript (JUBE_R_TEST_NATIVE_RUNNER; no R layer, no capsule), as a script that
 * owns its process and its memory would. It searches every process for the credentials, leaves
 * System V IPC objects, a POSIX queue, a survivor listening on loopback and a file, and tries to
 * write the service's files (test/image/fixtures/escaped-native.c). Each gains nothing, and the next
 * run in the same environment finds nothing and is served. Controls switch each defence off in
 * turn and show the fixture does reach that thing. It also breaks the Runtime API's protocol on
 * loopback (an event asked for mid-run, a late registration, a late init/error, the handler
 * stopped and its event asked for): each ends only its own environment, and the key's next call
 * is served by a fresh one. And a survivor that rewrites out/ and the envelope whenever they are
 * read finds nothing to change: the handler reads only once every other process is dead.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { PODMAN, startContainerRuntime, type ContainerRuntime } from '../../functions/tools/local/container-runtime.ts';
import { ExecuteResponseSchema } from '../../layers/contract/execute.ts';
import { buildRedTeamImage, NATIVE_FIXTURE, REDTEAM_IMAGE } from './image-harness.ts';

const runtimes: ContainerRuntime[] = [];
/** Closed once the file is done (their keys' environments outlive each test). */
const runtimesKeyed: ContainerRuntime[] = [];

beforeAll(async () => {
  await buildRedTeamImage();
}, 600_000);

afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

afterAll(async () => {
  await Promise.all(runtimesKeyed.splice(0).map((r) => r.close()));
});

async function start(env: Record<string, string> = {}): Promise<ContainerRuntime> {
  const runtime = await startContainerRuntime({
    image: REDTEAM_IMAGE,
    env: { JUBE_R_CAPSULE: 'off', JUBE_R_TEST_ESCAPED_RUNNER: 'true', JUBE_R_TEST_NATIVE_RUNNER: NATIVE_FIXTURE, ...env },
  });
  runtimes.push(runtime);
  return runtime;
}

/** Runs the fixture in `mode`; its findings, `name: value` per line. */
async function fixture(runtime: ContainerRuntime, mode: 'plant' | 'probe'): Promise<Record<string, string>> {
  const outcome = await runtime.invoke({ script: mode, timeoutSeconds: 20 }, { requestId: randomUUID(), timeoutMs: 60_000 });
  if (!outcome.ok) throw new Error(`function error ${outcome.errorType}: ${outcome.errorMessage}`);
  const response = ExecuteResponseSchema.parse(outcome.payload);
  // No envelope (the fixture is not the runner): served as the script's failure, its stdout kept.
  expect(response.status).toBe('error');
  return Object.fromEntries(
    response.consoleOutput
      .split('\n')
      .filter((l) => l.includes(': '))
      .map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]),
  );
}

const SECRET = 'PLANTED-BY-THE-PREVIOUS-RUN';

/** Runs the fixture's plant mode through `podman exec`, outside any invocation; its stdout. */
async function plantOutsideARun(runtime: ContainerRuntime): Promise<string> {
  const script = `mkdir -p /tmp/outside && echo plant > /tmp/outside/script.R && ${NATIVE_FIXTURE} /tmp/outside`;
  const { stdout } = await execa(PODMAN[0], [...PODMAN.slice(1), 'exec', runtime.containerId(), '/usr/bin/env', '-i', '/bin/sh', '-c', script]);
  return stdout;
}

describe('image, native fixture in place of R (capsule and R layer gone)', () => {
  it('gains nothing: no credential, no event, nothing left for the next run, which is clean and served', async () => {
    const runtime = await start();
    // Act
    const planted = await fixture(runtime, 'plant');
    const probed = await fixture(runtime, 'probe');
    // Assess: the plant itself worked (so the probe's "gone" is the hygiene's doing) ...
    expect(planted).toMatchObject({
      'plant-msg': 'ok', 'plant-sem': 'ok', 'plant-shm': 'ok', 'plant-survivor': 'listening', 'plant-tmp': 'ok',
    });
    // ... except a POSIX queue: the run has no queue memory (RLIMIT_MSGQUEUE 0, hard), so the
    // kernel refuses to make one (the IPC control below, without rlimits, makes it);
    expect(planted['plant-mqueue']).toBe('Too many open files');
    // ... it read the environments it could (its own; tini's and Node's are not readable, both
    // non-dumpable) and found no credential, in neither run;
    expect(Number(planted['environ-readable'])).toBeGreaterThanOrEqual(1);
    expect(planted['canary']).toBe('none');
    expect(probed['canary']).toBe('none');
    // ... no other process's memory is writable to it (tini and Node are non-dumpable: a writable
    // PID 1 would be code execution in a process the sweep spares), while its own is (the method works);
    expect(planted['self-mem']).toBe('writable');
    expect(planted['mem-writable']).toBe('none');
    // ... the Runtime API is not named in its environment (asking it for an event ends the
    // environment: below);
    expect(planted['runtime-api-env']).toBe('absent');
    // ... the service's files are not writable;
    expect(planted['write-app']).not.toBe('WROTE');
    expect(planted['write-rules']).not.toBe('WROTE');
    // ... and the next run finds none of it.
    expect(probed).toMatchObject({
      'probe-msg': 'gone', 'probe-sem': 'gone', 'probe-shm': 'gone', 'probe-mqueue': 'gone', 'probe-survivor': 'gone', 'probe-listener': 'gone', 'probe-tmp': 'gone',
    });
    expect(runtime.environmentsStarted()).toBe(1);
    // The cleanings' cost, as the invocation's log line reports it.
    const costs = [...(await runtime.logs()).matchAll(/"hygieneMs":(\{[^}]*\})/g)].map((m) => JSON.parse(m[1]!) as Record<string, number>);
    expect(costs.length).toBe(2);
    for (const c of costs) expect(c['before-run']).toBeGreaterThanOrEqual(0);
  });

  it('before a run: what no after-run cleaning saw (planted outside any run, as a crash or a timeout leaves it) is gone', async () => {
    const runtime = await start();
    await fixture(runtime, 'probe');
    // Prepare: the fixture planted by hand inside the environment, between invocations, as its user.
    const planted = await plantOutsideARun(runtime);
    // Act
    const probed = await fixture(runtime, 'probe');
    // Assess
    expect(planted).toContain('plant-msg: ok');
    expect(probed).toMatchObject({
      'probe-msg': 'gone', 'probe-sem': 'gone', 'probe-shm': 'gone', 'probe-mqueue': 'gone', 'probe-survivor': 'gone', 'probe-listener': 'gone', 'probe-tmp': 'gone',
    });
    expect(runtime.environmentsStarted()).toBe(1);
  });

  it('control: with the IPC hygiene off, what was planted outside a run is still there for the next run', async () => {
    const runtime = await start({ JUBE_R_IPC_HYGIENE: 'off' });
    await fixture(runtime, 'probe');
    await plantOutsideARun(runtime);
    const probed = await fixture(runtime, 'probe');
    expect(probed).toMatchObject({ 'probe-msg': SECRET, 'probe-shm': SECRET, 'probe-mqueue': SECRET });
  });

  it('control: with the IPC hygiene (and the rlimits) off, the next run reads the queues, the semaphore and the segment', async () => {
    // Without rlimits too: under them the run cannot make a POSIX queue at all.
    const runtime = await start({ JUBE_R_IPC_HYGIENE: 'off', JUBE_R_PRLIMIT: 'none' });
    const planted = await fixture(runtime, 'plant');
    const probed = await fixture(runtime, 'probe');
    expect(planted['plant-msg']).toBe('ok');
    expect(probed).toMatchObject({ 'probe-msg': SECRET, 'probe-sem': 'FOUND', 'probe-shm': SECRET, 'probe-mqueue': SECRET });
    // The survivor and the file are still the other defences' to remove.
    expect(probed).toMatchObject({ 'probe-survivor': 'gone', 'probe-tmp': 'gone' });
  });

  it("control: started without the entrypoint's credential stripping, a dumpable PID 1 holds the canaries and the fixture reads them", async () => {
    // tini itself is non-dumpable (execute-only), so the control's PID 1 is a shell that stays
    // (`; exit`: no exec of the last command): what a dumpable ancestor with the credentials gives away.
    const runtime = await startContainerRuntime({
      image: REDTEAM_IMAGE,
      entrypoint: ['/bin/sh', '-c', '/usr/bin/tini -- /usr/local/bin/node /app/node_modules/aws-lambda-ric/index.mjs; exit $?'],
      env: { JUBE_R_CAPSULE: 'off', JUBE_R_TEST_ESCAPED_RUNNER: 'true', JUBE_R_TEST_NATIVE_RUNNER: NATIVE_FIXTURE },
    });
    runtimes.push(runtime);
    const planted = await fixture(runtime, 'plant');
    expect(planted['canary']).toBe('1/environ');
    // ... and the same method finds that shell's memory writable: the other half of what tini's
    // execute-only mode closes.
    expect(planted['mem-writable']).toMatch(/^1(,|$)/);
  });

  it('control: without the environment sweep, the survivor lives on and answers the next run on loopback', async () => {
    const runtime = await start({ JUBE_R_SWEEP: 'run' });
    await fixture(runtime, 'plant');
    const probed = await fixture(runtime, 'probe');
    expect(probed).toMatchObject({ 'probe-survivor': 'ALIVE', 'probe-listener': SECRET });
  });

  it("control: without the wipe, the next run in the environment reads the file; a sibling key's environment never does", async () => {
    const runtime = await start({ JUBE_R_WIPE_AFTER_RUN: '' });
    const sibling = await start({ JUBE_R_WIPE_AFTER_RUN: '' });
    await fixture(runtime, 'plant');
    const [same, other] = await Promise.all([fixture(runtime, 'probe'), fixture(sibling, 'probe')]);
    expect(same['probe-tmp']).toBe(SECRET);
    expect(other).toMatchObject({ 'probe-tmp': 'gone', 'probe-msg': 'gone', 'probe-survivor': 'gone', 'probe-listener': 'gone' });
  });
});

describe('image, native fixture: what the handler reads after a run', () => {
  it('reads only once every other process of the environment is dead: a survivor that rewrites out/ and the envelope on any read changes nothing in the response', async () => {
    const runtime = await start();
    // Act
    const outcome = await runtime.invoke({ script: 'tamper', timeoutSeconds: 20 }, { requestId: randomUUID(), timeoutMs: 60_000 });
    const probed = await fixture(runtime, 'probe');
    // Assess: the survivor was armed (watching the workdir) when the run ended ...
    expect(outcome.ok).toBe(true);
    const response = ExecuteResponseSchema.parse(outcome.ok ? outcome.payload : undefined);
    expect(response.consoleOutput).toContain('tamper: armed');
    // ... and no read woke it: out/ holds what the run wrote, and nothing it would have added.
    expect(response.files?.map((f) => f.name)).toEqual(['result.txt']);
    expect(Buffer.from(response.files?.[0]?.data ?? '', 'base64').toString('utf8')).toBe('original\n');
    expect(probed['probe-survivor']).toBe('gone');
    expect(runtime.environmentsStarted()).toBe(1);
  });
});

/**
 * The Runtime API on loopback, spoken by the run itself: each way of breaking its protocol ends
 * that key's environment (the call fails with Runtime.ExitError, as when a runtime dies), never
 * another key's, and the key's next call is served by a fresh environment, with nothing of the old
 * one remembered (an init error is not that key's answer from then on).
 */
describe('image, native fixture: the Runtime API from inside a run', () => {
  let keyed: ContainerRuntime;
  const ENDED_BY: Record<string, string> = {
    next: 'a runtime Next while its invocation is running',
    register: 'Extension registration closed already',
    'init-error': 'a runtime init/error after Init',
    'stop-next': 'a runtime Next while its invocation is running',
  };
  const call = (key: string, script: string) =>
    keyed.invoke({ script, timeoutSeconds: 20 }, { requestId: randomUUID(), timeoutMs: 60_000, tenantId: key });

  beforeAll(async () => {
    keyed = await startContainerRuntime({
      image: REDTEAM_IMAGE,
      eager: false,
      env: { JUBE_R_CAPSULE: 'off', JUBE_R_TEST_ESCAPED_RUNNER: 'true', JUBE_R_TEST_NATIVE_RUNNER: NATIVE_FIXTURE },
    });
    runtimesKeyed.push(keyed);
    expect((await call('bystander', 'probe')).ok).toBe(true);
  });

  it.each(Object.keys(ENDED_BY))('%s: ends only its own environment; the next call of that key is served by a fresh one', async (mode) => {
    const key = `breaker-${mode}`;
    expect((await call(key, 'probe')).ok).toBe(true);
    const [before, bystander] = [keyed.containerId(key), keyed.containerId('bystander')];

    // Act
    const broken = await call(key, mode);
    const next = await call(key, 'probe');
    const other = await call('bystander', 'probe');

    // Assess
    expect(broken).toMatchObject({ ok: false, errorType: 'Runtime.ExitError' });
    expect(keyed.endings(key).map((e) => e.errorMessage)).toEqual([`the environment ended: ${ENDED_BY[mode]}`]);
    expect(next.ok).toBe(true);
    expect(keyed.environmentsStarted(key)).toBe(2);
    expect(keyed.containerId(key)).not.toBe(before);
    expect(other.ok).toBe(true);
    expect(keyed.containerId('bystander')).toBe(bystander);
    expect(keyed.environmentsStarted('bystander')).toBe(1);
  });
});
