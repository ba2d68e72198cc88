/**
 * The optional OS layer: bubblewrap (no network, own PID/IPC/UTS/user namespaces, read-only
 * system directories, only the workdir writable). Lambda refuses the namespaces bwrap needs, so
 * there it is absent and the microVM is the OS boundary (docs/execute-runtime.md). `auto` probes
 * once per process whether bwrap works here.
 */
import { existsSync } from 'node:fs';
import { execa } from 'execa';
import type { NamespacesMode } from '../runtime-settings.ts';

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

export type ActiveNamespaces = { readonly kind: 'bwrap' } | { readonly kind: 'none'; readonly reason: string };

let probe: Promise<ActiveNamespaces> | undefined;

async function probeBwrap(): Promise<ActiveNamespaces> {
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

export class NamespacesUnavailableError extends Error {
  override readonly name = 'NamespacesUnavailableError';
}

/** Whether this process runs R in bubblewrap's namespaces; `bwrap` mode fails fast when bwrap does not work. */
export async function resolveNamespaces(mode: NamespacesMode): Promise<ActiveNamespaces> {
  if (mode === 'none') return { kind: 'none', reason: 'disabled by JUBE_R_NAMESPACES=none' };
  probe ??= probeBwrap();
  const found = await probe;
  if (mode === 'bwrap' && found.kind !== 'bwrap') throw new NamespacesUnavailableError(`JUBE_R_NAMESPACES=bwrap but ${found.kind === 'none' ? found.reason : ''}`);
  return found;
}
