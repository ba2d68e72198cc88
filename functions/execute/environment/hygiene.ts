/**
 * After every run, whatever happened (docs/threat-model.md, "handler hygiene"): inside the image,
 * where the runtime and its handler are the only legitimate processes, every other process is
 * killed and checked gone, and every writable place outside the handler's own is emptied, so the
 * next run in the same execution environment finds no process and no file of this one. A failure
 * of either retires the environment (handler.ts).
 */
import { chmod, lstat, opendir, readdir, readFile, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { removeTree } from '../output/bounded-remove.ts';
import { parseProcStat, processTable } from '../run/process-group.ts';

/** `pid` and its ancestors up to the kernel's: the processes a sweep must never touch. */
export async function ancestry(pid: number = process.pid): Promise<Set<number>> {
  const chain = new Set<number>();
  for (let current = pid; current > 0 && !chain.has(current); ) {
    chain.add(current);
    const stat = parseProcStat(await readFile(`/proc/${current}/stat`, 'utf8').catch(() => ''));
    if (!stat) break;
    current = stat.ppid;
  }
  return chain;
}

export interface SweepReport {
  readonly killed: readonly number[];
  /** Still alive after SIGKILL and a grace period: the environment is not clean. */
  readonly survivors: readonly number[];
}

/** The real uid in /proc/<pid>/status (readable even for a non-dumpable process); undefined when gone. */
export async function processUid(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
  return uid === undefined ? undefined : Number(uid);
}

/**
 * SIGKILLs every live process of `uid` except `self` and its ancestors (and whatever `spare`
 * names), then waits until none is left. Only for an environment with no other tenant of its own:
 * the image. A process that left the group with setsid and a cleaned environment is found here as
 * well. Another user's process (the platform's, in Lambda) cannot be a run's: nothing in the image
 * changes uid (no setuid file, no capability), so it is neither killed nor counted.
 */
export async function sweepEnvironment(
  self: number = process.pid,
  spare: ReadonlySet<number> = new Set(),
  uid: number | undefined = process.getuid?.(),
): Promise<SweepReport> {
  const keep = new Set([...(await ancestry(self)), ...spare]);
  const ours = async (pid: number) => uid === undefined || (await processUid(pid)) === uid;
  const strangers = async () => {
    const others = (await processTable()).map((p) => p.pid).filter((pid) => !keep.has(pid));
    const owned = await Promise.all(others.map(ours));
    return others.filter((_, i) => owned[i]);
  };
  const killed = await strangers();
  for (const pid of killed) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ESRCH: gone already; EPERM: reported below as a survivor.
    }
  }
  let survivors = killed.length > 0 ? await strangers() : [];
  for (let i = 0; i < 50 && survivors.length > 0; i += 1) {
    await sleep(20);
    for (const pid of survivors) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // as above
      }
    }
    survivors = await strangers();
  }
  return { killed, survivors };
}

export interface WipeReport {
  /** Entries removed, as paths: the first WIPE_REPORT_NAMES of them (a run may leave 600,000). */
  readonly removed: readonly string[];
  /** How many entries were removed in all. */
  readonly removedCount: number;
  /** Entries that could not be removed (the first WIPE_REPORT_NAMES): the environment is not clean. */
  readonly failures: readonly string[];
  /** Entries that could not be removed, in all. */
  readonly failureCount: number;
  /** The wipe stopped at its deadline, with entries left. */
  readonly deadline?: true;
}

/** Names a wipe report keeps, whatever was left: the report goes into logs and responses. */
export const WIPE_REPORT_NAMES = 20;
/** A wipe gives up after this long; what is left makes the environment not clean. */
export const WIPE_MAX_MS = 20_000;

/**
 * Empties each directory (the directories themselves stay); a missing directory is already empty.
 * An entry on another filesystem is a mount the environment was given (a read-only data dir under
 * /tmp in the local container runtime), not something a run wrote: it stays. Whatever a script
 * left there is hostile: each directory is read as a stream and each tree removed a batch at a time
 * (bounded-remove.ts), so neither the count of entries nor their depth grows the handler's memory,
 * and the whole wipe stops at `deadline`.
 */
export async function wipeDirectories(
  dirs: readonly string[],
  deadline: number = Date.now() + WIPE_MAX_MS,
  /** Left in place, with the directories on the way to them (an idle warm runner's workdir). */
  spare: readonly string[] = [],
): Promise<WipeReport> {
  const removed: string[] = [];
  const failures: string[] = [];
  let removedCount = 0;
  let failureCount = 0;
  const note = (list: string[], path: string) => void (list.length < WIPE_REPORT_NAMES && list.push(path));
  const queue = [...dirs];
  for (let dir = queue.shift(); dir !== undefined; dir = queue.shift()) {
    const device = (await lstat(dir).catch(() => undefined))?.dev;
    const handle = await opendir(dir, { bufferSize: 256 }).catch(() => undefined);
    if (!handle) continue;
    try {
      for await (const entry of handle) {
        if (Date.now() >= deadline) return { removed, removedCount, failures, failureCount, deadline: true };
        const path = join(dir, entry.name);
        if (spare.includes(path)) continue;
        if (entry.isDirectory() && spare.some((kept) => kept.startsWith(`${path}/`))) {
          queue.push(path);
          continue;
        }
        if (entry.isDirectory()) {
          if ((await lstat(path).catch(() => undefined))?.dev !== device) continue;
          const outcome = await removeTree(path, deadline);
          if (outcome === 'deadline') return { removed, removedCount, failures, failureCount, deadline: true };
          if (outcome === 'removed') (removedCount += 1), note(removed, path);
          else (failureCount += 1), note(failures, path);
        } else if (await unlink(path).then(() => true, (e: NodeJS.ErrnoException) => e.code === 'ENOENT')) {
          removedCount += 1;
          note(removed, path);
        } else {
          failureCount += 1;
          note(failures, path);
        }
      }
    } catch {
      // The directory itself went away or became unreadable mid-read: what is left shows next time.
      failureCount += 1;
      note(failures, dir);
    }
  }
  return { removed, removedCount, failures, failureCount };
}

/** What a wipe left, for a problem line: a few names and the count, never what the files held. */
export function wipeProblem(report: WipeReport, what = ''): string | undefined {
  if (report.deadline) return `${what}entries are left: the wipe stopped at its deadline (at most ${WIPE_MAX_MS} ms)`;
  if (report.failureCount === 0) return undefined;
  const more = report.failureCount - report.failures.length;
  return `${what}${[...report.failures, ...(more > 0 ? [`${more} more`] : [])].join(', ')} could not be removed`;
}

/**
 * rm -rf that also gets through directories a script made unreadable or unwritable to their owner
 * (chmod 000 would otherwise make a workdir outlive its run). Returns whether `path` is gone.
 */
export async function forceRemove(path: string): Promise<boolean> {
  try {
    await rm(path, { recursive: true, force: true, maxRetries: 2 });
    return true;
  } catch {
    await restoreOwnerAccess(path);
    try {
      await rm(path, { recursive: true, force: true, maxRetries: 2 });
      return true;
    } catch {
      return false;
    }
  }
}

async function restoreOwnerAccess(path: string): Promise<void> {
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isDirectory()) return;
  await chmod(path, 0o700).catch(() => undefined);
  const entries = await readdir(path).catch(() => [] as string[]);
  for (const entry of entries) await restoreOwnerAccess(join(path, entry));
}
