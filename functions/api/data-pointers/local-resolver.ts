/**
 * The local store: `<dir>/<tenant>/<pointer>.csv` or `<pointer>.csv.gz` (JUBE_R_DATA_DIR, relative
 * to the working directory). A pointer's file must really be inside its tenant's directory after
 * every symlink is followed, and must be a regular file (not a directory, FIFO or device, which
 * would hang or mislead the reader).
 */
import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { POINTER_SUFFIXES } from './pointer.ts';
import type { LocatedTable, PointerStore } from './types.ts';

export function createLocalPointerStore(dataDir: string): PointerStore {
  const root = path.resolve(dataDir);
  return {
    kind: 'local',
    async locate(tenant, pointer) {
      try {
        return await locateIn(path.join(root, tenant), pointer);
      } catch {
        return undefined;
      }
    },
  };
}

async function locateIn(tenantDir: string, pointer: string): Promise<LocatedTable | undefined> {
  const tenantRoot = await realpath(tenantDir);
  // The first name that exists decides: a `.csv` that is refused does not fall through to `.csv.gz`.
  for (const { suffix, gzip } of POINTER_SUFFIXES) {
    const candidate = path.join(tenantDir, `${pointer}${suffix}`);
    if (!(await exists(candidate))) continue;
    const real = await realpath(candidate);
    if (!real.startsWith(tenantRoot + path.sep)) return undefined;
    const info = await stat(real);
    if (!info.isFile()) return undefined;
    // The real path, not the pointer's name, so a later symlink swap cannot redirect the read.
    return { source: { kind: 'file', path: real, gzip }, bytes: info.size };
  }
  return undefined;
}

async function exists(candidate: string): Promise<boolean> {
  try {
    await lstat(candidate);
    return true;
  } catch {
    return false;
  }
}
