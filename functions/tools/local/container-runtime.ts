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
import type { ExecuteRuntime, InvokeContext, InvokeAnswer } from './runtime.ts';
import { startRuntimeApiEmulator, type InvokePhase, type RuntimeApiEmulator } from './runtime-api-emulator.ts';

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
 * What Lambda gives every environment: the execution role's credentials in the environment the
 * entrypoint starts with. Canaries here, so a test can search every process and file for them.
 */
export const CANARY_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'ASIAJUBERCANARY00001',
  AWS_SECRET_ACCESS_KEY: 'jube-r-canary-secret-access-key-0000000001',
  AWS_SESSION_TOKEN: 'jube-r-canary-session-token-0000000001',
} as const;
const REPLACE_AFTER = new Set(['Sandbox.Timedout', 'Runtime.ExitError']);

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
  /** The extensions registered in `key`'s environment. */
  extensions(key?: string): string[];
}

/** The key of calls that carry no TenantId (a function without tenant isolation). */
const NO_KEY = '';
const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000;

/**
 * The execute function with tenant isolation, the way Lambda keys it: one execution environment
 * (container + its own Runtime API emulator) per TenantId, never shared with another key; calls with
 * the same key reuse that container (one at a time: Lambda would start a second environment of the
 * same key for a concurrent call, this emulation queues it). Two keys therefore share no process,
 * no /tmp, no IPC namespace (each container has its own), nothing but the read-only image.
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

/** One container of a key's environment (replaced when its runtime exits). */
interface Environment {
  readonly id: string;
  readonly relay: ChildProcess;
  readonly waiter: ChildProcess;
}

interface KeyEnvironment {
  invoke(payload: unknown, context: InvokeContext): Promise<InvokeAnswer>;
  containerId(): string;
  environmentsStarted(): number;
  busy(): number;
  logs(): Promise<string>;
  invokePhase(requestId: string): InvokePhase | undefined;
  extensions(): string[];
  close(): Promise<void>;
}

/**
 * One key's execution environment (container + emulator); resolves once the container runs. A
 * runtime that exits is replaced by a new container of the same key: Lambda resets and initialises
 * that environment again in the same microVM, which a new container stands in for here.
 */
async function startKeyEnvironment(options: ContainerRuntimeOptions, onIdle: () => void, idleTimeoutMs: number): Promise<KeyEnvironment> {
  const image = options.image ?? DEFAULT_IMAGE;
  const dir = mkdtempSync(join(tmpdir(), 'jube-r-runtime-'));
  const emulator = await startRuntimeApiEmulator({ listen: { path: join(dir, 'runtime.sock') } });
  let started = 1;
  let closed = false;
  let busy = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  let replacing: Promise<void> = Promise.resolve();
  const retired = new WeakSet<Environment>();
  // A runtime that exits (it died, or retired its environment after answering) is replaced at
  // once, so events already queued for it are served by the next one instead of failing with it.
  const launch = (): Promise<Environment> =>
    startEnvironment(image, emulator, options, (ended) => {
      if (!closed && !retired.has(ended)) replace(ended);
    });
  let environment: Environment;
  try {
    environment = await launch();
  } catch (error) {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const replace = (old: Environment): void => {
    retired.add(old);
    replacing = (async () => {
      await stop(old);
      environment = await launch();
      started += 1;
    })();
  };

  const stop = async (env: Environment): Promise<void> => {
    env.waiter.removeAllListeners('exit');
    await execa(PODMAN[0], [...PODMAN.slice(1), 'rm', '--force', '--time', '0', env.id], { reject: false });
    env.relay.kill('SIGKILL');
  };

  const armIdle = (): void => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(onIdle, idleTimeoutMs);
    idleTimer.unref();
  };
  armIdle();

  return {
    containerId: () => environment.id,
    environmentsStarted: () => started,
    busy: () => busy,
    invokePhase: (requestId) => emulator.invokePhase(requestId),
    extensions: () => emulator.extensions(),
    logs: async () => (await execa(PODMAN[0], [...PODMAN.slice(1), 'logs', environment.id], { reject: false, all: true })).all ?? '',
    async invoke(payload: unknown, context: InvokeContext): Promise<InvokeAnswer> {
      busy += 1;
      clearTimeout(idleTimer);
      try {
        await replacing;
        const served = environment;
        const outcome = await emulator.invoke(payload, { requestId: context.requestId, timeoutMs: context.timeoutMs, tenantId: context.tenantId });
        // Lambda resets an environment whose invocation timed out (whatever was still running
        // must not answer the next call) and one whose runtime died; a new container of the same
        // key stands in for that reset, once per environment.
        if (!outcome.ok && REPLACE_AFTER.has(outcome.errorType) && !closed && !retired.has(served)) replace(served);
        await replacing;
        return outcome;
      } finally {
        busy -= 1;
        if (busy === 0) armIdle();
      }
    },
    async close(): Promise<void> {
      closed = true;
      clearTimeout(idleTimer);
      await replacing.catch(() => undefined);
      await stop(environment);
      emulator.failAll('Runtime.Closed', 'the container runtime was closed');
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startEnvironment(
  image: string,
  emulator: RuntimeApiEmulator,
  options: ContainerRuntimeOptions,
  onEnded: (environment: Environment) => void,
): Promise<Environment> {
  const podman = (args: string[]) => execa(PODMAN[0], [...PODMAN.slice(1), ...args]);
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
  const mountFlags = (options.readOnlyMounts ?? []).flatMap((dir) => ['--volume', `${resolve(dir)}:${resolve(dir)}:ro`]);
  const entrypoint = options.entrypoint ? ['--entrypoint', JSON.stringify(options.entrypoint)] : [];
  const { stdout: id } = await podman(['create', ...HARDENED_RUN_FLAGS, ...envFlags, ...mountFlags, ...entrypoint, image]);
  try {
    await podman(['init', id]);
    const { stdout: pid } = await podman(['inspect', '--format', '{{.State.Pid}}', id]);
    const relay = await startRelay(pid.trim(), emulator.address);
    await podman(['start', id]);
    // If the runtime dies mid-invocation, nothing will ever answer it: fail that invocation
    // instead of hanging (Lambda's Runtime.ExitError). Queued ones wait for the next environment.
    const waiter = spawn(PODMAN[0], [...PODMAN.slice(1), 'wait', id], { stdio: 'ignore' });
    const environment: Environment = { id, relay, waiter };
    waiter.on('exit', () => {
      emulator.failRunning('Runtime.ExitError', 'the execute container exited');
      relay.kill('SIGKILL');
      onEnded(environment);
      if (options.onExit) {
        void execa(PODMAN[0], [...PODMAN.slice(1), 'logs', id], { reject: false, all: true }).then((r) =>
          options.onExit?.(r.all ?? ''),
        );
      }
    });
    return environment;
  } catch (error) {
    await execa(PODMAN[0], [...PODMAN.slice(1), 'rm', '--force', '--time', '0', id], { reject: false });
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
