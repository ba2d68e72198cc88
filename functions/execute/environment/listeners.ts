/**
 * TCP listeners in the environment's network namespace (/proc/net/tcp and tcp6), and who owns
 * them. A listener left by a run would answer the next run (or the handler) on loopback; its owner
 * is a process the sweep kills, so after a sweep the only listeners of the function's user left
 * must belong to the handler's chain. Sockets of other users (the platform's own servers in Lambda,
 * whose descriptors the function's user cannot inspect) and the Runtime API's port are not a run's.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';

export interface TcpListener {
  /** Host byte order is irrelevant here: only the port and the inode are compared. */
  readonly port: number;
  readonly address: string;
  readonly inode: number;
  /** The socket's owner, as the kernel lists it. */
  readonly uid: number;
}

/** LISTEN (state 0A) rows of a /proc/net/tcp{,6} table, pure. */
export function parseTcpListeners(text: string): TcpListener[] {
  return text
    .split('\n')
    .slice(1)
    .flatMap((line) => {
      const fields = line.trim().split(/\s+/);
      const [local, state, uid, inode] = [fields[1], fields[3], Number(fields[7]), Number(fields[9])];
      if (!local || state !== '0A' || !Number.isInteger(inode) || !Number.isInteger(uid)) return [];
      const [address, port] = local.split(':');
      return [{ address: address!, port: Number.parseInt(port ?? '', 16), inode, uid }];
    });
}

export async function tcpListeners(procRoot = '/proc'): Promise<TcpListener[]> {
  const tables = await Promise.all(['tcp', 'tcp6'].map((t) => readFile(`${procRoot}/net/${t}`, 'utf8').catch(() => '')));
  return tables.flatMap(parseTcpListeners);
}

/** The socket inodes `pids` hold open; an unreadable fd table contributes nothing. */
export async function socketInodes(pids: Iterable<number>, procRoot = '/proc'): Promise<Set<number>> {
  const inodes = new Set<number>();
  await Promise.all(
    [...pids].map(async (pid) => {
      const fds = await readdir(`${procRoot}/${pid}/fd`).catch(() => [] as string[]);
      await Promise.all(
        fds.map(async (fd) => {
          const target = await readlink(`${procRoot}/${pid}/fd/${fd}`).catch(() => '');
          const match = /^socket:\[(\d+)\]$/.exec(target);
          if (match) inodes.add(Number(match[1]));
        }),
      );
    }),
  );
  return inodes;
}

/**
 * Listeners of `uid` that are neither held by `keep` nor on the Runtime API's port: what a run
 * left. `runtimeApi` is AWS_LAMBDA_RUNTIME_API (host:port).
 */
export async function strayListeners(
  keep: Iterable<number>,
  runtimeApi: string | undefined,
  uid: number = process.getuid?.() ?? -1,
  procRoot = '/proc',
): Promise<TcpListener[]> {
  const listeners = (await tcpListeners(procRoot)).filter((l) => l.uid === uid);
  if (listeners.length === 0) return [];
  const held = await socketInodes(keep, procRoot);
  const apiPort = runtimeApi ? Number(runtimeApi.split(':').at(-1)) : undefined;
  return listeners.filter((l) => !held.has(l.inode) && l.port !== apiPort);
}
