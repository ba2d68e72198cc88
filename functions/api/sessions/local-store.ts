/**
 * The local session store: `<dir>/<tenant>/<session>.json` (JUBE_R_SESSION_DIR), each file
 * `{"call": N, "snapshot": "<base64>"}` written to a temporary name and renamed, so a reader never
 * sees half a file; its mtime is the session's last use.
 */
import { mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { sessionObjectKey, type SessionStore } from './store.ts';

const FileSchema = z.strictObject({ call: z.number().int().min(0), snapshot: z.string() });

export function createLocalSessionStore(dir: string): SessionStore {
  const root = path.resolve(dir);
  const file = (tenant: string, session: string) => path.join(root, sessionObjectKey(tenant, session));
  return {
    async get(tenant, session) {
      try {
        const at = file(tenant, session);
        const [text, info] = await Promise.all([readFile(at, 'utf8'), stat(at)]);
        const parsed = FileSchema.safeParse(JSON.parse(text));
        return parsed.success ? { ...parsed.data, writtenAt: info.mtimeMs } : undefined;
      } catch {
        return undefined;
      }
    },
    async put(tenant, session, stored) {
      const at = file(tenant, session);
      await mkdir(path.dirname(at), { recursive: true, mode: 0o700 });
      const temporary = `${at}.${process.pid}.${Date.now()}.tmp`;
      await writeFile(temporary, JSON.stringify({ call: stored.call, snapshot: stored.snapshot }), { mode: 0o600 });
      await rename(temporary, at);
    },
    async delete(tenant, session) {
      try {
        await unlink(file(tenant, session));
        return true;
      } catch {
        return false;
      }
    },
  };
}
