/**
 * Resolved dataframes into the workdir before R starts: a presigned URL is downloaded (the
 * handler has network, the R process never does), a local file is copied. Both are streamed with
 * hard byte caps, per table and in total, counted on the uncompressed CSV (what R will load), so
 * a gzip bomb stops at the cap like any other oversized table.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { ResolvedDataframe } from '../../layers/contract/execute.ts';

export interface DataLimits {
  readonly maxDataframeBytes: number;
  readonly maxTotalBytes: number;
}

/** A table could not be staged; the message is safe to show the caller. */
export class DataframeStagingError extends Error {
  override readonly name = 'DataframeStagingError';
}

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

async function openSource(df: ResolvedDataframe, signal: AbortSignal): Promise<Readable> {
  if (df.source.kind === 'file') {
    const stream = createReadStream(df.source.path);
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', () => reject(new DataframeStagingError(`dataframe '${df.name}' could not be read`)));
    });
    return stream;
  }
  let response: Response;
  try {
    response = await fetch(df.source.url, { signal, redirect: 'error' });
  } catch {
    throw new DataframeStagingError(`dataframe '${df.name}' could not be downloaded`);
  }
  if (!response.ok || !response.body) {
    throw new DataframeStagingError(`dataframe '${df.name}' could not be downloaded (HTTP ${response.status})`);
  }
  return Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
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
    const source = await openSource(df, signal);
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
