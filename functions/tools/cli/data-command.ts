/**
 * `jube-r data put FILE --tenant T --pointer P`: stores a tenant's table where the API resolves
 * data pointers, and prints the pointer a caller then sends (`dataframes: [{name, dataPointer}]`).
 * With a bucket (--bucket or JUBE_R_DATA_BUCKET, the stack output DataBucketName) it is one S3
 * PutObject at `<tenant>/<pointer>.csv(.gz)` asking for SSE-S3, the only upload the bucket policy
 * lets the writer role make; without one it writes the local stack's data directory
 * (--data-dir or JUBE_R_DATA_DIR, default .jube-data). FILE must be `.csv` or `.csv.gz`.
 *
 * Exit codes: 0 stored, 2 usage error, 3 the store refused or failed.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { isValidPointer, isValidTenant, POINTER_SUFFIXES, storedName } from '../../../layers/contract/data-pointer.ts';
import { isHelp, type Command } from './command.ts';
import { UsageError } from './script-arguments.ts';

const USAGE = `usage: jube-r data put FILE.csv|FILE.csv.gz --tenant T --pointer P [--bucket B | --data-dir DIR] [--region R]
       --bucket (or JUBE_R_DATA_BUCKET): the stack output DataBucketName; S3 PutObject with SSE-S3, as the writer role
       --data-dir (or JUBE_R_DATA_DIR, default .jube-data): the local stack's data directory`;

/** The SSE the bucket policy requires of every put (infra/lib/constructs/data-bucket.ts, WRITER_SSE). */
export const UPLOAD_SSE = 'AES256';

export type UploadTarget =
  | { readonly kind: 's3'; readonly bucket: string; readonly key: string; readonly region: string | undefined }
  | { readonly kind: 'local'; readonly path: string };

export interface UploadPlan {
  readonly file: string;
  readonly tenant: string;
  readonly pointer: string;
  readonly target: UploadTarget;
}

/** Reads `put`'s arguments into where the file goes. Pure. */
export function planUpload(args: readonly string[], env: NodeJS.ProcessEnv): UploadPlan {
  const [verb, ...tail] = args;
  if (verb !== 'put') throw new UsageError(`unknown data command ${JSON.stringify(verb ?? '')}`);
  const options: Record<string, string> = {};
  const files: string[] = [];
  for (let i = 0; i < tail.length; i += 1) {
    const arg = tail[i]!;
    if (['--tenant', '--pointer', '--bucket', '--data-dir', '--region'].includes(arg)) {
      const next = tail[++i];
      if (next === undefined || next === '') throw new UsageError(`${arg} needs a value`);
      options[arg.slice(2)] = next;
    } else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
    else files.push(arg);
  }
  if (files.length !== 1) throw new UsageError('give exactly one FILE');
  const file = files[0]!;
  const { tenant, pointer } = options;
  if (!isValidTenant(tenant)) throw new UsageError('--tenant must be a tenant name: lower-case letters, digits and "-", at most 63');
  if (!isValidPointer(pointer)) throw new UsageError('--pointer must be one path segment: letters, digits, ".", "_", "-", no "..", at most 128');
  const suffix = POINTER_SUFFIXES.find((s) => file.endsWith(s.suffix))?.suffix;
  if (suffix === undefined) throw new UsageError(`FILE must end in ${POINTER_SUFFIXES.map((s) => s.suffix).join(' or ')}`);
  const name = storedName(tenant, pointer, suffix);
  const bucket = options['bucket'] ?? (env['JUBE_R_DATA_BUCKET'] || undefined);
  if (bucket !== undefined && options['data-dir'] !== undefined) throw new UsageError('give --bucket or --data-dir, not both');
  const target: UploadTarget = bucket
    ? { kind: 's3', bucket, key: name, region: options['region'] ?? env['AWS_REGION'] }
    : { kind: 'local', path: path.resolve(options['data-dir'] ?? (env['JUBE_R_DATA_DIR'] || '.jube-data'), name) };
  return { file, tenant, pointer, target };
}

/** Stores the file as the plan says; `s3` replaces the client (tests). */
export async function upload(plan: UploadPlan, deps: { s3?: S3Client } = {}): Promise<string> {
  const body = await readFile(plan.file);
  const { target } = plan;
  if (target.kind === 'local') {
    await mkdir(path.dirname(target.path), { recursive: true });
    // Written aside and renamed: the local resolver never sees half a table.
    const temporary = `${target.path}.${process.pid}.tmp`;
    await writeFile(temporary, body);
    await rename(temporary, target.path);
    return target.path;
  }
  // Loaded only for S3: a local upload needs no SDK.
  const { PutObjectCommand, S3Client: Client } = await import('@aws-sdk/client-s3');
  const client = deps.s3 ?? new Client(target.region ? { region: target.region } : {});
  // One PutObject, never multipart: the bucket policy requires the SSE header on every request,
  // and a multipart upload's UploadPart carries none.
  await client.send(new PutObjectCommand({ Bucket: target.bucket, Key: target.key, Body: body, ServerSideEncryption: UPLOAD_SSE, ContentType: 'text/csv' }));
  return `s3://${target.bucket}/${target.key}`;
}

const command: Command = async (args) => {
  if (args.length === 0 || args.some((arg) => isHelp(arg))) {
    process.stdout.write(`${USAGE}\n`);
    return args.length === 0 ? 2 : 0;
  }
  let plan: UploadPlan;
  try {
    plan = planUpload(args, process.env);
  } catch (error) {
    process.stderr.write(`jube-r data: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  try {
    const stored = await upload(plan);
    process.stdout.write(`${JSON.stringify({ tenant: plan.tenant, dataPointer: plan.pointer, stored }, null, 2)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`jube-r data: ${(error as Error).message}\n`);
    return 3;
  }
};
export default command;
