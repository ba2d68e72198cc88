/**
 * Each isolation key's container runs as a host uid range of its own (PER_KEY_IDENTITY_FLAGS,
 * podman --userns=auto), so what the kernel counts or keys per user never spans two keys: with
 * more environments open than one uid's process limit (JUBE_R_RLIMIT_NPROC) allows, every key
 * still starts R (five environments at the default limit starved every key before), and each key
 * has its own user keyring. The controls run the same with one shared
 * host uid (`identity: 'shared'`, what rootful podman does without a user namespace): the same
 * environments starve R's start on some key, and two keys see one keyring.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { execa } from 'execa';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExecuteResponseSchema } from '../../layers/contract/execute.ts';
import { PODMAN, startContainerRuntime, type ContainerRuntime } from '../../functions/tools/local/container-runtime.ts';
import { buildRedTeamImage, IMAGE, NATIVE_FIXTURE, REDTEAM_IMAGE } from './image-harness.ts';

/**
 * R's process limit per user (RLIMIT_NPROC counts every task of a host uid, whatever its
 * container), lowered from the default (readServiceConfig's) so that three environments, each
 * its handler's threads and a warm runner (about 14 tasks), hold more than it: the mechanism of five
 * environments at the default, at a third of the cost.
 */
const PROCESS_LIMIT = 32;
const LIMIT_ENV = { JUBE_R_RLIMIT_NPROC: String(PROCESS_LIMIT) };
const KEYS = ['k1', 'k2', 'k3'];

const runtimes: ContainerRuntime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

beforeAll(async () => {
  await buildRedTeamImage();
}, 900_000);

const hostPid = async (runtime: ContainerRuntime, key: string) =>
  (await execa(PODMAN[0], [...PODMAN.slice(1), 'inspect', '--format', '{{.State.Pid}}', runtime.containerId(key)])).stdout.trim();
const pidNamespace = (pid: string) => {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
};

/** Every task (thread) of `key`'s container, by host uid. */
async function tasksByUid(runtime: ContainerRuntime, key: string): Promise<Map<number, number>> {
  const namespace = pidNamespace(await hostPid(runtime, key));
  const tasks = new Map<number, number>();
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    if (pidNamespace(pid) !== namespace) continue;
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
    tasks.set(uid, (tasks.get(uid) ?? 0) + Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 0));
  }
  return tasks;
}

const call = (runtime: ContainerRuntime, key: string, timeoutSeconds: number) =>
  runtime.invoke({ script: 'cat(1 + 1)', timeoutSeconds }, { requestId: randomUUID(), timeoutMs: 120_000, tenantId: key });
const statusOf = (outcome: Awaited<ReturnType<typeof call>>) => (outcome.ok ? ExecuteResponseSchema.parse(outcome.payload).status : outcome.errorType);

/** Opens one environment per key, one call each, in turn; their statuses. */
async function openAll(runtime: ContainerRuntime, timeoutSeconds: number): Promise<string[]> {
  const statuses: string[] = [];
  for (const key of KEYS) statuses.push(statusOf(await call(runtime, key, timeoutSeconds)));
  return statuses;
}

describe('per-key identity', () => {
  it('every key still runs R with more environments open than one uid\'s process limit allows', async () => {
    const runtime = await startContainerRuntime({ image: IMAGE, eager: false, env: LIMIT_ENV });
    runtimes.push(runtime);

    // Act: every key opened, then every key called again at once.
    const opened = await openAll(runtime, 30);
    const again = await Promise.all(KEYS.map(async (key) => statusOf(await call(runtime, key, 30))));

    // Assess: every call of every key was served ...
    expect(opened).toEqual(KEYS.map(() => 'ok'));
    expect(again).toEqual(KEYS.map(() => 'ok'));
    // ... each key's processes run as a host uid of its own, and together they hold more tasks
    // than one uid may (so with a shared uid this would not hold: the control below).
    const perKey = await Promise.all(KEYS.map((key) => tasksByUid(runtime, key)));
    const uids = perKey.map((tasks) => [...tasks.keys()]);
    for (const own of uids) expect(own).toHaveLength(1);
    expect(new Set(uids.flat()).size).toBe(KEYS.length);
    expect(perKey.reduce((sum, tasks) => sum + [...tasks.values()].reduce((a, b) => a + b, 0), 0)).toBeGreaterThan(PROCESS_LIMIT);
  });

  it('control: with one shared host uid, the same environments use up its process limit and R no longer starts on some key', async () => {
    const runtime = await startContainerRuntime({ image: IMAGE, eager: false, env: LIMIT_ENV, identity: 'shared' });
    runtimes.push(runtime);

    // Short limits: a starved call ends at its backstop; a served one needs a fraction of it.
    const statuses = await openAll(runtime, 5);

    const perKey = await Promise.all(KEYS.map((key) => tasksByUid(runtime, key)));
    const uids = new Set(perKey.flatMap((tasks) => [...tasks.keys()]));
    const total = perKey.reduce((sum, tasks) => sum + [...tasks.values()].reduce((a, b) => a + b, 0), 0);
    expect(uids.size).toBe(1);
    expect(total).toBeGreaterThanOrEqual(PROCESS_LIMIT);
    expect(statuses.filter((s) => s !== 'ok').length).toBeGreaterThan(0);
  });

  it('each key has its own user keyring; with one shared host uid two keys see the same one (control)', async () => {
    const env = { JUBE_R_CAPSULE: 'off', JUBE_R_TEST_ESCAPED_RUNNER: 'true', JUBE_R_TEST_NATIVE_RUNNER: NATIVE_FIXTURE };
    const keyringOf = async (runtime: ContainerRuntime, key: string) => {
      const outcome = await runtime.invoke({ script: 'keyring', timeoutSeconds: 20 }, { requestId: randomUUID(), timeoutMs: 60_000, tenantId: key });
      return /keyring-user: (\S+)/.exec(ExecuteResponseSchema.parse(outcome.ok ? outcome.payload : undefined).consoleOutput)?.[1];
    };
    const own = await startContainerRuntime({ image: REDTEAM_IMAGE, eager: false, env });
    const shared = await startContainerRuntime({ image: REDTEAM_IMAGE, eager: false, env, identity: 'shared' });
    runtimes.push(own, shared);

    const [a, b] = [await keyringOf(own, 'a'), await keyringOf(own, 'b')];
    const [c, d] = [await keyringOf(shared, 'c'), await keyringOf(shared, 'd')];

    for (const serial of [a, b, c, d]) expect(serial).toMatch(/^\d+$/);
    expect(a).not.toBe(b);
    expect(c).toBe(d);
  });
});
