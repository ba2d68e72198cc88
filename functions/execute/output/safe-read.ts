/**
 * Reading back what a script left in its workdir, without trusting it: the script owned those
 * directories, so any name may be a symlink (to the handler's /proc/self/environ, say), a FIFO
 * that would block an open, or a directory. Nothing here follows a link: every directory on the
 * way is lstat'ed, and files are opened with O_NOFOLLOW and checked again on the open descriptor.
 * Called only after the run's process group and marked processes are gone and, in the image, after
 * the environment-wide kill (run-in-workdir.ts, `beforeReading`), so nothing changes underneath.
 * Where that kill is not used (the host), a survivor that shed the run's marker could still write,
 * which the checks above keep to the workdir's own files.
 */
import { constants } from 'node:fs';
import { lstat, open, opendir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

export type EntryKind = 'file' | 'symlink' | 'directory' | 'other';

export interface DirectoryEntry {
  /** The name as text; for a name that is not UTF-8, a lossy rendering never used as a path. */
  readonly name: string;
  /** The name's bytes, the only thing the entry is opened by. */
  readonly rawName: Buffer;
  /** Whether the name is valid UTF-8 (a caller reports the others as such). */
  readonly validName: boolean;
  readonly kind: EntryKind;
  /** lstat's size: for a file its length, for anything else meaningless. */
  readonly bytes: number;
}

export interface DirectoryListing {
  /** At most maxEntries entries, sorted by name (bytes). */
  readonly entries: DirectoryEntry[];
  /** The directory holds more than maxEntries entries; how many more is not counted. */
  readonly more: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
function decodeName(raw: Buffer): { name: string; valid: boolean } {
  try {
    return { name: utf8.decode(raw), valid: true };
  } catch {
    return { name: raw.toString('utf8'), valid: false };
  }
}

/**
 * The entries of `dir` (which must lie under `root`); undefined when `dir`, or any directory
 * between `root` and it, is missing or not a real directory. The directory is read as a stream
 * and reading stops after maxEntries + 1 entries, so neither the handler's memory nor its time
 * grows with what the script left there; only the entries kept are lstat'ed.
 */
export async function listDirectory(root: string, dir: string, maxEntries = Number.POSITIVE_INFINITY): Promise<DirectoryListing | undefined> {
  const steps = relative(root, dir).split(sep).filter(Boolean);
  if (steps.includes('..')) return undefined;
  let at = root;
  for (const step of steps) {
    at = join(at, step);
    const info = await lstat(at).catch(() => undefined);
    if (!info?.isDirectory()) return undefined;
  }
  const handle = await opendir(dir, { encoding: 'buffer' as BufferEncoding, bufferSize: 64 }).catch(() => undefined);
  if (!handle) return undefined;
  const names: Buffer[] = [];
  let more = false;
  try {
    for (;;) {
      const entry = (await handle.read()) as unknown as { name: Buffer } | null;
      if (!entry) break;
      if (names.length >= maxEntries) {
        more = true;
        break;
      }
      names.push(entry.name);
    }
  } catch {
    // A directory that fails midway is listed as far as it could be read.
  } finally {
    await handle.close().catch(() => undefined);
  }
  names.sort(Buffer.compare);
  const base = Buffer.from(`${dir}/`);
  const entries = await Promise.all(
    names.map(async (rawName): Promise<DirectoryEntry> => {
      const info = await lstat(Buffer.concat([base, rawName])).catch(() => undefined);
      const kind: EntryKind = !info ? 'other' : info.isSymbolicLink() ? 'symlink' : info.isDirectory() ? 'directory' : info.isFile() ? 'file' : 'other';
      const { name, valid } = decodeName(rawName);
      return { name, rawName, validName: valid, kind, bytes: info?.size ?? 0 };
    }),
  );
  return { entries, more };
}

/** The path of an entry of `dir`, by its bytes. */
export const entryPath = (dir: string, entry: Pick<DirectoryEntry, 'rawName'>): Buffer => Buffer.concat([Buffer.from(`${dir}/`), entry.rawName]);

/**
 * A regular file's bytes if it is one and at most `maxBytes` long (and, when given, exactly
 * `expectedBytes` long: a page the runner recorded at that size); undefined otherwise.
 */
export async function readRegularFile(path: string | Buffer, maxBytes: number, expectedBytes?: number): Promise<Buffer | undefined> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return undefined;
    if (expectedBytes !== undefined && info.size !== expectedBytes) return undefined;
    const buf = Buffer.alloc(info.size);
    const { bytesRead } = await handle.read(buf, 0, info.size, 0);
    return bytesRead === info.size ? buf : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
