/**
 * The session store (docs/sessions.md): per tenant and session, the snapshot of the session's last
 * kept call (opaque bytes: base64 of a gzip the execute function made) and that call's number. The
 * API function serves every tenant, so it never parses a snapshot: it bounds, stores and passes
 * bytes. Locally a directory (local-store.ts), in AWS a bucket of its own (s3-store.ts).
 */
import type { ServiceConfig } from '../../../layers/config/service-config.ts';

export interface StoredSession {
  /** The number of the last call whose workspace the snapshot holds. */
  readonly call: number;
  /** Base64 of the snapshot's gzip, as the execute function returned it. */
  readonly snapshot: string;
  /** When it was written (epoch ms): the session's last use. */
  readonly writtenAt: number;
}

export interface SessionStore {
  get(tenant: string, session: string): Promise<StoredSession | undefined>;
  put(tenant: string, session: string, stored: Pick<StoredSession, 'call' | 'snapshot'>): Promise<void>;
  /** true when there was one to delete. */
  delete(tenant: string, session: string): Promise<boolean>;
}

/** The store's key of a session: tenants and sessions are [a-z0-9-] (never `/` or `..`). */
export const sessionObjectKey = (tenant: string, session: string): string => `${tenant}/${session}.json`;

/** A session's state before a call: what the event carries, and whether the stored one expired. */
export interface SessionStart {
  readonly call: number;
  readonly snapshot?: string;
  readonly expired?: true;
}

/** What the API says of a session whose stored snapshot is over this deployment's cap (a cap lowered since). */
export const OVERSIZED_SNAPSHOT_NOTE =
  "the session's stored workspace is larger than this deployment's limits.maxSessionBytes now, so this call starts with an empty workspace";

/**
 * Reads a session before its call. A session idle past `idleSeconds` is deleted and starts new; a
 * stored snapshot over the transit cap (a cap lowered since it was written) is not sent: the call
 * starts with an empty workspace (the caller notes it, OVERSIZED_SNAPSHOT_NOTE).
 */
export async function startSession(
  store: SessionStore,
  limits: ServiceConfig['sessions'],
  tenant: string,
  session: string,
  now: number,
  maxTransitBytes: number,
): Promise<SessionStart> {
  const stored = await store.get(tenant, session);
  if (!stored) return { call: 0 };
  if (now - stored.writtenAt > limits.idleSeconds * 1000) {
    await store.delete(tenant, session);
    return { call: 0, expired: true };
  }
  if (stored.snapshot.length > maxTransitBytes) return { call: stored.call };
  return { call: stored.call, snapshot: stored.snapshot };
}
