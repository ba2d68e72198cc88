/**
 * The red-team tier that assumes the capsule fell: in the image posture (podman, read-only root,
 * the image's own entrypoint, the Runtime API emulator with canary credentials), a native program
 * runs in place of Rscript (JUBE_R_TEST_NATIVE_RUNNER; no R layer, no capsule), as a script that
 * owns its process and its memory would. It searches every process for the credentials, asks the
 * Runtime API for an event, leaves System V IPC objects, a POSIX queue, a survivor listening on
 * loopback and a file, and tries to write the service's files (test/image/fixtures/escaped-native.c).
 * Each gains nothing, and the next run in the same environment finds nothing and is served.
 * Controls switch each defence off in turn and show the fixture does reach that thing.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { PODMAN, startContainerRuntime, type ContainerRuntime } from '../../functions/tools/local/container-runtime.ts';
import { ExecuteResponseSchema } from '../../layers/contract/execute.ts';
import { buildRedTeamImage, NATIVE_FIXTURE, REDTEAM_IMAGE } from './image-harness.ts';

const runtimes: ContainerRuntime[] = [];

beforeAll(async () => {
  await buildRedTeamImage();
}, 600_000);

afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
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
    // ... the Runtime API is not named in its environment and gives it no event;
    expect(planted['runtime-api-env']).toBe('absent');
    expect(planted['runtime-api']).not.toBe('EVENT');
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
    for (const c of costs) expect(c['before-run']).toBeLessThan(250);
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
