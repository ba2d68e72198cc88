/**
 * Resolves a request's data pointers inside the caller's tenant, against the local directory or
 * (when JUBE_R_DATA_BUCKET is set) the S3 bucket, and enforces the size limits.
 *
 * Every way a pointer can fail (malformed, missing, stale, another tenant's, a symlink out of the
 * tenant, not a regular file, a store error) collapses into one outcome object with no detail.
 * Stores only ever look inside the caller's own tenant, so "another tenant's" and "missing" take
 * the same path; and every pointer is looked up, never stopping at the first failure, so the
 * position or number of bad pointers does not show in the timing either.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import type { ResolvedDataframe } from '../../../layers/contract/execute.ts';
import { createLocalPointerStore } from './local-resolver.ts';
import { isValidPointer, isValidTenant } from './pointer.ts';
import { createPresignerClient, createS3PointerStore } from './s3-resolver.ts';
import type { DataframeRequest } from '../../../layers/contract/api.ts';
import type { DataPointerResolver, LocatedTable, PointerStore, ResolveOutcome } from './types.ts';

export { dataPointerUnresolvedMessage } from './types.ts';

export const UNRESOLVED: ResolveOutcome = Object.freeze({ ok: false, code: 'DATA_POINTER_UNRESOLVED' } as const);

export interface DataSizeLimits {
  readonly maxDataframeBytes: number;
  readonly maxTotalBytes: number;
}

export function createResolver(store: PointerStore, limits: DataSizeLimits): DataPointerResolver {
  return {
    async resolve(tenant, requests) {
      const tenantOk = isValidTenant(tenant);
      const located = await Promise.all(
        requests.map((request) => (tenantOk ? locateOne(store, tenant, request) : Promise.resolve(undefined))),
      );
      if (located.some((entry) => entry === undefined)) return UNRESOLVED;
      const dataframes = requests.map((request, i): ResolvedDataframe => ({ name: request.name, ...located[i]! }));
      return checkSizes(dataframes, limits) ?? { ok: true, dataframes };
    },
  };
}

async function locateOne(store: PointerStore, tenant: string, request: DataframeRequest): Promise<LocatedTable | undefined> {
  if (!isValidPointer(request.dataPointer)) return undefined;
  try {
    return await store.locate(tenant, request.dataPointer);
  } catch {
    return undefined;
  }
}

/** Limits apply to the stored bytes (compressed, for `.csv.gz`); names the table, never the pointer. */
export function checkSizes(dataframes: readonly ResolvedDataframe[], limits: DataSizeLimits): ResolveOutcome | undefined {
  const tooBig = dataframes.find((df) => df.bytes > limits.maxDataframeBytes);
  if (tooBig) {
    return {
      ok: false,
      code: 'DATAFRAME_TOO_LARGE',
      message: `dataframe "${tooBig.name}" is ${tooBig.bytes} bytes, over the limit of ${limits.maxDataframeBytes} bytes per dataframe`,
    };
  }
  const total = dataframes.reduce((sum, df) => sum + df.bytes, 0);
  if (total > limits.maxTotalBytes) {
    return {
      ok: false,
      code: 'DATAFRAME_TOO_LARGE',
      message: `dataframes total ${total} bytes (${dataframes.map((df) => df.name).join(', ')}), over the limit of ${limits.maxTotalBytes} bytes in total`,
    };
  }
  return undefined;
}

/** S3 when `config.data.bucket` is set, else the local directory `config.data.dir`. */
export function createDataPointerResolver(config: ServiceConfig, deps: { s3?: S3Client } = {}): DataPointerResolver {
  const { data } = config;
  const store = data.bucket
    ? createS3PointerStore({ client: deps.s3 ?? createPresignerClient(), bucket: data.bucket, presignTtlSeconds: data.presignTtlSeconds })
    : createLocalPointerStore(data.dir);
  return createResolver(store, { maxDataframeBytes: data.maxDataframeBytes, maxTotalBytes: data.maxTotalBytes });
}
