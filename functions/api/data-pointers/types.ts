/**
 * Data pointers: how a caller names a table it wants bound as a dataframe. A pointer resolves
 * only inside the caller's tenant; every way of not resolving is one indistinguishable outcome.
 */
import type { DataframeRequest } from '../../../layers/contract/api.ts';
import type { ResolvedDataframe } from '../../../layers/contract/execute.ts';

/**
 * The one message for every unresolved pointer; the HTTP layer must use exactly this. It names the
 * tenant that was asked (the caller's own, from the path), so a caller that meant another tenant
 * sees which one it reached, and never says why or whether the pointer exists elsewhere.
 */
export const dataPointerUnresolvedMessage = (tenant: string): string =>
  `One or more data pointers could not be resolved for tenant '${tenant}'; nothing was run.`;

export type ResolveOutcome =
  | { readonly ok: true; readonly dataframes: readonly ResolvedDataframe[] }
  /** Deliberately carries no reason: unresolved is unresolved, whoever asks. */
  | { readonly ok: false; readonly code: 'DATA_POINTER_UNRESOLVED' }
  | { readonly ok: false; readonly code: 'DATAFRAME_TOO_LARGE'; readonly message: string };

export interface DataPointerResolver {
  resolve(tenant: string, requests: readonly DataframeRequest[]): Promise<ResolveOutcome>;
}

/** One pointer found in a store: where the execute function fetches it from, and its stored size. */
export interface LocatedTable {
  readonly source: ResolvedDataframe['source'];
  readonly bytes: number;
}

/**
 * A backing store (local directory, S3 bucket). `locate` is only called with a tenant and pointer
 * that already passed the syntax checks in pointer.ts; it answers `undefined` for every kind of
 * "not there" and never throws for one.
 */
export interface PointerStore {
  readonly kind: 'local' | 's3';
  locate(tenant: string, pointer: string): Promise<LocatedTable | undefined>;
}
