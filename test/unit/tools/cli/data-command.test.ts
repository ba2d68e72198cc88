import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planUpload, upload, UPLOAD_SSE } from '../../../../functions/tools/cli/data-command.ts';
import { UsageError } from '../../../../functions/tools/cli/script-arguments.ts';
import { WRITER_SSE } from '../../../../infra/lib/constructs/data-bucket.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'jube-data-put-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('jube-r data put', () => {
  it('puts one object at <tenant>/<pointer>.csv.gz asking for the SSE the bucket policy requires', async () => {
    // Prepare
    const file = path.join(dir, 'cities.csv.gz');
    await writeFile(file, 'gzip bytes');
    const s3 = mockClient(S3Client);
    s3.on(PutObjectCommand).resolves({});
    const plan = planUpload(['put', file, '--tenant', 'acme', '--pointer', 'cities'], { JUBE_R_DATA_BUCKET: 'jube-r-prod-data', AWS_REGION: 'eu-west-1' });

    // Act
    const stored = await upload(plan, { s3: new S3Client({ region: 'eu-west-1' }) });

    // Assess
    expect(stored).toBe('s3://jube-r-prod-data/acme/cities.csv.gz');
    const calls = s3.commandCalls(PutObjectCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toMatchObject({ Bucket: 'jube-r-prod-data', Key: 'acme/cities.csv.gz', ServerSideEncryption: WRITER_SSE });
    expect(UPLOAD_SSE).toBe(WRITER_SSE);
    s3.restore();
  });

  it('writes the local stack\'s data directory when no bucket is named', async () => {
    const file = path.join(dir, 'm.csv');
    await writeFile(file, 'v\n1\n');
    const plan = planUpload(['put', file, '--tenant', 'acme', '--pointer', 'm'], { JUBE_R_DATA_DIR: path.join(dir, 'data') });
    expect(await upload(plan)).toBe(path.join(dir, 'data', 'acme', 'm.csv'));
    expect(await readFile(path.join(dir, 'data', 'acme', 'm.csv'), 'utf8')).toBe('v\n1\n');
  });

  it.each([
    [['put', 'x.csv', '--tenant', 'Acme', '--pointer', 'p'], /--tenant/],
    [['put', 'x.csv', '--tenant', 'acme', '--pointer', '../p'], /--pointer/],
    [['put', 'x.parquet', '--tenant', 'acme', '--pointer', 'p'], /\.csv or \.csv\.gz/],
    [['put', 'x.csv', '--tenant', 'acme', '--pointer', 'p', '--bucket', 'b', '--data-dir', 'd'], /not both/],
    [['get', 'x.csv'], /unknown data command/],
  ])('refuses %j as a usage error', (args, message) => {
    expect(() => planUpload(args, {})).toThrow(UsageError);
    expect(() => planUpload(args, {})).toThrow(message);
  });
});
