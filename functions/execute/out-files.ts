/**
 * The files a script wrote to out/ in its workdir, returned as `files`: plain names (the top level
 * of out/ only), regular files only (a symlink is listed as skipped, never followed), at most
 * maxCount files and maxBytes bytes per run (before base64). What does not fit is listed with
 * `truncated`, so the caller knows it exists.
 */
import { createHash } from 'node:crypto';
import { extname, join } from 'node:path';
import type { ServiceConfig } from '../../layers/config/service-config.ts';
import type { OutputFile } from '../../layers/contract/execute.ts';
import { listDirectory, readRegularFile, type EntryKind } from './safe-read.ts';

/** Entries of out/ listed at most; beyond this a note only counts them. */
export const MAX_LISTED_FILES = 100;

const MIME_TYPES: Readonly<Record<string, string>> = {
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.log': 'text/plain',
  '.json': 'application/json',
  '.geojson': 'application/geo+json',
  '.html': 'text/html',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
  '.R': 'text/x-r',
  '.r': 'text/x-r',
};

export function mimeTypeOf(name: string): string {
  return MIME_TYPES[extname(name)] ?? MIME_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

const SKIPPED: Readonly<Record<Exclude<EntryKind, 'file'>, NonNullable<OutputFile['skipped']>>> = {
  symlink: 'symlink',
  directory: 'directory',
  other: 'not-a-regular-file',
};

export interface CollectedFiles {
  readonly files: OutputFile[];
  readonly notes: string[];
  /** Some file did not fit the caps, or was not even listed. */
  readonly truncated: boolean;
}

export async function collectOutFiles(root: string, dir: string, caps: ServiceConfig['files']): Promise<CollectedFiles> {
  const entries = (await listDirectory(root, dir)) ?? [];
  const files: OutputFile[] = [];
  let returned = 0;
  let bytes = 0;
  let overCap = 0;
  for (const entry of entries.slice(0, MAX_LISTED_FILES)) {
    const mimeType = mimeTypeOf(entry.name);
    if (entry.kind !== 'file') {
      files.push({ name: entry.name, mimeType, skipped: SKIPPED[entry.kind] });
      continue;
    }
    if (returned >= caps.maxCount || bytes + entry.bytes > caps.maxBytes) {
      files.push({ name: entry.name, mimeType, bytes: entry.bytes, truncated: true });
      overCap += 1;
      continue;
    }
    const data = await readRegularFile(join(dir, entry.name), caps.maxBytes - bytes);
    if (data === undefined) {
      files.push({ name: entry.name, mimeType, skipped: 'unreadable' });
      continue;
    }
    const sha256 = createHash('sha256').update(data).digest('hex');
    files.push({ name: entry.name, mimeType, bytes: data.length, sha256, data: data.toString('base64') });
    returned += 1;
    bytes += data.length;
  }
  const notes: string[] = [];
  if (overCap > 0) {
    notes.push(
      `${overCap} file(s) in out/ were not returned (listed with truncated: true): at most ${caps.maxCount} files and ` +
        `${caps.maxBytes} bytes per run (GET /health limits.maxFiles, limits.maxFilesBytes)`,
    );
  }
  const unlisted = entries.length - MAX_LISTED_FILES;
  if (unlisted > 0) notes.push(`${unlisted} more entries in out/ were not listed (at most ${MAX_LISTED_FILES} are)`);
  return { files, notes, truncated: overCap > 0 || unlisted > 0 };
}
