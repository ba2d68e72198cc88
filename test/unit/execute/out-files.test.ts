/**
 * out-files.ts and safe-read.ts on a real directory: a script's out/ may hold links, FIFOs and
 * directories; none is followed, opened or walked, and the caps hold at their edges.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectOutFiles, mimeTypeOf } from '../../../functions/execute/output/out-files.ts';
import { listDirectory, readRegularFile } from '../../../functions/execute/output/safe-read.ts';

let root: string;
let out: string;
const MAX_ENTRIES = 100;
const caps = { maxCount: 10, maxBytes: 1024, maxEntries: MAX_ENTRIES };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jube-r-out-'));
  out = join(root, 'out');
  mkdirSync(out);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('collectOutFiles', () => {
  it('returns regular files by plain name, sorted, with type, size, sha256 and base64 data', async () => {
    writeFileSync(join(out, 'b.json'), '{"a":1}');
    writeFileSync(join(out, 'a.csv'), 'x\n1\n');
    const { files, truncated } = await collectOutFiles(root, out, caps);
    expect(files).toEqual([
      { name: 'a.csv', mimeType: 'text/csv', bytes: 4, sha256: createHash('sha256').update('x\n1\n').digest('hex'), data: Buffer.from('x\n1\n').toString('base64') },
      { name: 'b.json', mimeType: 'application/json', bytes: 7, sha256: createHash('sha256').update('{"a":1}').digest('hex'), data: Buffer.from('{"a":1}').toString('base64') },
    ]);
    expect(truncated).toBe(false);
  });

  it('lists a symlink as skipped and never reads through it, whatever it points at', async () => {
    writeFileSync(join(root, 'secret'), 'do not return');
    symlinkSync(join(root, 'secret'), join(out, 'link.txt'));
    symlinkSync('/proc/self/environ', join(out, 'environ'));
    const { files } = await collectOutFiles(root, out, caps);
    expect(files).toEqual([
      { name: 'environ', mimeType: 'application/octet-stream', skipped: 'symlink' },
      { name: 'link.txt', mimeType: 'text/plain', skipped: 'symlink' },
    ]);
  });

  it('lists a FIFO as not a regular file without opening it (an open would block)', async () => {
    execFileSync('mkfifo', [join(out, 'pipe')]);
    const { files } = await collectOutFiles(root, out, caps);
    expect(files).toEqual([{ name: 'pipe', mimeType: 'application/octet-stream', skipped: 'not-a-regular-file' }]);
  });

  it('reads nothing when out/ itself is a link', async () => {
    rmSync(out, { recursive: true });
    mkdirSync(join(root, 'elsewhere'));
    writeFileSync(join(root, 'elsewhere', 'x.txt'), 'x');
    symlinkSync(join(root, 'elsewhere'), out);
    expect((await collectOutFiles(root, out, caps)).files).toEqual([]);
  });

  it('a missing out/ is no files', async () => {
    rmSync(out, { recursive: true });
    expect(await collectOutFiles(root, out, caps)).toEqual({ files: [], notes: [], truncated: false });
  });

  it('holds the count and byte caps at their edges, listing what did not fit', async () => {
    for (const name of ['a', 'b', 'c']) writeFileSync(join(out, name), '12345');
    const exact = await collectOutFiles(root, out, { ...caps, maxCount: 3, maxBytes: 15 });
    expect(exact.files.every((file) => file.data !== undefined)).toBe(true);
    expect(exact.truncated).toBe(false);
    const byCount = await collectOutFiles(root, out, { ...caps, maxCount: 2, maxBytes: 15 });
    expect(byCount.files[2]).toEqual({ name: 'c', mimeType: 'application/octet-stream', bytes: 5, truncated: true });
    const byBytes = await collectOutFiles(root, out, { ...caps, maxCount: 3, maxBytes: 14 });
    expect(byBytes.files[2]).toEqual({ name: 'c', mimeType: 'application/octet-stream', bytes: 5, truncated: true });
    expect(byBytes.truncated).toBe(true);
    expect(byBytes.notes[0]).toMatch(/^1 file\(s\) in out\/ were not returned/);
  });

  it('looks at exactly maxEntries entries; one more is noted as more, not counted', async () => {
    for (let i = 0; i < MAX_ENTRIES; i += 1) writeFileSync(join(out, `f${String(i).padStart(3, '0')}`), '');
    const exact = await collectOutFiles(root, out, caps);
    expect(exact.files).toHaveLength(MAX_ENTRIES);
    expect(exact.notes.some((n) => n.includes('more than'))).toBe(false);
    writeFileSync(join(out, 'one-more'), '');
    const { files, notes, truncated } = await collectOutFiles(root, out, caps);
    expect(files).toHaveLength(MAX_ENTRIES);
    expect(notes).toContain(`out/ holds more than ${MAX_ENTRIES} entries; only the first ${MAX_ENTRIES} were looked at (GET /health?detail=full limits.maxOutEntries)`);
    expect(truncated).toBe(true);
  });

  it('100,000 entries: the listing stops at the cap, without the memory growing with them', { timeout: 120_000 }, async () => {
    execFileSync('Rscript', ['--vanilla', '-e', `invisible(file.create(file.path("${out}", sprintf("f%06d", 1:100000))))`]);
    const before = process.memoryUsage().rss;
    const { files, truncated } = await collectOutFiles(root, out, caps);
    expect(files).toHaveLength(MAX_ENTRIES);
    expect(truncated).toBe(true);
    expect(process.memoryUsage().rss - before).toBeLessThan(32 << 20);
  });

  it('a name that is not valid UTF-8 is reported as such, never mapped onto another file', async () => {
    // "caf\xe9.txt" (latin-1) beside "caf\uFFFD.txt", which the lossy decoding of the first would be.
    writeFileSync(Buffer.from(`${out}/caf\xe9.txt`, 'latin1'), 'latin-1 name');
    writeFileSync(join(out, 'caf\uFFFD.txt'), 'the other file');
    const { files, notes, truncated } = await collectOutFiles(root, out, caps);
    expect(files.map((f) => [f.name, Buffer.from(f.data ?? '', 'base64').toString()])).toEqual([['caf\uFFFD.txt', 'the other file']]);
    expect(notes).toContain('1 entry(ies) in out/ have a name that is not valid UTF-8 and were not returned; use UTF-8 file names');
    expect(truncated).toBe(true);
  });

  it.each([
    ['table.csv', 'text/csv'],
    ['plot.PNG', 'image/png'],
    ['model.rds', 'application/octet-stream'],
    ['README', 'application/octet-stream'],
  ])('mimeTypeOf(%s) is %s', (name, type) => expect(mimeTypeOf(name)).toBe(type));
});

describe('safe-read', () => {
  it('refuses a directory on the way that is a link, and a path that leaves the root', async () => {
    mkdirSync(join(root, 'real'));
    symlinkSync(join(root, 'real'), join(root, 'linked'));
    expect(await listDirectory(root, join(root, 'linked'))).toBeUndefined();
    expect(await listDirectory(root, join(root, '..'))).toBeUndefined();
    expect(await listDirectory(root, join(root, 'real'))).toEqual({ entries: [], more: false });
  });

  it('reads a regular file only, and only up to its cap', async () => {
    writeFileSync(join(out, 'f'), '123456');
    symlinkSync(join(out, 'f'), join(out, 'l'));
    expect((await readRegularFile(join(out, 'f'), 6))?.toString()).toBe('123456');
    expect(await readRegularFile(join(out, 'f'), 5)).toBeUndefined();
    expect(await readRegularFile(join(out, 'l'), 6)).toBeUndefined();
    expect(await readRegularFile(out, 6)).toBeUndefined();
  });
});
