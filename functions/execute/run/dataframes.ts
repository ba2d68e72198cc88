/**
 * Resolved dataframes into the workdir before R starts: a presigned URL is downloaded (the
 * handler has network, the R process never does), a local file is copied, each only where the
 * source rules allow it (data-sources.ts). Both are streamed with hard byte caps, per table and
 * in total, counted on the uncompressed CSV (what R will load), so a gzip bomb stops at the cap
 * like any other oversized table. No message names a source or echoes a byte of it.
 */
import { createWriteStream } from 'node:fs';
import { get } from 'node:https';
import { join } from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { ResolvedDataframe } from '../../../layers/contract/execute.ts';
import { DataSourceRefusal, guardedLookup, openFileSource, urlRefusal, type DataSourceCode, type DataSourcePolicy } from './data-sources.ts';

export interface DataLimits {
  readonly maxDataframeBytes: number;
  readonly maxTotalBytes: number;
}

/** A table could not be staged; the message is safe to show the caller. */
export class DataframeStagingError extends Error {
  override readonly name = 'DataframeStagingError';
  /** Set when a source rule refused the table (data-sources.ts). */
  readonly code?: DataSourceCode;
  constructor(message: string, options?: ErrorOptions & { code?: DataSourceCode }) {
    super(message, options);
    if (options?.code) this.code = options.code;
  }
}

/** What the handler may read for a table: the rules, the caller's tenant, and how to download. */
export interface SourceAccess {
  readonly policy: DataSourcePolicy;
  /** The tenant of the invocation's isolation key, when Lambda gave one: file sources stay in its directory. */
  readonly tenant?: string | undefined;
  /** Downloads an allowed URL; tests replace it (nothing here answers as the bucket's S3 host). */
  readonly download?: (url: URL, signal: AbortSignal) => Promise<Readable>;
}

/** HTTPS GET without redirects, connecting only to an address guardedLookup allows. */
export function httpsDownload(url: URL, signal: AbortSignal): Promise<Readable> {
  return new Promise((resolve, reject) => {
    const req = get(url, { lookup: guardedLookup, signal, headers: { accept: '*/*' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new HttpStatusError(res.statusCode ?? 0));
        return;
      }
      resolve(res);
    });
    req.once('error', reject);
  });
}

class HttpStatusError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

const refused = (error: DataSourceRefusal) => new DataframeStagingError(error.message, { code: error.code });

class ByteCap extends Transform {
  private seen = 0;
  constructor(
    private readonly name: string,
    private readonly perTable: number,
    private readonly total: { used: number; readonly max: number },
  ) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    this.total.used += chunk.length;
    if (this.seen > this.perTable) {
      done(new DataframeStagingError(`dataframe '${this.name}' exceeds the ${this.perTable}-byte limit per table`));
    } else if (this.total.used > this.total.max) {
      done(new DataframeStagingError(`the dataframes exceed the ${this.total.max}-byte limit in total`));
    } else {
      done(null, chunk);
    }
  }
}

async function openSource(df: ResolvedDataframe, signal: AbortSignal, access: SourceAccess): Promise<Readable> {
  if (df.source.kind === 'file') {
    try {
      const handle = await openFileSource(df.source.path, df.name, access.policy, access.tenant);
      return handle.createReadStream();
    } catch (error) {
      if (error instanceof DataSourceRefusal) throw refused(error);
      throw new DataframeStagingError(`dataframe '${df.name}' could not be read`);
    }
  }
  const code = urlRefusal(df.source.url, access.policy);
  if (code) throw refused(new DataSourceRefusal(code, df.name));
  try {
    return await (access.download ?? httpsDownload)(new URL(df.source.url), signal);
  } catch (error) {
    if (error instanceof HttpStatusError) throw new DataframeStagingError(`dataframe '${df.name}' could not be downloaded (HTTP ${error.status})`);
    if ((error as NodeJS.ErrnoException).code === 'EJUBEADDRESS') throw refused(new DataSourceRefusal('data-source-url-address', df.name));
    throw new DataframeStagingError(`dataframe '${df.name}' could not be downloaded`);
  }
}

export interface StagedDataframe {
  readonly name: string;
  /** Relative to the workdir. */
  readonly file: string;
}

/** Stages every table or none: the first failure aborts the rest and throws. */
export async function stageDataframes(
  dataframes: readonly ResolvedDataframe[],
  dataDir: string,
  limits: DataLimits,
  signal: AbortSignal,
  access: SourceAccess,
): Promise<StagedDataframe[]> {
  const total = { used: 0, max: limits.maxTotalBytes };
  const staged: StagedDataframe[] = [];
  // The declared sizes first: refuse at once what would fail anyway, before any byte moves.
  const overOne = dataframes.find((df) => df.bytes > limits.maxDataframeBytes);
  if (overOne) throw new DataframeStagingError(`dataframe '${overOne.name}' exceeds the ${limits.maxDataframeBytes}-byte limit per table`);
  if (dataframes.reduce((sum, df) => sum + df.bytes, 0) > limits.maxTotalBytes) {
    throw new DataframeStagingError(`the dataframes exceed the ${limits.maxTotalBytes}-byte limit in total`);
  }
  for (const [index, df] of dataframes.entries()) {
    const relative = join('data', `${index}.csv`);
    const source = await openSource(df, signal, access);
    const stages: (Readable | Transform)[] = [source];
    // The compressed bytes are capped too, so a slow trickle of gzip cannot run forever unbounded.
    stages.push(new ByteCap(df.name, limits.maxDataframeBytes, { used: 0, max: limits.maxTotalBytes }));
    if (df.source.gzip) stages.push(createGunzip());
    stages.push(new ByteCap(df.name, limits.maxDataframeBytes, total));
    try {
      await pipeline([...stages, createWriteStream(join(dataDir, `${index}.csv`), { mode: 0o600 })], { signal });
    } catch (error) {
      source.destroy();
      if (error instanceof DataframeStagingError) throw error;
      if (signal.aborted) throw new DataframeStagingError(`dataframe '${df.name}' could not be staged in time`);
      throw new DataframeStagingError(`dataframe '${df.name}' could not be read${df.source.gzip ? ' as gzip' : ''}`, { cause: error });
    }
    staged.push({ name: df.name, file: relative });
  }
  return staged;
}
