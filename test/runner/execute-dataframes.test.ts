/**
 * Dataframes staged into the workdir before R starts, with real R: files from the data root, URLs
 * of the data bucket's S3 host (served here through a stand-in download, since nothing local is
 * that host), and the sources the rules refuse (data-sources.ts), through the real handler.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Logger } from '@aws-lambda-powertools/logger';
import { DATAFRAME_STAGING_FAILED } from '../../layers/contract/log-events.ts';
import { harness } from './helpers.ts';
import { generous } from '../load-tolerant.ts';

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
/** fread stops early at the odd line and its warning quotes it: "First discarded non-empty line: <<...>>". */
const raggedPath = join(dir, 'ragged.csv');
writeFileSync(raggedPath, 'a,b\n1,2\n3,4\nragged-line-secret\n');
/** A host file outside the data root (what /etc/shadow is on a real host). */
const hostDir = mkdtempSync(join(tmpdir(), 'jube-r-host-file-'));
const hostFile = join(hostDir, 'host.csv');
writeFileSync(hostFile, 'secret\nhost-file-secret\n');

const BUCKET = 'jube-r-test-data';
const REGION = 'eu-west-1';
const BUCKET_URL = `https://${BUCKET}.s3.${REGION}.amazonaws.com`;
/** What a caller's event looks like on the Runtime API: another caller's data. */
const FOREIGN_EVENT = '{"script":"foreign-caller-secret"}';
const CANARY = 'jube-r-canary-in-environ';

let server: Server;
let baseUrl = '';
let holder: ChildProcess;
// The handler derives the bucket's host when it is created, as a Lambda function does at init.
vi.stubEnv('AWS_REGION', REGION);
beforeAll(async () => {
  // A process whose environment holds a secret, as PID 1 and the runtime hold the function's.
  holder = spawn('sleep', ['300'], { stdio: 'ignore', env: { PATH: process.env['PATH'], JUBE_R_TEST_SECRET: CANARY } });
  server = createServer((req, res) => {
    if (req.url === '/2018-06-01/runtime/invocation/next') return void res.end(FOREIGN_EVENT);
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
  vi.unstubAllEnvs();
  holder.kill('SIGKILL');
  server.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(hostDir, { recursive: true, force: true });
});

const DATA_ENV = { JUBE_R_DATA_DIR: dir, JUBE_R_DATA_BUCKET: BUCKET, JUBE_R_MAX_DATAFRAME_BYTES: '2048', JUBE_R_MAX_DATAFRAMES_TOTAL_BYTES: '4096' };
/** The bucket's URLs answered by the local server: the handler's rules still decide what is asked. */
const standIn = async (url: URL, signal: AbortSignal): Promise<Readable> => {
  const response = await fetch(`${baseUrl}${url.pathname}`, { signal });
  if (!response.ok || !response.body) throw Object.assign(new Error('stand-in'), { status: response.status });
  return Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
};
const dataHarness = () => generous(harness({ env: DATA_ENV, dataDownload: standIn }));
const h = dataHarness();
const summarise = 'cat(class(sales), nrow(sales), class(sales$region), sum(sales$sales), sales$note[3], sep = "|")';

describe('execute handler: dataframes', () => {
  it.each([
    { name: 'a CSV file', source: () => ({ kind: 'file' as const, path: csvPath, gzip: false }) },
    { name: 'a gzip CSV file', source: () => ({ kind: 'file' as const, path: gzPath, gzip: true }) },
    { name: 'a URL of the data bucket', source: () => ({ kind: 'url' as const, url: `${BUCKET_URL}/sales.csv?X-Amz-Signature=x`, gzip: false }) },
  ])('binds $name as a data.frame with strings kept as strings', async ({ source }) => {
    const response = await h.run(summarise, { dataframes: [{ name: 'sales', source: source(), bytes: CSV.length }] });
    expect(response).toMatchObject({ status: 'ok', consoleOutput: 'data.frame|3|character|35|c, quoted' });
  });

  it.each([
    { name: 'a table over the per-table cap', df: () => ({ name: 'big', source: { kind: 'file' as const, path: bigPath, gzip: false }, bytes: 10 }), message: /'big' exceeds the 2048-byte limit per table/ },
    { name: 'a gzip bomb', df: () => ({ name: 'bomb', source: { kind: 'file' as const, path: bombPath, gzip: true }, bytes: 100 }), message: /'bomb' exceeds the 2048-byte limit per table/ },
    { name: 'an endless download', df: () => ({ name: 'endless', source: { kind: 'url' as const, url: `${BUCKET_URL}/endless.csv`, gzip: false }, bytes: 10 }), message: /'endless' exceeds the 2048-byte limit/ },
    { name: 'a missing URL', df: () => ({ name: 'gone', source: { kind: 'url' as const, url: `${BUCKET_URL}/nope.csv`, gzip: false }, bytes: 10 }), message: /'gone' could not be downloaded/ },
    { name: 'a declared size over the cap', df: () => ({ name: 'sales', source: { kind: 'file' as const, path: csvPath, gzip: false }, bytes: 999_999 }), message: /'sales' exceeds the 2048-byte limit per table/ },
  ])('refuses $name before R starts', async ({ df, message }) => {
    const fresh = dataHarness();
    const response = await fresh.run('cat("ran")', { dataframes: [df()] });
    expect(response.status).toBe('error');
    expect(response.error).toMatch(message);
    expect(response.error).toMatch(/the script was not run$/);
    expect(response.consoleOutput).toBe('');
    expect(fresh.reports[0]?.pid).toBeUndefined();
  });

  it('logs the line the stack counts as a dataframe staging failure (its metric filter), once per failed run', async () => {
    // Prepare
    const logger = new Logger({ serviceName: 'jube-r-test', logLevel: 'SILENT' });
    const warn = vi.spyOn(logger, 'warn');
    const fresh = generous(harness({ env: DATA_ENV, dataDownload: standIn, logger }));

    // Act
    await fresh.run('cat("ran")', { dataframes: [{ name: 'gone', source: { kind: 'url', url: `${BUCKET_URL}/nope.csv`, gzip: false }, bytes: 10 }] });
    await fresh.run(summarise, { dataframes: [{ name: 'sales', source: { kind: 'file', path: csvPath, gzip: false }, bytes: CSV.length }] });

    // Assess
    const staging = warn.mock.calls.filter(([message]) => message === DATAFRAME_STAGING_FAILED);
    expect(staging).toHaveLength(1);
    expect(JSON.stringify(staging[0]![1])).toContain("'gone' could not be downloaded");
  });

  it('refuses tables that together exceed the total cap', async () => {
    // Each under the per-table cap, declared small, together over the total: counted while streaming.
    const tables = ['a', 'b', 'c'].map((name) => ({ name, source: { kind: 'file' as const, path: midPath, gzip: false }, bytes: 10 }));
    const response = await h.run('cat("ran")', { dataframes: tables });
    expect(response.error).toMatch(/the dataframes exceed the 4096-byte limit in total/);
  });
});

describe('execute handler: dataframe sources outside the rules', () => {
  const refused = async (source: () => { kind: 'file'; path: string; gzip: boolean } | { kind: 'url'; url: string; gzip: boolean }, options = {}) => {
    const fresh = generous(harness({ env: DATA_ENV, ...options }));
    const response = await fresh.run('print(t)', { dataframes: [{ name: 't', source: source(), bytes: 10 }] });
    return { response, reports: fresh.reports };
  };

  it.each([
    { what: "another process's environ", code: 'data-source-file-outside-root', source: () => ({ kind: 'file' as const, path: `/proc/${holder.pid}/environ`, gzip: false }) },
    { what: '/etc/shadow', code: 'data-source-file-outside-root', source: () => ({ kind: 'file' as const, path: '/etc/shadow', gzip: false }) },
    { what: 'a host file outside the data root', code: 'data-source-file-outside-root', source: () => ({ kind: 'file' as const, path: hostFile, gzip: false }) },
    { what: "the Runtime API's next event", code: 'data-source-url-not-allowed', source: () => ({ kind: 'url' as const, url: `${baseUrl}/2018-06-01/runtime/invocation/next`, gzip: false }) },
  ])('refuses $what before R starts, with a stable code and none of its bytes', async ({ code, source }) => {
    const { response, reports } = await refused(source);
    expect(response.status).toBe('error');
    expect(response.error).toMatch(new RegExp(`^dataframe 't' was refused \\(${code}\\): .*; the script was not run$`));
    expect(JSON.stringify(response)).not.toContain(CANARY);
    expect(JSON.stringify(response)).not.toContain('foreign-caller-secret');
    expect(JSON.stringify(response)).not.toMatch(/root:|host-file-secret/);
    expect(reports[0]?.pid).toBeUndefined();
  });

  it('controls: where the data root is widened, the bytes do reach the script; the Runtime API does answer', async () => {
    const host = await refused(() => ({ kind: 'file', path: hostFile, gzip: false }), { dataRoots: [hostDir] });
    expect(host.response).toMatchObject({ status: 'ok' });
    expect(host.response.consoleOutput).toContain('host-file-secret');
    // The Runtime API answers whoever asks: only the URL rule stands between it and the table.
    const next = await fetch(`${baseUrl}/2018-06-01/runtime/invocation/next`).then((r) => r.text());
    expect(next).toBe(FOREIGN_EVENT);
  });

  it("a table R cannot parse fails its binding without quoting it (here another process's environ, the root widened to /proc)", async () => {
    const { response } = await refused(() => ({ kind: 'file', path: `/proc/${holder.pid}/environ`, gzip: false }), { dataRoots: ['/proc'] });
    expect(response.status).toBe('error');
    expect(response.error).toMatch(/dataframe 't' could not be read as CSV \(data-source-unparsable\); its content is not shown/);
    expect(JSON.stringify(response)).not.toContain(CANARY);
  });
});

describe('execute handler: binding a table never quotes it', () => {
  it("counts the parser's warnings while reading a table instead of showing their text", async () => {
    const response = await h.run('cat(nrow(t))', { dataframes: [{ name: 't', source: { kind: 'file', path: raggedPath, gzip: false }, bytes: 40 }] });
    expect(response).toMatchObject({ status: 'ok', consoleOutput: '2' });
    expect(response.warnings).toEqual([expect.stringMatching(/^dataframe 't': 1 warning\(s\) while reading it were dropped/)]);
    expect(JSON.stringify(response)).not.toContain('ragged-line-secret');
  });
});
