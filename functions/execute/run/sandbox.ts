/**
 * The optional OS layer: bubblewrap (no network, own PID/IPC/UTS/user namespaces, read-only
 * system directories, only the workdir writable). Lambda refuses the namespaces bwrap needs, so
 * there it is absent and the microVM is the OS boundary (docs/execute-runtime.md). `auto` probes
 * once per process whether bwrap works here.
 */
import { existsSync } from 'node:fs';
import { execa } from 'execa';
import {
  BWRAP_LAYERS,
  capsuleLayers,
  EXECUTE_HANDLER_LAYERS,
  HYGIENE_LAYERS,
  RLIMITS_LAYER,
} from '../../../layers/contract/sandbox-layers.ts';
import type { CapsuleSettings, Containment } from './containment.ts';
import type { RuntimePaths, SandboxMode } from '../runtime-paths.ts';

/** System directories bound read-only when they exist on this host. */
const READ_ONLY_DIRS = ['/usr', '/etc', '/lib', '/lib64', '/lib32', '/bin', '/sbin', '/opt'];

export interface BwrapBinds {
  readonly workdir: string;
  /** Paths outside the system directories the runner must read (its directory, the rules file). */
  readonly readOnlyFiles: readonly string[];
}

/**
 * bwrap's arguments (before `--` and the command). No --new-session: the handler's detached
 * spawn already calls setsid, so there is no controlling terminal to inject into, and keeping the
 * session keeps R in the process group the handler kills and verifies.
 */
export function bwrapArgs(binds: BwrapBinds): string[] {
  const args = ['--unshare-all', '--die-with-parent'];
  for (const dir of READ_ONLY_DIRS) if (existsSync(dir)) args.push('--ro-bind', dir, dir);
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  for (const file of binds.readOnlyFiles) args.push('--ro-bind', file, file);
  args.push('--bind', binds.workdir, binds.workdir, '--chdir', binds.workdir);
  return args;
}

export type ActiveSandbox = { readonly kind: 'bwrap' } | { readonly kind: 'none'; readonly reason: string };

let probe: Promise<ActiveSandbox> | undefined;

async function probeBwrap(): Promise<ActiveSandbox> {
  try {
    const result = await execa('bwrap', [...bwrapArgs({ workdir: '/tmp', readOnlyFiles: [] }), '--', 'true'], {
      reject: false,
      timeout: 5000,
      extendEnv: false,
      env: { PATH: '/usr/bin:/bin' },
    });
    if (result.exitCode === 0) return { kind: 'bwrap' };
    return { kind: 'none', reason: `bwrap does not work here (exit ${result.exitCode}): ${String(result.stderr).slice(0, 200)}` };
  } catch (error) {
    return { kind: 'none', reason: `bwrap is not available: ${(error as Error).message}` };
  }
}

export class SandboxUnavailableError extends Error {
  override readonly name = 'SandboxUnavailableError';
}

/** Which OS sandbox this process uses; `bwrap` mode fails fast when bwrap does not work. */
export async function resolveSandbox(mode: SandboxMode): Promise<ActiveSandbox> {
  if (mode === 'none') return { kind: 'none', reason: 'disabled by JUBE_R_SANDBOX=none' };
  probe ??= probeBwrap();
  const found = await probe;
  if (mode === 'bwrap' && found.kind !== 'bwrap') throw new SandboxUnavailableError(`JUBE_R_SANDBOX=bwrap but ${found.kind === 'none' ? found.reason : ''}`);
  return found;
}

/**
 * The sandbox layers of a run with these rlimits, this OS sandbox, this hygiene and the capsule
 * report the runner wrote ("preload=armed landlock=abi6 seccomp=active"; absent when R never
 * reached the arming).
 */
export function sandboxLayers(
  paths: Pick<RuntimePaths, 'prlimit' | 'containment'>,
  sandbox: ActiveSandbox,
  capsuleReport: string | undefined,
): string[] {
  const layers: string[] = [...EXECUTE_HANDLER_LAYERS];
  if (paths.prlimit) layers.push(RLIMITS_LAYER);
  if (sandbox.kind === 'bwrap') layers.push(...BWRAP_LAYERS);
  if (capsuleReport !== undefined) layers.push(...capsuleLayers(capsuleReport));
  layers.push(...hygieneLayers(paths.containment));
  return layers;
}

function hygieneLayers(containment: Containment): string[] {
  return [
    ...(containment.sweep === 'environment' ? [HYGIENE_LAYERS.environmentSweep] : []),
    ...(containment.wipeAfterRun.length > 0 ? [HYGIENE_LAYERS.writableWipe] : []),
    // IPC cleaning runs with the environment-wide sweep (environment-hygiene.ts).
    ...(containment.sweep === 'environment' && containment.ipcHygiene ? [HYGIENE_LAYERS.ipcCleanup] : []),
  ];
}

const probes = new Map<string, Promise<string>>();

/**
 * What the capsule arms on this host, asked once per process of its probe (a throwaway process
 * armed exactly as the runner arms R): the same report a run's envelope carries.
 */
export function probeCapsule(capsule: CapsuleSettings): Promise<string> {
  const key = `${capsule.probe}\0${capsule.library}\0${capsule.kernel}`;
  let probe = probes.get(key);
  if (!probe) {
    probe = execa(capsule.probe, [capsule.library], {
      reject: false,
      timeout: 5000,
      extendEnv: false,
      env: { PATH: '/usr/bin:/bin', JUBE_R_CAPSULE_KERNEL: capsule.kernel },
    }).then(
      (result) => String(result.stdout).trim() || `preload=unavailable(probe exit ${result.exitCode})`,
      (error: unknown) => `preload=unavailable(${(error as Error).message})`,
    );
    probes.set(key, probe);
  }
  return probe;
}

/** The sandbox layers active for executions in this process, for GET /health. */
export async function activeSandboxLayers(paths: Pick<RuntimePaths, 'sandbox' | 'prlimit' | 'containment'>): Promise<string[]> {
  const capsule = paths.containment.capsule;
  const [sandbox, report] = await Promise.all([resolveSandbox(paths.sandbox), capsule ? probeCapsule(capsule) : Promise.resolve(undefined)]);
  return sandboxLayers(paths, sandbox, report);
}
