/**
 * Starts exactly one Rscript for an invocation: `prlimit <limits> -- [bwrap <binds> --] Rscript
 * --vanilla runner.R RULES WORKDIR`, detached (its own process group and session), with the
 * allow-listed environment, the nonce written to stdin and stdin closed.
 */
import { writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { execa } from 'execa';
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import type { RuntimeSettings } from '../runtime-settings.ts';
import { bwrapArgs, type ActiveNamespaces } from './bwrap.ts';
import type { WorkdirLayout } from './workdir.ts';

export function prlimitArgs(rlimits: ServiceConfig['rlimits']): string[] {
  return [
    `--as=${rlimits.addressSpaceBytes}`,
    `--fsize=${rlimits.fileSizeBytes}`,
    `--nofile=${rlimits.openFiles}`,
    `--nproc=${rlimits.processes}`,
    '--core=0',
    // No POSIX queue memory: a queue outlives every process, and where /dev/mqueue is not mounted
    // (Lambda) the hygiene cannot find it; a hard limit the script's native code cannot raise.
    '--msgqueue=0',
  ];
}

/** The full command line, pure so it can be asserted. */
export function rscriptCommand(
  runtime: RuntimeSettings,
  rlimits: ServiceConfig['rlimits'],
  namespaces: ActiveNamespaces,
  layout: WorkdirLayout,
): { file: string; args: string[] } {
  // The red-team tier's native program owns its process as an escaped script would (containment.ts).
  const native = runtime.containment.testNativeRunner;
  let command = native ? [native, layout.root] : [runtime.rscript, '--vanilla', runtime.runnerScript, layout.root];
  if (namespaces.kind === 'bwrap') {
    const capsule = runtime.containment.capsule ? [dirname(runtime.containment.capsule.library)] : [];
    const readOnlyFiles = [dirname(runtime.runnerScript), ...capsule];
    command = ['bwrap', ...bwrapArgs({ workdir: layout.root, readOnlyFiles }), '--', ...command];
  }
  if (runtime.prlimit) command = [runtime.prlimit, ...prlimitArgs(rlimits), '--', ...command];
  const [file, ...args] = command;
  return { file: file!, args };
}

/** The OOM killer's highest preference: when memory runs out, R goes, never the handler. */
export const R_OOM_SCORE_ADJ = 1000;

/**
 * Makes `pid` the OOM killer's first choice. Raising a score needs no privilege (only lowering one
 * does), and what R forks later inherits it. Where /proc does not allow it, nothing changes.
 */
export function preferForOomKill(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    writeFileSync(`/proc/${pid}/oom_score_adj`, String(R_OOM_SCORE_ADJ));
    return true;
  } catch {
    return false;
  }
}

/** `nonce` undefined: stdin stays an open pipe, for a warm runner (functions/execute/warm/). */
export function spawnRscript(
  command: { file: string; args: string[] },
  layout: WorkdirLayout,
  env: Record<string, string>,
  nonce: string | undefined,
) {
  const child = execa(command.file, command.args, {
    cwd: layout.root,
    env,
    extendEnv: false,
    detached: true,
    buffer: false,
    reject: false,
    stdout: 'pipe',
    stderr: 'pipe',
    ...(nonce === undefined ? { stdin: 'pipe' as const } : { input: `${nonce}\n` }),
  });
  // At once, before R has allocated anything worth killing the handler for.
  preferForOomKill(child.pid);
  return child;
}

export type RscriptChild = ReturnType<typeof spawnRscript>;
