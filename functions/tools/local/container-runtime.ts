/**
 * Runs the execute function inside the r-image container, the way Lambda does: the image's own
 * entrypoint (the runtime interface client) polls a Runtime API, here the emulator, and one
 * container (one execution environment) per isolation key, the invoke's TenantId.
 *
 * The container keeps `--network none`. Its runtime client still reaches the emulator: the
 * container is created and initialised (its network namespace exists, its process has not
 * started), a small relay is started *inside that namespace* with nsenter, listening on the
 * namespace's own 127.0.0.1:9001 and forwarding each connection to the emulator's unix socket on
 * the host (unix sockets are reached by path, not through the network). Then the container starts.
 * Nothing else is reachable from inside. This needs root (nsenter), as rootful podman does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { WARM_EXTENSION_NAME } from '../../execute/create-handler.ts';
import type { ExecuteRuntime, InvokeContext, InvokeAnswer } from './runtime.ts';
import { ENVIRONMENT_ENDED, startRuntimeApiEmulator, type EnvironmentEnd, type InvokePhase, type RuntimeApiEmulator } from './runtime-api-emulator.ts';

export const DEFAULT_IMAGE = 'localhost/jube-r-execute';
/** podman on these machines: rootful, runc (crun is absent), host rlimits above the default ulimits. */
export const PODMAN = ['podman', '--runtime', 'runc'] as const;
/** Lambda's shape: read-only root, writable /tmp, no capabilities, no network, bounded pids/memory. */
export const HARDENED_RUN_FLAGS = [
  '--read-only',
  '--tmpfs',
  '/tmp',
  '--cap-drop',
  'ALL',
  '--security-opt',
  'no-new-privileges',
  '--network',
  'none',
  '--pids-limit',
  '256',
  '--memory',
  '2g',
  '--ulimit',
  'nofile=1024:1024',
  '--ulimit',
  'nproc=4096:4096',
] as const;

const RUNTIME_API_PORT = 9001;

/**
 * Each environment's own host identity: a user namespace with a host uid/gid range of its own
 * (podman-run(1), `--userns=auto`; rootful podman takes the ranges from the `containers` entries
 * of /etc/subuid and /etc/subgid, which `npm run setup` writes for the image tier). The image's
 * user is then a different host uid in every container, so what the kernel counts or keys per
 * user (RLIMIT_NPROC, the user keyring, who may signal whom) never spans two keys: one key's
 * processes cannot exhaust another's process limit, read its keys or signal its processes. In
 * Lambda each environment is its own microVM, with its own kernel.
 */
export const PER_KEY_IDENTITY_FLAGS = ['--userns=auto'] as const;

/**
 * What Lambda gives every environment: the execution role's credentials in the environment the
 * entrypoint starts with. Canaries here, so a test can search every process and file for them.
 */
export const CANARY_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'ASIAJUBERCANARY00001',
  AWS_SECRET_ACCESS_KEY: 'jube-r-canary-secret-access-key-0000000001',
  AWS_SESSION_TOKEN: 'jube-r-canary-session-token-0000000001',
} as const;

export interface ContainerRuntimeOptions {
  readonly image?: string;
  /** Extra environment for the function (e.g. JUBE_R_* limits), as Lambda's function configuration. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Host directories mounted read-only at the same path inside (e.g. the local data dir), so
   * resolved `file` dataframe sources name the same file on both sides.
   */
  readonly readOnlyMounts?: readonly string[];
  /** Called with the container's output when it ends, for diagnostics. */
  readonly onExit?: (logs: string) => void;
  /** Test-only: replaces the image's entrypoint (a control that skips its credential stripping). */
  readonly entrypoint?: readonly string[];
  /**
   * `per-key` (default): each container its own host uid range (PER_KEY_IDENTITY_FLAGS).
   * `shared`: test-only control, every container's user is the same host uid, as rootful podman
   * runs them without a user namespace.
   */
  readonly identity?: 'per-key' | 'shared';
}

export interface ContainerPoolOptions extends ContainerRuntimeOptions {
  /**
   * Containers (active or idle) alive at once, as Lambda caps tenant environments; a call with a key
   * that has none when the cap is reached is throttled (TooManyRequestsException). Default: unbounded.
   */
  readonly maxEnvironments?: number;
  /** An idle key's container is removed after this long, as Lambda reclaims idle environments. */
  readonly idleTimeoutMs?: number;
  /**
   * Start the container of calls without a key (shared tenancy) at once, so the first call is warm;
   * keyed containers always start on their key's first call (a cold start per new key, as in Lambda).
   */
  readonly eager?: boolean;
}

export interface ContainerRuntime extends ExecuteRuntime {
  readonly kind: 'container';
  /** The running container's id for `key` (the invoke's TenantId; none: calls without one). */
  containerId(key?: string): string;
  /** How many containers were started for `key` so far: 1 + every replacement (0: none yet). */
  environmentsStarted(key?: string): number;
  /** The keys that have a container now. */
  keys(): string[];
  logs(key?: string): Promise<string>;
  /** The emulator's record of one invocation's phases (response, extensions done) for `key`. */
  invokePhase(requestId: string, key?: string): InvokePhase | undefined;
  /** The extensions registered in `key`'s current environment. */
  extensions(key?: string): string[];
  /** Why `key`'s environments ended so far, oldest first (a timeout, an exit, a protocol violation). */
  endings(key?: string): EnvironmentEnd[];
}

/** The key of calls that carry no TenantId (a function without tenant isolation). */
const NO_KEY = '';
const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000;

/**
 * The execute function with tenant isolation, the way Lambda keys it: one execution environment
 * (container + its own Runtime API emulator) per TenantId, never shared with another key; calls with
 * the same key reuse that container (one at a time: Lambda would start a second environment of the
 * same key for a concurrent call, this emulation queues it). Two keys therefore share no process,
 * no /tmp, no IPC namespace (each container has its own), no host uid (PER_KEY_IDENTITY_FLAGS),
 * nothing but the read-only image.
 */
export async function startContainerRuntime(options: ContainerPoolOptions = {}): Promise<ContainerRuntime> {
  const pool = new Map<string, KeyEnvironment>();
  const starting = new Map<string, Promise<KeyEnvironment>>();
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  let closed = false;

  const live = () => pool.size + starting.size;
  const environmentOf = (key: string): Promise<KeyEnvironment> | undefined => {
    const ready = pool.get(key);
    if (ready) return Promise.resolve(ready);
    const pending = starting.get(key);
    if (pending) return pending;
    if (options.maxEnvironments !== undefined && live() >= options.maxEnvironments) return undefined;
    const started = startKeyEnvironment(options, () => {
      if (!closed) void reclaim(key);
    }, idleTimeoutMs).then(
      (env) => {
        starting.delete(key);
        pool.set(key, env);
        return env;
      },
      (error: unknown) => {
        starting.delete(key);
        throw error;
      },
    );
    starting.set(key, started);
    return started;
  };

  const reclaim = async (key: string): Promise<void> => {
    const env = pool.get(key);
    if (!env || env.busy() > 0) return;
    pool.delete(key);
    await env.close();
  };

  const known = (key: string | undefined): KeyEnvironment => {
    const env = pool.get(key ?? NO_KEY);
    if (!env) throw new Error(`no container for key ${JSON.stringify(key ?? NO_KEY)}`);
    return env;
  };

  if (options.eager ?? true) await environmentOf(NO_KEY);

  return {
    kind: 'container',
    containerId: (key) => known(key).containerId(),
    environmentsStarted: (key) => pool.get(key ?? NO_KEY)?.environmentsStarted() ?? 0,
    keys: () => [...pool.keys()],
    logs: (key) => known(key).logs(),
    invokePhase: (requestId, key) => known(key).invokePhase(requestId),
    extensions: (key) => known(key).extensions(),
    endings: (key) => pool.get(key ?? NO_KEY)?.endings() ?? [],
    // The image starts warm (its JUBE_R_WARM); each environment's handler registers its warm start
    // with the Extensions API during its Init, which is what can be seen from here.
    async warmStatus() {
      if (options.env?.['JUBE_R_WARM'] === 'off') return { enabled: false, state: 'off' };
      const environments = [...pool.values()];
      if (environments.length === 0) return { enabled: true, state: 'not-loaded' };
      const registered = environments.filter((env) => env.extensions().includes(WARM_EXTENSION_NAME)).length;
      return { enabled: true, state: registered === environments.length ? 'ready' : 'starting' };
    },
    async invoke(payload: unknown, context: InvokeContext): Promise<InvokeAnswer> {
      if (closed) return { ok: false, errorType: 'Runtime.Closed', errorMessage: 'the container runtime was closed' };
      const key = context.tenantId ?? NO_KEY;
      const env = environmentOf(key);
      if (!env) {
        return {
          ok: false,
          errorType: 'TooManyRequestsException',
          errorMessage: `Rate exceeded: ${options.maxEnvironments} execution environments (active or idle) exist and none is this key's`,
          throttled: true,
        };
      }
      return (await env).invoke(payload, context);
    },
    async close(): Promise<void> {
      closed = true;
      await Promise.allSettled([...starting.values()]);
      await Promise.all([...pool.values()].map((env) => env.close()));
      pool.clear();
    },
  };
}

/** One execution environment of a key: a container and its own Runtime API emulator. */
interface Environment {
  readonly id: string;
  readonly relay: ChildProcess;
  readonly waiter: ChildProcess;
  readonly emulator: RuntimeApiEmulator;
  /** Holds the emulator's socket. */
  readonly dir: string;
}

interface KeyEnvironment {
  invoke(payload: unknown, context: InvokeContext): Promise<InvokeAnswer>;
  containerId(): string;
  environmentsStarted(): number;
  busy(): number;
  logs(): Promise<string>;
  invokePhase(requestId: string): InvokePhase | undefined;
  extensions(): string[];
  endings(): EnvironmentEnd[];
  close(): Promise<void>;
}

/**
 * One key's execution environments, one after another; resolves once the first container runs.
 * An environment that ends (its runtime exited or retired it, a function timeout, an init error, a
 * runtime or extension that broke the Runtime API's protocol) is removed and a fresh one, container
 * and emulator, serves the key's next call: Lambda resets that environment and initialises it
 * again, which a new container stands in for here. Nothing of the old one (its emulator's state,
 * an init error, a registration) carries over. A fresh one starts at once after an environment
 * that had finished its Init, and on the next call after one whose Init failed (so a broken image
 * does not start containers in a loop).
 */
async function startKeyEnvironment(options: ContainerRuntimeOptions, onIdle: () => void, idleTimeoutMs: number): Promise<KeyEnvironment> {
  const image = options.image ?? DEFAULT_IMAGE;
  const phases = new Map<string, InvokePhase>();
  const endings: EnvironmentEnd[] = [];
  let started = 0;
  let closed = false;
  let busy = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  // The key's calls, one at a time, in arrival order.
  let turn: Promise<unknown> = Promise.resolve();
  let latest: Environment | undefined;
  let current: Promise<Environment> | undefined;

  const launch = (after: Promise<unknown> = Promise.resolve()): Promise<Environment> => {
    const next = after.then(() => {
      started += 1;
      return startEnvironment(image, options, phases, onEnd);
    });
    current = next;
    next.then(
      (env) => {
        latest = env;
      },
      () => {
        // Could not start: the next call tries again.
        if (current === next) current = undefined;
      },
    );
    return next;
  };
  // Called by the emulator, before it settles any invocation: a call that comes back undelivered
  // already finds the replacement in `current`.
  const onEnd = (env: Environment, end: EnvironmentEnd): void => {
    endings.push(end);
    if (closed) return;
    const gone = stop(env);
    stopping.add(gone);
    void gone.finally(() => stopping.delete(gone));
    if (end.initFailed) current = undefined;
    else void launch(gone);
  };

  // Ended environments still being removed: close() waits for them too.
  const stopping = new Set<Promise<void>>();
  const stop = async (env: Environment): Promise<void> => {
    env.waiter.removeAllListeners('exit');
    if (options.onExit) options.onExit((await execa(PODMAN[0], [...PODMAN.slice(1), 'logs', env.id], { reject: false, all: true })).all ?? '');
    await execa(PODMAN[0], [...PODMAN.slice(1), 'rm', '--force', '--time', '0', env.id], { reject: false });
    env.relay.kill('SIGKILL');
    env.waiter.kill('SIGKILL');
    await env.emulator.close();
    rmSync(env.dir, { recursive: true, force: true });
  };

  await launch();

  const armIdle = (): void => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(onIdle, idleTimeoutMs);
    idleTimer.unref();
  };
  armIdle();

  /** One call: in the key's current environment, and once more in the next if that one ended before delivering it. */
  const serve = async (payload: unknown, context: InvokeContext): Promise<InvokeAnswer> => {
    for (let attempt = 0; ; attempt += 1) {
      if (closed) return { ok: false, errorType: 'Runtime.Closed', errorMessage: 'the container runtime was closed' };
      // A container that cannot start at all (no image, podman failing) is the local endpoint's
      // failure, not the function's: it throws, as the first start of a key's environment does.
      const env = await (current ?? launch());
      const outcome = await env.emulator.invoke(payload, { requestId: context.requestId, timeoutMs: context.timeoutMs, tenantId: context.tenantId });
      if (!('undelivered' in outcome)) return outcome;
      const { errorType, errorMessage } = outcome.undelivered;
      if (attempt > 0) return { ok: false, errorType, errorMessage };
    }
  };

  return {
    containerId: () => latest?.id ?? '',
    environmentsStarted: () => started,
    busy: () => busy,
    invokePhase: (requestId) => phases.get(requestId),
    extensions: () => latest?.emulator.extensions() ?? [],
    endings: () => [...endings],
    logs: async () => (latest ? ((await execa(PODMAN[0], [...PODMAN.slice(1), 'logs', latest.id], { reject: false, all: true })).all ?? '') : ''),
    async invoke(payload: unknown, context: InvokeContext): Promise<InvokeAnswer> {
      busy += 1;
      clearTimeout(idleTimer);
      const mine = turn.then(() => serve(payload, context));
      turn = mine.catch(() => undefined);
      try {
        return await mine;
      } finally {
        busy -= 1;
        if (busy === 0) armIdle();
      }
    },
    async close(): Promise<void> {
      closed = true;
      clearTimeout(idleTimer);
      const env = await current?.catch(() => undefined);
      if (env) await stop(env);
      await Promise.all([...stopping]);
    },
  };
}

async function startEnvironment(
  image: string,
  options: ContainerRuntimeOptions,
  phases: Map<string, InvokePhase>,
  onEnd: (environment: Environment, end: EnvironmentEnd) => void,
): Promise<Environment> {
  const podman = (args: string[]) => execa(PODMAN[0], [...PODMAN.slice(1), ...args]);
  const dir = mkdtempSync(join(tmpdir(), 'jube-r-runtime-'));
  let environment: Environment | undefined;
  // An end before the environment is assembled (an init/error while `podman start` returns) is
  // handed on once it is.
  let early: EnvironmentEnd | undefined;
  const emulator = await startRuntimeApiEmulator({
    listen: { path: join(dir, 'runtime.sock') },
    phases,
    onEnd: (end) => {
      if (environment) onEnd(environment, end);
      else early = end;
    },
  });
  const env = {
    AWS_LAMBDA_RUNTIME_API: `127.0.0.1:${RUNTIME_API_PORT}`,
    AWS_LAMBDA_FUNCTION_NAME: 'jube-r-execute',
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '2048',
    // The 4.x runtime interface client refuses to start without these, as Lambda always sets them.
    AWS_LAMBDA_LOG_GROUP_NAME: '/aws/lambda/jube-r-execute',
    AWS_LAMBDA_LOG_STREAM_NAME: `${new Date().toISOString().slice(0, 10).replace(/-/g, '/')}/[$LATEST]${randomUUID().replace(/-/g, '')}`,
    AWS_REGION: 'us-east-1',
    ...CANARY_CREDENTIALS,
    ...options.env,
  };
  const envFlags = Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
  const mountFlags = (options.readOnlyMounts ?? []).flatMap((d) => ['--volume', `${resolve(d)}:${resolve(d)}:ro`]);
  const entrypoint = options.entrypoint ? ['--entrypoint', JSON.stringify(options.entrypoint)] : [];
  const identity = (options.identity ?? 'per-key') === 'per-key' ? PER_KEY_IDENTITY_FLAGS : [];
  let id: string | undefined;
  try {
    ({ stdout: id } = await podman(['create', ...HARDENED_RUN_FLAGS, ...identity, ...envFlags, ...mountFlags, ...entrypoint, image]));
    await podman(['init', id]);
    const { stdout: pid } = await podman(['inspect', '--format', '{{.State.Pid}}', id]);
    const relay = await startRelay(pid.trim(), emulator.address);
    await podman(['start', id]);
    // If the runtime dies, nothing will ever answer its invocation: end the environment, which
    // fails that invocation instead of hanging (Lambda's Runtime.ExitError).
    const waiter = spawn(PODMAN[0], [...PODMAN.slice(1), 'wait', id], { stdio: 'ignore' });
    const assembled: Environment = { id, relay, waiter, emulator, dir };
    environment = assembled;
    waiter.on('exit', () => emulator.end(ENVIRONMENT_ENDED, 'the execute container exited'));
    if (early) {
      const end = early;
      queueMicrotask(() => onEnd(assembled, end));
    }
    return assembled;
  } catch (error) {
    if (id !== undefined) await execa(PODMAN[0], [...PODMAN.slice(1), 'rm', '--force', '--time', '0', id], { reject: false });
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
    if (/no subuid ranges found|could not find enough available IDs/.test(String((error as { stderr?: unknown }).stderr ?? ''))) {
      throw new Error('podman has no uid range for per-key identity (--userns=auto): run `JUBE_R_SETUP_IMAGE=1 npm run setup`, which adds the `containers` range to /etc/subuid and /etc/subgid', { cause: error });
    }
    throw error;
  }
}

/** TCP 127.0.0.1:9001 inside the container's network namespace -> the emulator's unix socket. */
const RELAY_SOURCE = `
const net = require('node:net');
const [port, socketPath] = process.argv.slice(1);
net.createServer((inbound) => {
  const outbound = net.connect(socketPath);
  inbound.pipe(outbound).pipe(inbound);
  inbound.on('error', () => outbound.destroy());
  outbound.on('error', () => inbound.destroy());
}).listen(Number(port), '127.0.0.1', () => console.log('ready'));
`;

function startRelay(pid: string, socketPath: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const relay = spawn(
      'nsenter',
      ['--target', pid, '--net', '--', process.execPath, '-e', RELAY_SOURCE, String(RUNTIME_API_PORT), socketPath],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    relay.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    relay.stdout.once('data', () => resolve(relay));
    relay.once('exit', (code) => reject(new Error(`runtime API relay exited (${code}): ${stderr}`)));
    relay.once('error', reject);
  });
}
