/**
 * The Rscript runs as the leader of its own process group (spawned detached); everything it
 * forks inherits the group. After every run the handler kills the whole group and then checks,
 * by scanning /proc, that no member survived. A process that left the group (setsid) still
 * carries the run's marker in its environment, and is swept by that.
 */
import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** Parses /proc/<pid>/stat: the fields after the last ')' (the command name may hold anything). */
export function parseProcStat(text: string): { state: string; ppid: number; pgid: number } | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(' ');
  const [state, ppid, pgid] = [fields[0], Number(fields[1]), Number(fields[2])];
  if (state === undefined || !Number.isInteger(ppid) || !Number.isInteger(pgid)) return undefined;
  return { state, ppid, pgid };
}

export interface ProcEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
}

/** Every live (not zombie, not dead) process in /proc; empty where /proc cannot be read. */
export async function processTable(): Promise<ProcEntry[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const table: ProcEntry[] = [];
  await Promise.all(
    entries
      .filter((e) => /^\d+$/.test(e))
      .map(async (e) => {
        // Empty when the process ended between readdir and readFile.
        const stat = parseProcStat(await readFile(`/proc/${e}/stat`, 'utf8').catch(() => ''));
        if (stat && stat.state !== 'Z' && stat.state !== 'X') table.push({ pid: Number(e), ppid: stat.ppid, pgid: stat.pgid });
      }),
  );
  return table;
}

/** Live pids whose process group is `pgid`. */
export async function groupMembers(pgid: number): Promise<number[]> {
  return (await processTable())
    .filter((p) => p.pgid === pgid)
    .map((p) => p.pid)
    .sort((a, b) => a - b);
}

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is already empty
  }
}

export interface GroupKillReport {
  readonly pgid: number;
  /** Members alive before the kill (the runner itself if it was still running, forks). */
  readonly killed: readonly number[];
  /** Members still alive afterwards; anything here is a containment failure and is logged. */
  readonly survivors: readonly number[];
  /** Processes of the run that had left the group (found by the run marker) and were killed. */
  readonly escaped?: readonly number[];
}

/** SIGTERM the group, SIGKILL whatever is left after `termGraceMs`, then verify it is empty. */
export async function killProcessGroup(pgid: number, termGraceMs = 200): Promise<GroupKillReport> {
  // The common case, a run that left nothing behind: the kernel says the group is empty, no scan needed.
  if (!signalGroup(pgid, 0)) return { pgid, killed: [], survivors: [] };
  const before = await groupMembers(pgid);
  // Only zombies, which the kernel still counts as members (bubblewrap's inner process, reparented
  // to an init that has not reaped it yet): nothing alive is left to kill or to fork, no second scan.
  if (before.length === 0) return { pgid, killed: [], survivors: [] };
  if (before.length > 0 && signalGroup(pgid, 'SIGTERM')) {
    const until = Date.now() + termGraceMs;
    while (Date.now() < until && (await groupMembers(pgid)).length > 0) await sleep(20);
  }
  signalGroup(pgid, 'SIGKILL');
  let survivors = await groupMembers(pgid);
  // SIGKILL is not instant for a process in uninterruptible sleep; give the kernel a moment.
  for (let i = 0; i < 50 && survivors.length > 0; i += 1) {
    await sleep(20);
    signalGroup(pgid, 'SIGKILL');
    survivors = await groupMembers(pgid);
  }
  return { pgid, killed: before, survivors };
}

/** The environment entry every process of one run inherits; see killMarkedProcesses. */
export const RUN_MARKER_VARIABLE = 'JUBE_R_RUN';

/** Live pids whose initial environment holds exactly `RUN_MARKER_VARIABLE=marker`. */
export async function markedProcesses(marker: string): Promise<number[]> {
  const needle = Buffer.from(`\0${RUN_MARKER_VARIABLE}=${marker}\0`);
  // Every run pays this scan, so it reads environ only: a zombie's environ is empty, no stat needed.
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const pids = await Promise.all(
    entries.filter((e) => /^\d+$/.test(e)).map(async (e) => {
      // Unreadable (another user, gone, non-dumpable) means it is not one of ours.
      const environ = await readFile(`/proc/${e}/environ`).catch(() => undefined);
      return environ && Buffer.concat([Buffer.from([0]), environ]).includes(needle) ? Number(e) : undefined;
    }),
  );
  return pids.filter((pid): pid is number => pid !== undefined).sort((a, b) => a - b);
}

/**
 * SIGKILLs every process still carrying this run's marker: what left the process group (setsid,
 * a double fork into a new session) and so escaped killProcessGroup. Returns what it killed and
 * what it could not.
 */
export async function killMarkedProcesses(marker: string): Promise<{ killed: number[]; survivors: number[] }> {
  const killed = await markedProcesses(marker);
  for (const pid of killed) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ESRCH: already gone
    }
  }
  let survivors = killed.length > 0 ? await markedProcesses(marker) : [];
  for (let i = 0; i < 50 && survivors.length > 0; i += 1) {
    await sleep(20);
    survivors = await markedProcesses(marker);
  }
  return { killed, survivors };
}
