/**
 * Which dataframe sources the execute handler may open, one rule set for both kinds. The handler
 * reads with its own privileges, and what it stages R reads back, so a source is a read of the
 * handler's choice on the caller's behalf: without these rules an event naming /proc/1/environ, a
 * host file, another tenant's table or the Runtime API's /invocation/next would have its bytes
 * staged as a table (and echoed by a parse error).
 *
 * - `file`: only in a local runtime (JUBE_R_DEPLOYMENT unset), only a regular file under the data
 *   root (JUBE_R_DATA_DIR, canonical; with a TenantId, under that tenant's directory), named by its
 *   canonical path, no component a symlink, opened O_NOFOLLOW and checked again through the
 *   opened descriptor, so a swap between the check and the open is caught.
 * - `url`: only `https` to the data bucket's S3 host (JUBE_R_DATA_BUCKET in AWS_REGION, the one
 *   name the DNS firewall lets through), port 443, no credentials in the URL; the address it
 *   resolves to is checked at connect time and never loopback, link-local, unspecified or
 *   multicast (the Runtime API and the instance metadata live there).
 *
 * Every refusal has a stable code and never names the path, the URL or any byte read.
 */
import { constants } from 'node:fs';
import { lstat, open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { isIP, type LookupFunction } from 'node:net';
import { lookup as dnsLookup } from 'node:dns';
import path from 'node:path';

export const DATA_SOURCE_CODES = [
  'data-source-file-deployed',
  'data-source-file-no-root',
  'data-source-file-outside-root',
  'data-source-file-symlink',
  'data-source-file-not-regular',
  'data-source-file-unreadable',
  'data-source-url-not-configured',
  'data-source-url-not-allowed',
  'data-source-url-address',
] as const;
export type DataSourceCode = (typeof DATA_SOURCE_CODES)[number];

const REASONS: Record<DataSourceCode, string> = {
  'data-source-file-deployed': 'file sources are read only by a local runtime',
  'data-source-file-no-root': 'the data root does not exist',
  'data-source-file-outside-root': 'the file is not under the data root',
  'data-source-file-symlink': 'the path goes through a symbolic link',
  'data-source-file-not-regular': 'the file is not a regular file',
  'data-source-file-unreadable': 'the file could not be opened',
  'data-source-url-not-configured': 'this runtime has no data bucket to download from',
  'data-source-url-not-allowed': "the URL is not an https URL of the data bucket's S3 host",
  'data-source-url-address': 'the data host resolved to an address the runtime never connects to',
};

/** A source refused by the rules; the message names the table and the rule, nothing of the input. */
export class DataSourceRefusal extends Error {
  override readonly name = 'DataSourceRefusal';
  constructor(
    readonly code: DataSourceCode,
    table: string,
  ) {
    super(`dataframe '${table}' was refused (${code}): ${REASONS[code]}`);
  }
}

export interface DataSourcePolicy {
  /** JUBE_R_DEPLOYMENT is set: no file source at all. */
  readonly deployed: boolean;
  /** Directories file sources may come from (JUBE_R_DATA_DIR; the CLI names its files' own). */
  readonly fileRoots: readonly string[];
  /** `<bucket>.s3.<region>.<suffix>`; undefined: no URL source is allowed. */
  readonly urlHost: string | undefined;
}

/** The S3 virtual-hosted name of the bucket, as presigned URLs and the stack's DNS firewall name it. */
export function s3Host(bucket: string | undefined, region: string | undefined): string | undefined {
  if (!bucket || !region) return undefined;
  return `${bucket}.s3.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
}

/** Checks a URL against the policy, pure; returns the refusal's code or undefined. */
export function urlRefusal(raw: string, policy: Pick<DataSourcePolicy, 'urlHost'>): DataSourceCode | undefined {
  if (!policy.urlHost) return 'data-source-url-not-configured';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'data-source-url-not-allowed';
  }
  const ok = url.protocol === 'https:' && url.hostname === policy.urlHost && url.port === '' && url.username === '' && url.password === '';
  return ok ? undefined : 'data-source-url-not-allowed';
}

/** Addresses the download never connects to, whatever DNS says. */
export function forbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) {
    const [a, b] = address.split('.').map(Number) as [number, number];
    return a === 127 || a === 0 || (a === 169 && b === 254) || a >= 224;
  }
  if (family === 6) {
    const v = address.toLowerCase();
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v);
    if (mapped) return forbiddenAddress(mapped[1]!);
    return v === '::1' || v === '::' || /^fe[89ab]/.test(v) || v.startsWith('ff');
  }
  return true;
}

/** A dns.lookup for the download's socket that refuses forbidden addresses at connect time. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as unknown as { address: string; family: number }[];
    const bad = list.find((a) => forbiddenAddress(a.address));
    if (bad || list.length === 0) return callback(Object.assign(new Error('forbidden address'), { code: 'EJUBEADDRESS' }), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
};


/**
 * Opens a file source under the rules; the caller reads from and closes the handle. `tenant`
 * narrows the roots to that tenant's directory (the local store's layout: <root>/<tenant>/...).
 */
export async function openFileSource(file: string, table: string, policy: DataSourcePolicy, tenant?: string): Promise<FileHandle> {
  if (policy.deployed) throw new DataSourceRefusal('data-source-file-deployed', table);
  const roots = (await Promise.all(policy.fileRoots.map((r) => realpath(r).catch(() => undefined)))).filter((r): r is string => r !== undefined);
  if (roots.length === 0) throw new DataSourceRefusal('data-source-file-no-root', table);
  // A tenant is a directory name ([a-z0-9-], as pointers name it); anything else scopes to nothing.
  if (tenant !== undefined && !/^[a-z0-9][a-z0-9-]*$/.test(tenant)) throw new DataSourceRefusal('data-source-file-outside-root', table);
  const scoped = tenant === undefined ? roots : roots.map((r) => path.join(r, tenant));
  const root = scoped.find((r) => path.isAbsolute(file) && path.normalize(file) === file && file.startsWith(r + path.sep));
  if (!root) throw new DataSourceRefusal('data-source-file-outside-root', table);
  // Every component below the root, the file included: a symlink anywhere is refused, not followed.
  let current = root;
  for (const part of file.slice(root.length + 1).split(path.sep)) {
    current = path.join(current, part);
    const info = await lstat(current).catch(() => undefined);
    if (!info) throw new DataSourceRefusal('data-source-file-unreadable', table);
    if (info.isSymbolicLink()) throw new DataSourceRefusal('data-source-file-symlink', table);
  }
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO swapped in would otherwise block the open until a writer comes.
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DataSourceRefusal(code === 'ELOOP' ? 'data-source-file-symlink' : 'data-source-file-unreadable', table);
  }
  try {
    if (!(await handle.stat()).isFile()) throw new DataSourceRefusal('data-source-file-not-regular', table);
    // What was opened, as the kernel names it: a directory swapped for a link after the walk shows here.
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (opened !== undefined && opened !== file) throw new DataSourceRefusal('data-source-file-outside-root', table);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}
