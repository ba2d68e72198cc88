import { HeadObjectCommand, NotFound, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../../../layers/config/service-config.ts';
import { createDataPointerResolver, UNRESOLVED } from '../../../../functions/api/data-pointers/resolve.ts';

const BUCKET = 'jube-r-data-test';
const TTL_SECONDS = 300;

// Dummy credentials and region: presigning is local computation and must never reach AWS.
const client = new S3Client({
  region: 'eu-west-1',
  credentials: { accessKeyId: 'AKIAEXAMPLEEXAMPLE00', secretAccessKey: 'dummy-secret-for-presigning-only' },
});
const s3 = mockClient(client);

const resolver = () =>
  createDataPointerResolver(
    readServiceConfig({
      JUBE_R_DATA_BUCKET: BUCKET,
      JUBE_R_PRESIGN_TTL_SECONDS: String(TTL_SECONDS),
      JUBE_R_MAX_DATAFRAME_BYTES: '4096',
      JUBE_R_MAX_DATAFRAMES_TOTAL_BYTES: '8192',
    }),
    { s3: client },
  );

const notFound = () => new NotFound({ message: 'NotFound', $metadata: { httpStatusCode: 404 } });
const forbidden = () =>
  new S3ServiceException({ name: 'Forbidden', $fault: 'client', message: 'Forbidden', $metadata: { httpStatusCode: 403 } });

function headKeys(): string[] {
  return s3.commandCalls(HeadObjectCommand).map((call) => `${call.args[0].input.Bucket}/${call.args[0].input.Key}`);
}

beforeEach(() => {
  s3.reset();
  s3.on(HeadObjectCommand).rejects(notFound());
});

describe('S3 data pointer resolution', () => {
  it('checks <tenant>/<pointer>.csv and hands back a presigned GET URL with its size', async () => {
    // Prepare
    s3.on(HeadObjectCommand, { Bucket: BUCKET, Key: 'acme/sales.csv' }).resolves({ ContentLength: 1234 });
    // Act
    const outcome = await resolver().resolve('acme', [{ name: 'sales', dataPointer: 'sales' }]);
    // Assess
    expect(outcome).toMatchObject({ ok: true, dataframes: [{ name: 'sales', bytes: 1234, source: { kind: 'url', gzip: false } }] });
    const source = outcome.ok ? outcome.dataframes[0]!.source : undefined;
    const url = new URL(source?.kind === 'url' ? source.url : 'about:blank');
    expect(url.hostname).toContain(BUCKET);
    expect(url.pathname).toBe('/acme/sales.csv');
    expect(url.searchParams.get('X-Amz-Expires')).toBe(String(TTL_SECONDS));
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(url.searchParams.get('x-id')).toBe('GetObject');
    expect(headKeys()).toEqual([`${BUCKET}/acme/sales.csv`]);
  });

  it('falls back to <tenant>/<pointer>.csv.gz and marks it gzip', async () => {
    s3.on(HeadObjectCommand, { Bucket: BUCKET, Key: 'acme/sales.csv.gz' }).resolves({ ContentLength: 99 });
    const outcome = await resolver().resolve('acme', [{ name: 'sales', dataPointer: 'sales' }]);
    expect(outcome).toMatchObject({ ok: true, dataframes: [{ bytes: 99, source: { kind: 'url', gzip: true } }] });
    const source = outcome.ok ? outcome.dataframes[0]!.source : undefined;
    expect(new URL(source?.kind === 'url' ? source.url : 'about:blank').pathname).toBe('/acme/sales.csv.gz');
  });

  it('presigns a plain GetObject that needs nothing beyond s3:GetObject, even for a versioned object', async () => {
    s3.on(HeadObjectCommand, { Bucket: BUCKET, Key: 'acme/sales.csv' }).resolves({ ContentLength: 5, VersionId: 'v-42' });
    const outcome = await resolver().resolve('acme', [{ name: 'sales', dataPointer: 'sales' }]);
    const source = outcome.ok ? outcome.dataframes[0]!.source : undefined;
    const url = new URL(source?.kind === 'url' ? source.url : 'about:blank');
    expect(url.pathname).toBe('/acme/sales.csv');
    expect(url.searchParams.has('versionId')).toBe(false);
  });

  it.each([
    ['NotFound', () => notFound()],
    ['AccessDenied (403)', () => forbidden()],
    ['a network fault', () => new Error('socket hang up')],
  ])('gives the one unresolved outcome when HeadObject fails with %s', async (_label, error) => {
    s3.on(HeadObjectCommand).rejects(error());
    const outcome = await resolver().resolve('acme', [{ name: 'sales', dataPointer: 'sales' }]);
    expect(outcome).toStrictEqual(UNRESOLVED);
  });

  it('gives the same unresolved outcome for an object without a size', async () => {
    s3.on(HeadObjectCommand, { Bucket: BUCKET, Key: 'acme/sales.csv' }).resolves({});
    expect(await resolver().resolve('acme', [{ name: 'sales', dataPointer: 'sales' }])).toStrictEqual(UNRESOLVED);
  });

  it('only ever asks for keys under the caller\'s tenant, so another tenant\'s object is unresolved', async () => {
    // Prepare: the object exists, but under globex.
    s3.on(HeadObjectCommand, { Bucket: BUCKET, Key: 'globex/secret.csv' }).resolves({ ContentLength: 10 });
    // Act
    const outcome = await resolver().resolve('acme', [{ name: 's', dataPointer: 'secret' }]);
    // Assess
    expect(outcome).toStrictEqual(UNRESOLVED);
    expect(headKeys()).toEqual([`${BUCKET}/acme/secret.csv`, `${BUCKET}/acme/secret.csv.gz`]);
  });

  it('never calls S3 for a malformed pointer or tenant', async () => {
    expect(await resolver().resolve('acme', [{ name: 's', dataPointer: '../globex/secret' }])).toStrictEqual(UNRESOLVED);
    expect(await resolver().resolve('Globex/', [{ name: 's', dataPointer: 'secret' }])).toStrictEqual(UNRESOLVED);
    expect(headKeys()).toEqual([]);
  });

  it('enforces the per-table limit on ContentLength at its edge', async () => {
    s3.on(HeadObjectCommand, { Bucket: BUCKET, Key: 'acme/at-max.csv' }).resolves({ ContentLength: 4096 });
    s3.on(HeadObjectCommand, { Bucket: BUCKET, Key: 'acme/over-max.csv' }).resolves({ ContentLength: 4097 });
    expect(await resolver().resolve('acme', [{ name: 'ok', dataPointer: 'at-max' }])).toMatchObject({ ok: true });
    expect(await resolver().resolve('acme', [{ name: 'big', dataPointer: 'over-max' }])).toEqual({
      ok: false,
      code: 'DATAFRAME_TOO_LARGE',
      message: expect.stringContaining('"big"'),
    });
  });

  it('enforces the total limit at its edge', async () => {
    s3.on(HeadObjectCommand, { Bucket: BUCKET, Key: 'acme/half.csv' }).resolves({ ContentLength: 4096 });
    s3.on(HeadObjectCommand, { Bucket: BUCKET, Key: 'acme/byte.csv' }).resolves({ ContentLength: 1 });
    const two = [{ name: 'a', dataPointer: 'half' }, { name: 'b', dataPointer: 'half' }];
    expect(await resolver().resolve('acme', two)).toMatchObject({ ok: true });
    expect(await resolver().resolve('acme', [...two, { name: 'c', dataPointer: 'byte' }])).toMatchObject({ ok: false, code: 'DATAFRAME_TOO_LARGE' });
  });
});
