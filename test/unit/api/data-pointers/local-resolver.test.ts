import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../../../layers/config/service-config.ts';
import { createDataPointerResolver, UNRESOLVED } from '../../../../functions/api/data-pointers/resolve.ts';
import type { DataPointerResolver } from '../../../../functions/api/data-pointers/types.ts';

const CSV = 'x,y\n1,a\n2,b\n';

let base: string;
let dataDir: string;
let resolver: DataPointerResolver;

async function put(relative: string, content: string | Buffer = CSV): Promise<string> {
  const file = path.join(dataDir, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

beforeAll(async () => {
  // Prepare: a data dir with two tenants and some hostile entries, plus a secret outside it.
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'jube-data-local-')));
  dataDir = path.join(base, 'data');
  await put('acme/sales.csv');
  await put('acme/both.csv', 'plain\n1\n');
  await put('acme/both.csv.gz', Buffer.from([0x1f, 0x8b, 0x08, 0x00]));
  await put('acme/packed.csv.gz', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00]));
  await put('acme/nested/inner.csv');
  await put('globex/secret.csv', 'secret\n42\n');
  await writeFile(path.join(base, 'outside.csv'), 'outside\n1\n');
  await symlink(path.join(base, 'outside.csv'), path.join(dataDir, 'acme/escape.csv'));
  await symlink('../globex/secret.csv', path.join(dataDir, 'acme/crossing.csv'));
  await symlink('sales.csv', path.join(dataDir, 'acme/alias.csv'));
  await symlink(path.join(base, 'nowhere.csv'), path.join(dataDir, 'acme/dangling.csv'));
  await mkdir(path.join(dataDir, 'acme/folder.csv'));
  execFileSync('mkfifo', [path.join(dataDir, 'acme/pipe.csv')]);
  resolver = createDataPointerResolver(readServiceConfig({ JUBE_R_DATA_DIR: dataDir }));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('local data pointer resolution', () => {
  it('resolves a tenant\'s .csv to its real path and stored size', async () => {
    // Act
    const outcome = await resolver.resolve('acme', [{ name: 'sales', dataPointer: 'sales' }]);
    // Assess
    expect(outcome).toEqual({
      ok: true,
      dataframes: [{ name: 'sales', source: { kind: 'file', path: path.join(dataDir, 'acme/sales.csv'), gzip: false }, bytes: CSV.length }],
    });
  });

  it('marks a .csv.gz as gzip', async () => {
    const outcome = await resolver.resolve('acme', [{ name: 'p', dataPointer: 'packed' }]);
    expect(outcome).toEqual({
      ok: true,
      dataframes: [{ name: 'p', source: { kind: 'file', path: path.join(dataDir, 'acme/packed.csv.gz'), gzip: true }, bytes: 5 }],
    });
  });

  it('prefers the plain .csv when both forms exist', async () => {
    const outcome = await resolver.resolve('acme', [{ name: 'b', dataPointer: 'both' }]);
    expect(outcome).toMatchObject({ ok: true, dataframes: [{ source: { gzip: false, path: path.join(dataDir, 'acme/both.csv') } }] });
  });

  it('follows a symlink that stays inside the tenant, returning the target', async () => {
    const outcome = await resolver.resolve('acme', [{ name: 'a', dataPointer: 'alias' }]);
    expect(outcome).toMatchObject({ ok: true, dataframes: [{ source: { path: path.join(dataDir, 'acme/sales.csv') } }] });
  });

  it('resolves several tables in request order', async () => {
    const outcome = await resolver.resolve('acme', [
      { name: 'first', dataPointer: 'packed' },
      { name: 'second', dataPointer: 'sales' },
    ]);
    expect(outcome.ok && outcome.dataframes.map((df) => df.name)).toEqual(['first', 'second']);
  });

  it('resolves nothing and needs no tenant directory when no dataframes are asked for', async () => {
    expect(await resolver.resolve('nobody', [])).toEqual({ ok: true, dataframes: [] });
  });

  it.each([
    ['missing', 'acme', 'nothing'],
    ['another tenant\'s (exists under globex)', 'acme', 'secret'],
    ['a symlink escaping the data dir', 'acme', 'escape'],
    ['a symlink into another tenant', 'acme', 'crossing'],
    ['a dangling symlink', 'acme', 'dangling'],
    ['a directory', 'acme', 'folder'],
    ['a FIFO', 'acme', 'pipe'],
    ['traversal', 'acme', '../globex/secret'],
    ['a sub-directory path', 'acme', 'nested/inner'],
    ['percent-encoded traversal', 'acme', '..%2Fglobex%2Fsecret'],
    ['malformed (NUL)', 'acme', 'sales\u0000'],
    ['empty', 'acme', ''],
    ['a tenant with no directory', 'initech', 'sales'],
    ['a malformed tenant', '../acme', 'sales'],
    ['an upper-case tenant', 'ACME', 'sales'],
    ['an empty tenant', '', 'sales'],
  ])('gives the one unresolved outcome for a pointer that is %s', async (_label, tenant, dataPointer) => {
    // Act
    const outcome = await resolver.resolve(tenant, [{ name: 'd', dataPointer }]);
    // Assess: deep-equal to the single generic outcome, nothing more.
    expect(outcome).toStrictEqual(UNRESOLVED);
    expect(outcome).toStrictEqual({ ok: false, code: 'DATA_POINTER_UNRESOLVED' });
  });

  it('refuses the whole request when any one pointer does not resolve', async () => {
    const outcome = await resolver.resolve('acme', [
      { name: 'good', dataPointer: 'sales' },
      { name: 'bad', dataPointer: 'secret' },
    ]);
    expect(outcome).toStrictEqual(UNRESOLVED);
  });

  it('lets the owning tenant resolve what the other tenant cannot', async () => {
    const outcome = await resolver.resolve('globex', [{ name: 's', dataPointer: 'secret' }]);
    expect(outcome).toMatchObject({ ok: true, dataframes: [{ source: { path: path.join(dataDir, 'globex/secret.csv') } }] });
  });

  it('reads a relative JUBE_R_DATA_DIR against the working directory', async () => {
    const relative = path.relative(process.cwd(), dataDir);
    const relativeResolver = createDataPointerResolver(readServiceConfig({ JUBE_R_DATA_DIR: relative }));
    const outcome = await relativeResolver.resolve('acme', [{ name: 's', dataPointer: 'sales' }]);
    expect(outcome).toMatchObject({ ok: true, dataframes: [{ source: { path: path.join(dataDir, 'acme/sales.csv') } }] });
  });
});
