/**
 * Finds every process group this process started (its descendants that lead their own group,
 * as the execute handler's detached Rscript does) so the local stack can kill them on shutdown
 * without knowing how the execute handler keeps track of its children.
 */
import { killProcessGroup, processTable, type GroupKillReport, type ProcEntry } from '../../execute/run/process-group.ts';

/** Process groups of `root`'s descendants other than `root`'s own group. */
export async function descendantGroups(root: number = process.pid): Promise<number[]> {
  const table = await processTable();
  const own = table.find((p) => p.pid === root)?.pgid;
  const children = new Map<number, ProcEntry[]>();
  for (const p of table) (children.get(p.ppid) ?? children.set(p.ppid, []).get(p.ppid)!).push(p);
  const groups = new Set<number>();
  const stack = [...(children.get(root) ?? [])];
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (p.pgid !== own) groups.add(p.pgid);
    stack.push(...(children.get(p.pid) ?? []));
  }
  return [...groups];
}

/** Kills every descendant process group (SIGTERM, then SIGKILL) and reports what it found. */
export async function killDescendantGroups(root: number = process.pid): Promise<GroupKillReport[]> {
  return Promise.all((await descendantGroups(root)).map((pgid) => killProcessGroup(pgid)));
}
