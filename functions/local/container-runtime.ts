/**
 * Runs the execute function inside the r-image container, the way Lambda does: the image's own
 * entrypoint (the runtime interface client) polls a Runtime API, here the emulator.
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
import type { ExecuteRuntime, InvokeContext, InvokeOutcome } from './runtime.ts';
import { startRuntimeApiEmulator, type RuntimeApiEmulator } from './runtime-api-emulator.ts';

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

export interface ContainerRuntime extends ExecuteRuntime {
  readonly kind: 'container';
  /** The running container's id (changes when an environment is replaced). */
  containerId(): string;
  /** How many execution environments (containers) were started so far: 1 + every replacement. */
  environmentsStarted(): number;
  logs(): Promise<string>;
}

interface Environment {
  readonly id: string;
  readonly relay: ChildProcess;
  readonly waiter: ChildProcess;
}

/** Starts one execution environment (container + emulator); resolves once the container runs. */
export async function startContainerRuntime(options: ContainerRuntimeOptions = {}): Promise<ContainerRuntime> {
  const image = options.image ?? DEFAULT_IMAGE;
  const dir = mkdtempSync(join(tmpdir(), 'jube-r-runtime-'));
  const emulator = await startRuntimeApiEmulator({ listen: { path: join(dir, 'runtime.sock') } });
  let started = 1;
  let closed = false;
  let replacing: Promise<void> = Promise.resolve();
  const retired = new WeakSet<Environment>();
  // A runtime that exits (it died, or retired its environment after answering, which Lambda
  // answers with a new environment for the next event) is replaced at once, so events already
  // queued for it are served by the next one instead of failing with it.
  const launch = (): Promise<Environment> =>
    startEnvironment(image, emulator, options, (ended) => {
      if (!closed && !retired.has(ended)) replace(ended);
    });
  let environment = await launch();

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

  return {
    kind: 'container',
    containerId: () => environment.id,
    environmentsStarted: () => started,
    logs: async () => (await execa(PODMAN[0], [...PODMAN.slice(1), 'logs', environment.id], { reject: false, all: true })).all ?? '',
    async invoke(payload: unknown, context: InvokeContext): Promise<InvokeOutcome> {
      await replacing;
      const served = environment;
      const outcome = await emulator.invoke(payload, { requestId: context.requestId, timeoutMs: context.timeoutMs, tenantId: context.tenantId });
      // Lambda discards an environment whose invocation timed out (whatever was still running
      // must not answer the next call) and one whose runtime died; so do we, once per environment.
      if (!outcome.ok && REPLACE_AFTER.has(outcome.errorType) && !closed && !retired.has(served)) replace(served);
      await replacing;
      return outcome;
    },
    async close(): Promise<void> {
      closed = true;
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
