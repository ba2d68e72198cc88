/**
 * The files a script wrote to out/ in its workdir, returned as `files`: plain names (the top level
 * of out/ only), regular files only (a symlink is listed as skipped, never followed), at most
 * maxCount files and maxBytes bytes per run (before base64). What does not fit is listed with
 * `truncated`, so the caller knows it exists. out/ is read as a stream and at most maxEntries
 * entries are looked at; a name that is not UTF-8 is reported in a note, never returned under
 * another name.
 */
import { createHash } from 'node:crypto';
import { extname } from 'node:path';
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import type { OutputFile } from '../../../layers/contract/execute.ts';
import type { PostRunBudget } from './post-run-budget.ts';
import { entryPath, listDirectory, readRegularFile, type EntryKind } from './safe-read.ts';

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

export async function collectOutFiles(
  root: string,
  dir: string,
  caps: ServiceConfig['files'],
  budget?: PostRunBudget,
): Promise<CollectedFiles> {
  const listing = (await listDirectory(root, dir, caps.maxEntries)) ?? { entries: [], more: false };
  const files: OutputFile[] = [];
  let returned = 0;
  let bytes = 0;
  let overCap = 0;
  let badNames = 0;
  let unread = 0;
  for (const entry of listing.entries) {
    if (!entry.validName) {
      badNames += 1;
      continue;
    }
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
    if (budget?.expired()) {
      budget.stop('out/ files');
      files.push({ name: entry.name, mimeType, bytes: entry.bytes, truncated: true });
      unread += 1;
      continue;
    }
    const data = await readRegularFile(entryPath(dir, entry), caps.maxBytes - bytes);
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
        `${caps.maxBytes} bytes per run (GET /health?detail=full limits.maxFiles, limits.maxFilesBytes)`,
    );
  }
  if (badNames > 0) notes.push(`${badNames} entry(ies) in out/ have a name that is not valid UTF-8 and were not returned; use UTF-8 file names`);
  if (listing.more) notes.push(`out/ holds more than ${caps.maxEntries} entries; only the first ${caps.maxEntries} were looked at (GET /health?detail=full limits.maxOutEntries)`);
  return { files, notes, truncated: overCap > 0 || unread > 0 || badNames > 0 || listing.more };
}
