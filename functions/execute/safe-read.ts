/**
 * Reading back what a script left in its workdir, without trusting it: the script owned those
 * directories, so any name may be a symlink (to the handler's /proc/self/environ, say), a FIFO
 * that would block an open, or a directory. Nothing here follows a link: every directory on the
 * way is lstat'ed, and files are opened with O_NOFOLLOW and checked again on the open descriptor.
 * Called only after the process group is gone, so nothing changes underneath.
 */
import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

export type EntryKind = 'file' | 'symlink' | 'directory' | 'other';

export interface DirectoryEntry {
  readonly name: string;
  readonly kind: EntryKind;
  /** lstat's size: for a file its length, for anything else meaningless. */
  readonly bytes: number;
}

/**
 * The entries of `dir` (which must lie under `root`), sorted by name; undefined when `dir`, or
 * any directory between `root` and it, is missing or not a real directory.
 */
export async function listDirectory(root: string, dir: string): Promise<DirectoryEntry[] | undefined> {
  const steps = relative(root, dir).split(sep).filter(Boolean);
  if (steps.includes('..')) return undefined;
  let at = root;
  for (const step of steps) {
    at = join(at, step);
    const info = await lstat(at).catch(() => undefined);
    if (!info?.isDirectory()) return undefined;
  }
  const names = await readdir(dir).catch(() => undefined);
  if (!names) return undefined;
  const entries = await Promise.all(
    names.sort().map(async (name): Promise<DirectoryEntry> => {
      const info = await lstat(join(dir, name)).catch(() => undefined);
      const kind: EntryKind = !info ? 'other' : info.isSymbolicLink() ? 'symlink' : info.isDirectory() ? 'directory' : info.isFile() ? 'file' : 'other';
      return { name, kind, bytes: info?.size ?? 0 };
    }),
  );
  return entries;
}

/** A regular file's bytes if it is one and at most `maxBytes` long; undefined otherwise. */
export async function readRegularFile(path: string, maxBytes: number): Promise<Buffer | undefined> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return undefined;
    const buf = Buffer.alloc(info.size);
    const { bytesRead } = await handle.read(buf, 0, info.size, 0);
    return bytesRead === info.size ? buf : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
