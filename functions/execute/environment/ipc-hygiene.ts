/**
 * Kernel objects that outlive every process of a run: System V message queues, semaphore sets and
 * shared memory segments live as long as the IPC namespace (in Lambda, the microVM), so a group
 * kill, the environment sweep and the /tmp wipe all leave them for the next run. The kernel lists
 * them in /proc/sysvipc; Node has no msgctl/semctl/shmctl binding, so removal spawns util-linux's
 * `ipcrm` (already in the image beside `prlimit`), once, and only when there is something to remove.
 * POSIX message queues are files of the mqueue filesystem where it is mounted (/dev/mqueue); where
 * it is not, nothing in user space can list them (docs/threat-model.md says so).
 */
import { readFile } from 'node:fs/promises';
import { execa } from 'execa';

export type SysvKind = 'msg' | 'sem' | 'shm';
export const SYSV_KINDS: readonly SysvKind[] = ['msg', 'sem', 'shm'];

export interface SysvObject {
  readonly kind: SysvKind;
  readonly id: number;
  readonly key: number;
  /** Owner and creator: IPC_SET lets an owner hand `uid` away, never `cuid`. */
  readonly uid: number;
  readonly cuid: number;
}

const ID_COLUMN: Record<SysvKind, string> = { msg: 'msqid', sem: 'semid', shm: 'shmid' };
/** ipcrm's option per kind: -q queue, -s semaphore set, -m shared memory segment. */
const IPCRM_FLAG: Record<SysvKind, string> = { msg: '-q', sem: '-s', shm: '-m' };

/** Parses one /proc/sysvipc/<kind> table by its header (the column sets differ per kind). */
export function parseSysvTable(kind: SysvKind, text: string): SysvObject[] {
  const [header, ...rows] = text.split('\n').filter((line) => line.trim().length > 0);
  if (!header) return [];
  const columns = header.trim().split(/\s+/);
  const at = (name: string) => columns.indexOf(name);
  const [key, id, uid, cuid] = [at('key'), at(ID_COLUMN[kind]), at('uid'), at('cuid')];
  if (key < 0 || id < 0 || uid < 0 || cuid < 0) return [];
  return rows.flatMap((row) => {
    const fields = row.trim().split(/\s+/).map(Number);
    const object = { kind, key: fields[key]!, id: fields[id]!, uid: fields[uid]!, cuid: fields[cuid]! };
    return [object.key, object.id, object.uid, object.cuid].every(Number.isInteger) ? [object] : [];
  });
}

/** Every SysV IPC object the kernel lists; a table that cannot be read (no /proc) is empty. */
export async function listSysvObjects(procRoot = '/proc'): Promise<SysvObject[]> {
  const tables = await Promise.all(
    SYSV_KINDS.map(async (kind) => parseSysvTable(kind, await readFile(`${procRoot}/sysvipc/${kind}`, 'utf8').catch(() => ''))),
  );
  return tables.flat();
}

/** Whether `uid` may remove it (as owner or creator): everything a script running as `uid` made. */
export const ownedBy = (uid: number) => (object: SysvObject): boolean => object.uid === uid || object.cuid === uid;

/** ipcrm's arguments for these objects, pure. */
export function ipcrmArgs(objects: readonly SysvObject[]): string[] {
  return objects.flatMap((o) => [IPCRM_FLAG[o.kind], String(o.id)]);
}

export interface SysvReport {
  readonly removed: readonly SysvObject[];
  /** Still listed afterwards: the environment is not clean. */
  readonly remaining: readonly SysvObject[];
}

export interface SysvCleanOptions {
  /** Which objects are this environment's to remove (default: those the handler's user owns or made). */
  readonly select?: (object: SysvObject) => boolean;
  readonly ipcrm?: string;
  readonly procRoot?: string;
}

/**
 * Removes the selected objects (IPC_RMID through ipcrm) and checks they are gone. A segment still
 * attached is only marked and stays listed until its last process detaches: the caller sweeps the
 * processes first, so a remaining one is a real failure.
 */
export async function cleanSysvIpc(options: SysvCleanOptions = {}): Promise<SysvReport> {
  const select = options.select ?? ownedBy(process.getuid?.() ?? -1);
  const found = (await listSysvObjects(options.procRoot)).filter(select);
  if (found.length === 0) return { removed: [], remaining: [] };
  // One process for all: its failures (an id already gone, EPERM) are judged by the re-read.
  await execa(options.ipcrm ?? 'ipcrm', ipcrmArgs(found), { reject: false, stdin: 'ignore', extendEnv: false, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' } });
  const same = (a: SysvObject, b: SysvObject) => a.kind === b.kind && a.id === b.id;
  // Anything selected that is listed now counts, a new one too: nothing of a run may be left to make it.
  const remaining = (await listSysvObjects(options.procRoot)).filter(select);
  return { removed: found.filter((f) => !remaining.some((r) => same(f, r))), remaining };
}
