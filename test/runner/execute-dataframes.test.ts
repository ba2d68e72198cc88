/** Dataframes staged into the workdir before R starts (issue 7, execute side), with real R. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness } from './helpers.ts';

const CSV = 'region,sales,note\nnorth,10.5,a\nsouth,20,b\nnorth,4.5,"c, quoted"\n';
const dir = mkdtempSync(join(tmpdir(), 'jube-r-data-test-'));
const csvPath = join(dir, 'sales.csv');
const gzPath = join(dir, 'sales.csv.gz');
writeFileSync(csvPath, CSV);
writeFileSync(gzPath, gzipSync(CSV));
const bigPath = join(dir, 'big.csv');
writeFileSync(bigPath, `x\n${'1\n'.repeat(1100)}`);
const midPath = join(dir, 'mid.csv');
writeFileSync(midPath, `x\n${'1\n'.repeat(900)}`);
const bombPath = join(dir, 'bomb.csv.gz');
writeFileSync(bombPath, gzipSync(`x\n${'0'.repeat(200_000)}\n`));

let server: Server;
let baseUrl = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/sales.csv') return void res.end(CSV);
    if (req.url === '/endless.csv') {
      // Never ends by itself: the handler must stop reading at the cap.
      res.write('x\n');
      const timer = setInterval(() => res.write('1\n'.repeat(4096)), 1);
      res.on('close', () => clearInterval(timer));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const h = harness({ env: { JUBE_R_MAX_DATAFRAME_BYTES: '2048', JUBE_R_MAX_DATAFRAMES_TOTAL_BYTES: '4096' } });
const summarise = 'cat(class(sales), nrow(sales), class(sales$region), sum(sales$sales), sales$note[3], sep = "|")';

describe('execute handler: dataframes', () => {
  it.each([
    { name: 'a CSV file', source: () => ({ kind: 'file' as const, path: csvPath, gzip: false }) },
    { name: 'a gzip CSV file', source: () => ({ kind: 'file' as const, path: gzPath, gzip: true }) },
    { name: 'a URL', source: () => ({ kind: 'url' as const, url: `${baseUrl}/sales.csv`, gzip: false }) },
  ])('binds $name as a data.frame with strings kept as strings', async ({ source }) => {
    const response = await h.run(summarise, { dataframes: [{ name: 'sales', source: source(), bytes: CSV.length }] });
    expect(response).toMatchObject({ status: 'ok', consoleOutput: 'data.frame|3|character|35|c, quoted' });
  });

  it.each([
    { name: 'a table over the per-table cap', df: () => ({ name: 'big', source: { kind: 'file' as const, path: bigPath, gzip: false }, bytes: 10 }), message: /'big' exceeds the 2048-byte limit per table/ },
    { name: 'a gzip bomb', df: () => ({ name: 'bomb', source: { kind: 'file' as const, path: bombPath, gzip: true }, bytes: 100 }), message: /'bomb' exceeds the 2048-byte limit per table/ },
    { name: 'an endless download', df: () => ({ name: 'endless', source: { kind: 'url' as const, url: `${baseUrl}/endless.csv`, gzip: false }, bytes: 10 }), message: /'endless' exceeds the 2048-byte limit/ },
    { name: 'a missing URL', df: () => ({ name: 'gone', source: { kind: 'url' as const, url: `${baseUrl}/nope.csv`, gzip: false }, bytes: 10 }), message: /'gone' could not be downloaded \(HTTP 404\)/ },
    { name: 'a declared size over the cap', df: () => ({ name: 'sales', source: { kind: 'file' as const, path: csvPath, gzip: false }, bytes: 999_999 }), message: /'sales' exceeds the 2048-byte limit per table/ },
  ])('refuses $name before R starts', async ({ df, message }) => {
    const fresh = harness({ env: { JUBE_R_MAX_DATAFRAME_BYTES: '2048', JUBE_R_MAX_DATAFRAMES_TOTAL_BYTES: '4096' } });
    const response = await fresh.run('cat("ran")', { dataframes: [df()] });
    expect(response.status).toBe('error');
    expect(response.error).toMatch(message);
    expect(response.error).toMatch(/the script was not run$/);
    expect(response.consoleOutput).toBe('');
    expect(fresh.reports[0]?.pid).toBeUndefined();
  });

  it('refuses tables that together exceed the total cap', async () => {
    // Each under the per-table cap, declared small, together over the total: counted while streaming.
    const tables = ['a', 'b', 'c'].map((name) => ({ name, source: { kind: 'file' as const, path: midPath, gzip: false }, bytes: 10 }));
    const response = await h.run('cat("ran")', { dataframes: tables });
    expect(response.error).toMatch(/the dataframes exceed the 4096-byte limit in total/);
  });
});
