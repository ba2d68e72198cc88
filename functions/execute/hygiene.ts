/**
 * After every run, whatever happened (docs/threat-model.md, "handler hygiene"): inside the image,
 * where the runtime and its handler are the only legitimate processes, every other process is
 * killed and checked gone, and every writable place outside the handler's own is emptied, so the
 * next run in the same execution environment finds no process and no file of this one. A failure
 * of either retires the environment (handler.ts).
 */
import { lstat, readdir, readFile, rm, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseProcStat, processTable } from './process-group.ts';

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
  /** Entries removed, as paths. */
  readonly removed: readonly string[];
  /** Entries that could not be removed: the environment is not clean. */
  readonly failures: readonly string[];
}

/**
 * Empties each directory (the directories themselves stay); a missing directory is already empty.
 * An entry on another filesystem is a mount the environment was given (a read-only data dir under
 * /tmp in the local container runtime), not something a run wrote: it stays.
 */
export async function wipeDirectories(dirs: readonly string[]): Promise<WipeReport> {
  const removed: string[] = [];
  const failures: string[] = [];
  for (const dir of dirs) {
    const device = (await lstat(dir).catch(() => undefined))?.dev;
    const entries = await readdir(dir).catch(() => [] as string[]);
    for (const entry of entries) {
      const path = join(dir, entry);
      const info = await lstat(path).catch(() => undefined);
      if (info?.isDirectory() && info.dev !== device) continue;
      if (await forceRemove(path)) removed.push(path);
      else failures.push(path);
    }
  }
  return { removed, failures };
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
