import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../../../layers/config/service-config.ts';
import {
  createDataPointerResolver,
  createResolver,
  dataPointerUnresolvedMessage,
  UNRESOLVED,
} from '../../../../functions/api/data-pointers/resolve.ts';
import type { PointerStore } from '../../../../functions/api/data-pointers/types.ts';

const KIB = 1024;

describe('size limits (local store, 1 KiB per table, 2 KiB in total)', () => {
  let dataDir: string;
  const resolver = () =>
    createDataPointerResolver(
      readServiceConfig({ JUBE_R_DATA_DIR: dataDir, JUBE_R_MAX_DATAFRAME_BYTES: String(KIB), JUBE_R_MAX_DATAFRAMES_TOTAL_BYTES: String(2 * KIB) }),
    );

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'jube-data-limits-'));
    await mkdir(path.join(dataDir, 'acme'));
    const sized = (bytes: number) => `${'x'.repeat(bytes - 1)}\n`;
    await writeFile(path.join(dataDir, 'acme/at-max.csv'), sized(KIB));
    await writeFile(path.join(dataDir, 'acme/at-max-2.csv'), sized(KIB));
    await writeFile(path.join(dataDir, 'acme/over-max.csv'), sized(KIB + 1));
    await writeFile(path.join(dataDir, 'acme/one-byte.csv'), '\n');
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('accepts a table of exactly the per-table limit', async () => {
    const outcome = await resolver().resolve('acme', [{ name: 'big', dataPointer: 'at-max' }]);
    expect(outcome).toMatchObject({ ok: true, dataframes: [{ name: 'big', bytes: KIB }] });
  });

  it('refuses a table one byte over the per-table limit, naming the table and not the pointer', async () => {
    const outcome = await resolver().resolve('acme', [{ name: 'big', dataPointer: 'over-max' }]);
    expect(outcome).toEqual({ ok: false, code: 'DATAFRAME_TOO_LARGE', message: expect.stringContaining('"big"') });
    expect(JSON.stringify(outcome)).not.toContain('over-max');
    expect(JSON.stringify(outcome)).not.toContain(dataDir);
  });

  it('accepts tables totalling exactly the total limit', async () => {
    const outcome = await resolver().resolve('acme', [
      { name: 'a', dataPointer: 'at-max' },
      { name: 'b', dataPointer: 'at-max-2' },
    ]);
    expect(outcome).toMatchObject({ ok: true, dataframes: [{ bytes: KIB }, { bytes: KIB }] });
  });

  it('refuses tables totalling one byte over the total limit', async () => {
    const outcome = await resolver().resolve('acme', [
      { name: 'a', dataPointer: 'at-max' },
      { name: 'b', dataPointer: 'at-max-2' },
      { name: 'c', dataPointer: 'one-byte' },
    ]);
    expect(outcome).toEqual({ ok: false, code: 'DATAFRAME_TOO_LARGE', message: expect.stringMatching(/2049 bytes.*2048 bytes in total/) });
    expect(JSON.stringify(outcome)).not.toContain('at-max');
  });

  it('answers unresolved, not too large, when one pointer is too large and another does not resolve', async () => {
    const outcome = await resolver().resolve('acme', [
      { name: 'big', dataPointer: 'over-max' },
      { name: 'gone', dataPointer: 'missing' },
    ]);
    expect(outcome).toStrictEqual(UNRESOLVED);
  });
});

describe('the shared resolution logic', () => {
  function recordingStore(present: ReadonlySet<string>): PointerStore & { calls: string[] } {
    const calls: string[] = [];
    return {
      kind: 'local',
      calls,
      async locate(tenant, pointer) {
        calls.push(`${tenant}/${pointer}`);
        return present.has(pointer) ? { source: { kind: 'file', path: `/data/${tenant}/${pointer}.csv`, gzip: false }, bytes: 1 } : undefined;
      },
    };
  }
  const limits = { maxDataframeBytes: 10, maxTotalBytes: 10 };

  it('looks up every well-formed pointer even after an earlier one failed', async () => {
    // Prepare
    const store = recordingStore(new Set(['b', 'd']));
    // Act
    const outcome = await createResolver(store, limits).resolve('acme', [
      { name: 'a', dataPointer: 'a' },
      { name: 'b', dataPointer: 'b' },
      { name: 'c', dataPointer: '../c' },
      { name: 'd', dataPointer: 'd' },
    ]);
    // Assess
    expect(outcome).toStrictEqual(UNRESOLVED);
    expect(store.calls.sort()).toEqual(['acme/a', 'acme/b', 'acme/d']);
  });

  it('never hands a malformed pointer or tenant to the store', async () => {
    const store = recordingStore(new Set(['x']));
    await createResolver(store, limits).resolve('../etc', [{ name: 'x', dataPointer: 'x' }]);
    await createResolver(store, limits).resolve('acme', [{ name: 'x', dataPointer: 'x/../../y' }]);
    expect(store.calls).toEqual([]);
  });

  it('turns a store that throws into the same unresolved outcome', async () => {
    const store: PointerStore = { kind: 's3', locate: () => Promise.reject(new Error('boom')) };
    expect(await createResolver(store, limits).resolve('acme', [{ name: 'x', dataPointer: 'x' }])).toStrictEqual(UNRESOLVED);
  });

  it('exports one generic message that names the tenant asked and no reason', () => {
    expect(dataPointerUnresolvedMessage('acme')).toBe("One or more data pointers could not be resolved for tenant 'acme'; nothing was run.");
  });
});
