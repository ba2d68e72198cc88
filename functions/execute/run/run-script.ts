/**
 * One run of the runner: spawn, stream-and-cap stdout, race the backstop timer, then kill the
 * process group whatever happened and verify it is empty. Returns what the handler needs to
 * build the response; never throws for anything the script did.
 */
import type { ConsoleCapture } from '../output/caps.ts';
import { killMarkedProcesses, killProcessGroup, RUN_MARKER_VARIABLE, type GroupKillReport } from './process-group.ts';
import { spawnRscript, type RscriptChild } from './spawn-rscript.ts';
import type { WorkdirLayout } from './workdir.ts';

export interface ProcessExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** Set when the handler killed the group before R finished. */
  readonly killedAfterMs: number | undefined;
  readonly stderrTail: string;
  readonly group: GroupKillReport | undefined;
  readonly pid: number | undefined;
}

const STDERR_KEEP_BYTES = 8 * 1024;

export async function runScript(
  command: { file: string; args: string[] },
  layout: WorkdirLayout,
  env: Record<string, string>,
  nonce: string,
  capture: ConsoleCapture,
  deadlineMs: number,
  /** A warm runner already handed this run's nonce (functions/execute/warm/): supervised, not spawned. */
  warm?: RscriptChild,
  /**
   * R runs in a PID namespace of its own (bubblewrap): once the group holds nothing alive, that
   * namespace's first process is dead, and the kernel ends every process of a PID namespace before
   * its first process finishes exiting, so no process of the run (setsid or not) is left for the
   * marker scan to find, which is then skipped.
   */
  ownPidNamespace = false,
): Promise<ProcessExit> {
  const started = Date.now();
  const child = warm ?? spawnRscript(command, layout, env, nonce);
  const pid = child.pid;
  let stderr = Buffer.alloc(0);
  child.stdout.on('data', (chunk: Buffer) => capture.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => {
    // Keep the tail: R's last words (an allocation failure, a signal) come at the end.
    stderr = Buffer.concat([stderr, chunk]);
    if (stderr.length > STDERR_KEEP_BYTES) stderr = stderr.subarray(stderr.length - STDERR_KEEP_BYTES);
  });

  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    // A warm runner may have ended between its readiness check and now.
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), Math.max(0, deadlineMs));
  });

  let killedAfterMs: number | undefined;
  let group: GroupKillReport | undefined;
  try {
    const first = await Promise.race([exited, deadline]);
    if (first === 'deadline') killedAfterMs = Date.now() - started;
  } finally {
    clearTimeout(timer);
    // Always: the main process may be gone while a fork it left behind still holds stdout.
    if (pid !== undefined) group = await killProcessGroup(pid);
    const marker = env[RUN_MARKER_VARIABLE];
    const nothingLeft = ownPidNamespace && group !== undefined && group.killed.length === 0 && group.survivors.length === 0;
    if (group && marker && !nothingLeft) {
      const swept = await killMarkedProcesses(marker);
      group = { ...group, escaped: swept.killed, survivors: [...group.survivors, ...swept.survivors] };
    }
  }
  const { code, signal } = await exited;
  // stdout ends once every holder of the pipe is dead; bound the wait anyway.
  await Promise.race([child.catch(() => undefined), new Promise((r) => setTimeout(r, 2000))]);
  child.stdout.destroy();
  child.stderr.destroy();
  return {
    exitCode: code,
    signal,
    killedAfterMs,
    stderrTail: stderr.toString('utf8'),
    group,
    pid,
  };
}
