/**
 * The container runtime behaves like Lambda's execution environments: when its runtime dies
 * mid-invocation the caller gets a function error at once (not a hang), and the next invocation
 * is served by a new container; with tenant isolation, one container per key.
 */
import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PODMAN, startContainerRuntime, type ContainerRuntime } from '../../functions/tools/local/container-runtime.ts';
import { ExecuteResponseSchema } from '../../layers/contract/execute.ts';
import { buildImage, IMAGE } from './image-harness.ts';
import { GENEROUS_TIMEOUT_SECONDS } from '../load-tolerant.ts';

let runtime: ContainerRuntime | undefined;

/** Waits for `check` (a state the runtime reaches by itself), checking every 50 ms, for at most two minutes. */
async function until(check: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 120_000; !check(); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() > deadline) throw new Error('the runtime never reached the awaited state');
  }
}

beforeAll(async () => {
  await buildImage();
  runtime = await startContainerRuntime({ image: IMAGE });
});

afterAll(async () => {
  await runtime?.close();
});

describe('container runtime', () => {
  it('fails a running invocation when the container dies, then replaces the container', async () => {
    // Prepare
    const rt = runtime!;
    const first = rt.containerId();
    const requestId = randomUUID();
    const running = rt.invoke({ script: 'repeat { x <- 1 }', timeoutSeconds: 30 }, { requestId, timeoutMs: 60_000 });
    // Killed once the runtime has the event (before, it would be served by the next container).
    await until(() => rt.invokePhase(requestId) !== undefined);

    // Act
    await execa(PODMAN[0], [...PODMAN.slice(1), 'kill', first]);
    const outcome = await running;
    const next = await rt.invoke({ script: 'cat("alive")', timeoutSeconds: GENEROUS_TIMEOUT_SECONDS }, { requestId: randomUUID(), timeoutMs: 60_000 });

    // Assess
    expect(outcome).toMatchObject({ ok: false, errorType: 'Runtime.ExitError' });
    expect(rt.containerId()).not.toBe(first);
    expect(next.ok).toBe(true);
    expect(ExecuteResponseSchema.parse(next.ok ? next.payload : undefined).consoleOutput).toContain('alive');
  });

  it('removes its container on close', async () => {
    // Prepare
    const own = await startContainerRuntime({ image: IMAGE });
    const id = own.containerId();

    // Act
    await own.close();
    const exists = await execa(PODMAN[0], [...PODMAN.slice(1), 'container', 'exists', id], { reject: false });

    // Assess
    expect(exists.exitCode).toBe(1);
  });
});

/**
 * Tenant isolation as the local stack emulates it: one container per isolation key (the TenantId),
 * so two keys share no process, no /tmp and no IPC namespace, while one key's calls reuse its
 * container. What a script in one key's environment leaves (here made directly in that container's
 * namespaces, as an escaped script with native code could) is simply not there in another key's.
 */
describe('container runtime, one container per isolation key', () => {
  let keyed: ContainerRuntime | undefined;
  beforeAll(async () => {
    keyed = await startContainerRuntime({ image: IMAGE, eager: false, maxEnvironments: 2 });
  });
  afterAll(async () => {
    await keyed?.close();
  });

  const run = (key: string, script: string) =>
    keyed!.invoke({ script, timeoutSeconds: GENEROUS_TIMEOUT_SECONDS }, { requestId: randomUUID(), timeoutMs: 60_000, tenantId: key });
  const consoleOf = (outcome: Awaited<ReturnType<typeof run>>) => ExecuteResponseSchema.parse(outcome.ok ? outcome.payload : undefined).consoleOutput;
  const hostPid = async (id: string) => (await execa(PODMAN[0], [...PODMAN.slice(1), 'inspect', '--format', '{{.State.Pid}}', id])).stdout.trim();
  const namespace = (pid: string, kind: string) => readlinkSync(`/proc/${pid}/ns/${kind}`);
  const queues = async (pid: string) => (await execa('nsenter', ['--target', pid, '--ipc', '--', 'ipcs', '-q'])).stdout;

  it('starts no container before a key is seen, one per key, and reuses a key\'s container', async () => {
    // Prepare
    expect(keyed!.keys()).toEqual([]);

    // Act
    const first = await run('acme_s1', 'cat("one")');
    const other = await run('acme_s2', 'cat("two")');
    const again = await run('acme_s1', 'cat("three")');

    // Assess
    expect([first, other, again].map(consoleOf)).toEqual(['one', 'two', 'three']);
    expect(keyed!.keys().sort()).toEqual(['acme_s1', 'acme_s2']);
    expect(keyed!.containerId('acme_s1')).not.toBe(keyed!.containerId('acme_s2'));
    expect(keyed!.environmentsStarted('acme_s1')).toBe(1);
    expect(keyed!.environmentsStarted('acme_s2')).toBe(1);
  });

  it('gives two keys separate process, IPC and mount namespaces: a message queue or a /tmp file of one key is not visible under the other', async () => {
    // Prepare
    const [a, b] = [keyed!.containerId('acme_s1'), keyed!.containerId('acme_s2')];
    const [pidA, pidB] = await Promise.all([hostPid(a), hostPid(b)]);

    // Act: what an escaped script in key A could leave behind for a later run.
    const made = await execa('nsenter', ['--target', pidA, '--ipc', '--', 'ipcmk', '-Q']);
    const queueId = /(\d+)\s*$/.exec(made.stdout)?.[1];
    await execa(PODMAN[0], [...PODMAN.slice(1), 'exec', a, 'sh', '-c', 'echo left-by-a > /tmp/jube-key-marker']);

    // Assess
    for (const kind of ['pid', 'ipc', 'mnt', 'net', 'uts']) expect(namespace(pidA, kind)).not.toBe(namespace(pidB, kind));
    expect(queueId).toBeDefined();
    expect(await queues(pidA)).toMatch(new RegExp(`^\\S+\\s+${queueId}\\s`, 'm'));
    expect(await queues(pidB)).not.toMatch(new RegExp(`^\\S+\\s+${queueId}\\s`, 'm'));
    const seenByA = await execa(PODMAN[0], [...PODMAN.slice(1), 'exec', a, 'cat', '/tmp/jube-key-marker'], { reject: false });
    const seenByB = await execa(PODMAN[0], [...PODMAN.slice(1), 'exec', b, 'cat', '/tmp/jube-key-marker'], { reject: false });
    expect(seenByA.stdout).toBe('left-by-a');
    expect(seenByB.exitCode).not.toBe(0);
  });

  it('caps containers as Lambda caps tenant environments: a new key past the cap is throttled without starting one, a known key is still served', async () => {
    // Act
    const refused = await run('newcomer', 'cat("never")');
    const served = await run('acme_s2', 'cat("still")');

    // Assess
    expect(refused).toMatchObject({ ok: false, errorType: 'TooManyRequestsException', throttled: true });
    expect(keyed!.keys().sort()).toEqual(['acme_s1', 'acme_s2']);
    expect(consoleOf(served)).toBe('still');
  });

  it('reclaims an idle key\'s container after the idle timeout, which frees room for a new key', async () => {
    // Prepare
    const small = await startContainerRuntime({ image: IMAGE, eager: false, maxEnvironments: 1, idleTimeoutMs: 1_000 });
    try {
      const first = await small.invoke({ script: 'cat("x")', timeoutSeconds: GENEROUS_TIMEOUT_SECONDS }, { requestId: randomUUID(), timeoutMs: 60_000, tenantId: 'x' });
      const id = small.containerId('x');

      // Act
      await until(() => small.keys().length === 0);
      const next = await small.invoke({ script: 'cat("y")', timeoutSeconds: GENEROUS_TIMEOUT_SECONDS }, { requestId: randomUUID(), timeoutMs: 60_000, tenantId: 'y' });

      // Assess
      expect(first.ok).toBe(true);
      expect(next.ok).toBe(true);
      expect(small.keys()).toEqual(['y']);
      const gone = await execa(PODMAN[0], [...PODMAN.slice(1), 'container', 'exists', id], { reject: false });
      expect(gone.exitCode).toBe(1);
    } finally {
      await small.close();
    }
  });
});
