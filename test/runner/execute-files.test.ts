/** Files a script writes to out/ with real R: returned with name, type, size and hash, within caps. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { harness } from './helpers.ts';
import { generous } from '../load-tolerant.ts';

const h = generous(harness());
const decode = (data: string | undefined) => Buffer.from(data ?? '', 'base64');

describe('execute handler: files in out/', () => {
  it('returns what the script wrote to out/, by plain name, with its type, size and sha256', async () => {
    const response = await h.run([
      'write.csv(data.frame(x = 1:2, y = c("a", "b")), "out/table.csv", row.names = FALSE)',
      'jsonlite::write_json(list(n = 2), "out/summary.json", auto_unbox = TRUE)',
      'writeLines("not returned", "elsewhere.txt")',
    ].join('\n'));
    expect(response.status).toBe('ok');
    expect(response.files?.map((file) => [file.name, file.mimeType])).toEqual([['summary.json', 'application/json'], ['table.csv', 'text/csv']]);
    const csv = response.files!.find((file) => file.name === 'table.csv')!;
    const bytes = decode(csv.data);
    expect(bytes.toString('utf8')).toBe('"x","y"\n1,"a"\n2,"b"\n');
    expect(csv.bytes).toBe(bytes.length);
    expect(csv.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(decode(response.files![0]!.data).toString('utf8')).toBe('{"n":2}\n');
  });

  it('no out/ files, an empty list', async () => {
    expect((await h.run('x <- 1')).files).toEqual([]);
  });

  it('a subdirectory is listed as skipped, not walked', async () => {
    const response = await h.run('dir.create("out/sub")\nwriteLines("x", "out/sub/inner.txt")');
    expect(response.files).toEqual([{ name: 'sub', mimeType: 'application/octet-stream', skipped: 'directory' }]);
  });

  it('files written before an error come back with it', async () => {
    const response = await h.run('writeLines("partial", "out/log.txt")\nstop("later")');
    expect(response.status).toBe('error');
    expect(decode(response.files?.[0]?.data).toString('utf8')).toBe('partial\n');
  });
});

describe('execute handler: file caps at their edges', () => {
  const tenBytes = (names: string[]) => names.map((name) => `writeLines(strrep("x", 9), "out/${name}")`).join('\n');

  it('the count cap: at it all come back; over it the rest are listed with truncated', async () => {
    const capped = generous(harness({ env: { JUBE_R_MAX_FILES: '2' } }));
    const at = await capped.run(tenBytes(['a.txt', 'b.txt']));
    expect(at.files?.every((file) => file.data !== undefined)).toBe(true);
    expect(at.truncated).toBeUndefined();
    const over = await capped.run(tenBytes(['a.txt', 'b.txt', 'c.txt']));
    expect(over.files?.[2]).toEqual({ name: 'c.txt', mimeType: 'text/plain', bytes: 10, truncated: true });
    expect(over.truncated).toBe(true);
    expect(over.notes?.[0]).toMatch(/^1 file\(s\) in out\/ were not returned \(listed with truncated: true\): at most 2 files/);
  });

  it('the byte cap: exactly the total fits, one byte less does not', async () => {
    const exact = await generous(harness({ env: { JUBE_R_MAX_FILES_BYTES: '20' } })).run(tenBytes(['a.txt', 'b.txt']));
    expect(exact.files?.map((file) => file.bytes)).toEqual([10, 10]);
    expect(exact.files?.every((file) => file.data !== undefined)).toBe(true);
    const under = await generous(harness({ env: { JUBE_R_MAX_FILES_BYTES: '19' } })).run(tenBytes(['a.txt', 'b.txt']));
    expect(under.files?.[1]).toEqual({ name: 'b.txt', mimeType: 'text/plain', bytes: 10, truncated: true });
    expect(under.truncated).toBe(true);
  });
});
