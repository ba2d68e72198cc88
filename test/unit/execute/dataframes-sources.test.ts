/**
 * The dataframe source rules (data-sources.ts) with real files: each refusal has its own stable
 * code, and no message names the path or URL or shows a byte of what it points at. The controls
 * are the allowed sources, which stage.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { DATA_SOURCE_CODES, forbiddenAddress, guardedLookup, s3Host, urlRefusal, type DataSourcePolicy } from '../../../functions/execute/run/data-sources.ts';
import { tenantOfKey } from '../../../layers/contract/isolation.ts';
import { DataframeStagingError, stageDataframes, type SourceAccess } from '../../../functions/execute/run/dataframes.ts';
import type { ResolvedDataframe } from '../../../layers/contract/execute.ts';

const base = mkdtempSync(join(tmpdir(), 'jube-r-sources-'));
const root = join(base, 'data');
const outside = join(base, 'outside');
const staging = join(base, 'staging');
for (const d of [join(root, 'acme', 'sub'), join(root, 'globex'), outside, staging]) mkdirSync(d, { recursive: true });
const SECRET = 'secret-bytes-never-echoed';
writeFileSync(join(root, 'acme', 't.csv'), 'a\n1\n');
writeFileSync(join(root, 'acme', 'sub', 'deep.csv'), 'a\n2\n');
writeFileSync(join(root, 'globex', 'g.csv'), `a\n${SECRET}\n`);
writeFileSync(join(outside, 'o.csv'), `a\n${SECRET}\n`);
symlinkSync(join(outside, 'o.csv'), join(root, 'acme', 'link.csv'));
symlinkSync(outside, join(root, 'acme', 'linkdir'));
execFileSync('mkfifo', [join(root, 'acme', 'fifo.csv')]);
afterAll(() => rmSync(base, { recursive: true, force: true }));

const HOST = 'jube-data.s3.eu-west-1.amazonaws.com';
const local: DataSourcePolicy = { deployed: false, fileRoots: [root], urlHost: HOST };
const limits = { maxDataframeBytes: 1 << 20, maxTotalBytes: 1 << 20 };
const file = (path: string): ResolvedDataframe => ({ name: 't', source: { kind: 'file', path, gzip: false }, bytes: 1 });
const url = (u: string): ResolvedDataframe => ({ name: 't', source: { kind: 'url', url: u, gzip: false }, bytes: 1 });

async function stage(df: ResolvedDataframe, access: SourceAccess): Promise<DataframeStagingError | string> {
  try {
    await stageDataframes([df], staging, limits, AbortSignal.timeout(5000), access);
    return readFileSync(join(staging, '0.csv'), 'utf8');
  } catch (error) {
    if (error instanceof DataframeStagingError) return error;
    throw error;
  }
}

function expectRefused(outcome: DataframeStagingError | string, code: string, ...hidden: string[]): void {
  expect(outcome).toBeInstanceOf(DataframeStagingError);
  const error = outcome as DataframeStagingError;
  expect(error.code).toBe(code);
  expect(error.message).toMatch(new RegExp(`^dataframe 't' was refused \\(${code}\\): `));
  for (const h of [SECRET, base, ...hidden]) expect(error.message).not.toContain(h);
}

describe('file sources', () => {
  it.each([
    ['the canonical path of a regular file under the root', join(root, 'acme', 't.csv'), 'a\n1\n'],
    ['a file in a subdirectory', join(root, 'acme', 'sub', 'deep.csv'), 'a\n2\n'],
  ])('stage %s (the control)', async (_what, path, content) => {
    expect(await stage(file(path), { policy: local })).toBe(content);
  });

  it.each([
    ['/proc/1/environ', '/proc/1/environ', 'data-source-file-outside-root'],
    ['/etc/shadow', '/etc/shadow', 'data-source-file-outside-root'],
    ['a file beside the root', join(outside, 'o.csv'), 'data-source-file-outside-root'],
    ['a path that climbs out with ..', join(root, 'acme', '..', '..', 'outside', 'o.csv'), 'data-source-file-outside-root'],
    ['a relative path', 'data/acme/t.csv', 'data-source-file-outside-root'],
    ['a symlink to a file outside', join(root, 'acme', 'link.csv'), 'data-source-file-symlink'],
    ['a path through a symlinked directory', join(root, 'acme', 'linkdir', 'o.csv'), 'data-source-file-symlink'],
    ['a FIFO', join(root, 'acme', 'fifo.csv'), 'data-source-file-not-regular'],
    ['a directory', join(root, 'acme', 'sub'), 'data-source-file-not-regular'],
    ['a missing file', join(root, 'acme', 'none.csv'), 'data-source-file-unreadable'],
  ])('refuses %s', async (_what, path, code) => {
    expectRefused(await stage(file(path), { policy: local }), code, path);
  });

  it("keeps a tenant to its own directory: another tenant's table is outside its root", async () => {
    expect(await stage(file(join(root, 'acme', 't.csv')), { policy: local, tenant: 'acme' })).toBe('a\n1\n');
    expectRefused(await stage(file(join(root, 'globex', 'g.csv')), { policy: local, tenant: tenantOfKey('acme_session-1') }), 'data-source-file-outside-root');
    // A key that is not a tenant's name never widens the scope (`..` would be the data root's parent).
    expectRefused(await stage(file(join(outside, 'o.csv')), { policy: local, tenant: tenantOfKey('..') }), 'data-source-file-outside-root');
  });

  it('refuses every file source in a deployed function, and where the data root is missing', async () => {
    expectRefused(await stage(file(join(root, 'acme', 't.csv')), { policy: { ...local, deployed: true } }), 'data-source-file-deployed');
    expectRefused(await stage(file(join(root, 'acme', 't.csv')), { policy: { ...local, fileRoots: [join(base, 'nowhere')] } }), 'data-source-file-no-root');
  });
});

describe('url sources', () => {
  const served = (body: string): SourceAccess['download'] => async () => Readable.from([Buffer.from(body)]);

  it('downloads only an https URL of the data bucket (the control, through a stand-in download)', async () => {
    expect(await stage(url(`https://${HOST}/acme/t.csv?X-Amz-Signature=abc`), { policy: local, download: served('a\n3\n') })).toBe('a\n3\n');
  });

  it.each([
    ['the Runtime API', 'http://127.0.0.1:9001/2018-06-01/runtime/invocation/next'],
    ['loopback over https', 'https://127.0.0.1/x.csv'],
    ['localhost', 'https://localhost/x.csv'],
    ['the instance metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['IPv6 loopback', 'https://[::1]/x.csv'],
    ['plain http to the bucket', `http://${HOST}/acme/t.csv`],
    ['another port on the bucket', `https://${HOST}:8443/acme/t.csv`],
    ['credentials in the URL', `https://user:pw@${HOST}/acme/t.csv`],
    ['another bucket', 'https://other.s3.eu-west-1.amazonaws.com/acme/t.csv'],
    ['a look-alike host', `https://${HOST}.evil.example/acme/t.csv`],
    ['a file URL', 'file:///proc/1/environ'],
  ])('refuses %s without downloading', async (_what, u) => {
    let downloads = 0;
    const outcome = await stage(url(u), { policy: local, download: async () => ((downloads += 1), Readable.from([SECRET])) });
    expectRefused(outcome, 'data-source-url-not-allowed', u);
    expect(downloads).toBe(0);
  });

  it('refuses every URL where no data bucket is configured', async () => {
    expectRefused(await stage(url(`https://${HOST}/acme/t.csv`), { policy: { ...local, urlHost: undefined } }), 'data-source-url-not-configured');
  });

  it('never connects to a forbidden address, whatever the name resolves to', async () => {
    // `localhost` stands in for a bucket name that DNS points at loopback.
    const outcome = await stage(url('https://localhost/x.csv'), { policy: { ...local, urlHost: 'localhost' } });
    expectRefused(outcome, 'data-source-url-address');
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => guardedLookup('localhost', {}, (e) => resolve(e)));
    expect(error?.code).toBe('EJUBEADDRESS');
  });
});

describe('the rules, pure', () => {
  it('derive the S3 host from the bucket and region, and know the forbidden ranges', () => {
    expect(s3Host('b', 'us-east-1')).toBe('b.s3.us-east-1.amazonaws.com');
    expect(s3Host('b', 'cn-north-1')).toBe('b.s3.cn-north-1.amazonaws.com.cn');
    expect(s3Host(undefined, 'us-east-1')).toBeUndefined();
    expect(urlRefusal(`https://${HOST}/k`, local)).toBeUndefined();
    for (const a of ['127.0.0.1', '127.1.2.3', '0.0.0.0', '169.254.169.254', '224.0.0.1', '::1', '::', 'fe80::1', '::ffff:127.0.0.1', 'ff02::1']) {
      expect(forbiddenAddress(a)).toBe(true);
    }
    for (const a of ['52.218.0.1', '10.0.1.5', '2600:1f18::1']) expect(forbiddenAddress(a)).toBe(false);
    expect(new Set(DATA_SOURCE_CODES).size).toBe(DATA_SOURCE_CODES.length);
  });
});
