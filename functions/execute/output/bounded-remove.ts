/**
 * Removes a directory tree a script owned, bounded in time and in the handler's memory: each
 * directory is read as a stream (opendir), a batch at a time, and removed depth-first with an
 * explicit stack, so 600,000 files cost neither 600,000 names in memory nor a wait past the
 * deadline. Directories the script made unreadable to their owner are opened up again (chmod).
 * Names are Buffers, so a name that is not UTF-8 is removed, not mistaken for another.
 */
import { constants } from 'node:fs';
import { chmod, opendir, rmdir, unlink } from 'node:fs/promises';

export type RemoveOutcome = 'removed' | 'deadline' | 'failed';

const BATCH = 256;

const join = (dir: Buffer, name: Buffer): Buffer => Buffer.concat([dir, Buffer.from('/'), name]);
const code = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

async function openDir(path: Buffer) {
  try {
    return await opendir(path as unknown as string, { encoding: 'buffer' as BufferEncoding, bufferSize: BATCH });
  } catch (error) {
    if (code(error) === 'ENOENT' || code(error) === 'ENOTDIR') return undefined;
    if (code(error) !== 'EACCES' && code(error) !== 'EPERM') throw error;
    await chmod(path, constants.S_IRWXU);
    return opendir(path as unknown as string, { encoding: 'buffer' as BufferEncoding, bufferSize: BATCH });
  }
}

/**
 * Removes `root` (a directory, or nothing) before `deadline` (epoch ms). 'deadline': it stopped
 * with part of the tree left; 'failed': something could not be removed.
 */
export async function removeTree(root: string, deadline: number, now: () => number = Date.now): Promise<RemoveOutcome> {
  const stack: Buffer[] = [Buffer.from(root)];
  try {
    while (stack.length > 0) {
      if (now() >= deadline) return 'deadline';
      const dir = stack.at(-1)!;
      const handle = await openDir(dir);
      if (!handle) {
        stack.pop();
        continue;
      }
      let descended = false;
      let removedAny = false;
      try {
        for (;;) {
          const batch: Promise<void>[] = [];
          for (let i = 0; i < BATCH; i += 1) {
            const entry = (await handle.read()) as unknown as { name: Buffer; isDirectory(): boolean } | null;
            if (!entry) break;
            const path = join(dir, entry.name);
            if (entry.isDirectory()) {
              stack.push(path);
              descended = true;
              break;
            }
            batch.push(unlink(path));
          }
          if (batch.length > 0) {
            const results = await Promise.allSettled(batch);
            const denied = results.some((r) => r.status === 'rejected' && (code(r.reason) === 'EACCES' || code(r.reason) === 'EPERM'));
            // A directory the script made unwritable: open it up; the entries go on the next read.
            if (denied) await chmod(dir, constants.S_IRWXU);
            else if (results.some((r) => r.status === 'rejected' && code(r.reason) !== 'ENOENT')) return 'failed';
            removedAny = true;
          }
          if (descended || batch.length < BATCH || now() >= deadline) break;
        }
      } finally {
        await handle.close().catch(() => undefined);
      }
      if (descended || now() >= deadline) continue;
      try {
        await rmdir(dir);
        stack.pop();
      } catch (error) {
        // Entries removed while the stream was open may have hidden others: read it again.
        if (code(error) === 'ENOENT') stack.pop();
        else if (code(error) !== 'ENOTEMPTY' || !removedAny) return 'failed';
      }
    }
    return 'removed';
  } catch (error) {
    return code(error) === 'ENOENT' ? 'removed' : 'failed';
  }
}
