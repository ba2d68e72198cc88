/**
 * The isolation key: the TenantId of the execute invocation. Under PER_TENANT tenancy Lambda gives
 * every TenantId execution environments (Firecracker microVMs) of its own, so the key decides whose
 * calls may ever meet in one environment, and therefore what a script that owns its environment can
 * reach of anyone else: nothing outside its own key.
 *
 * Derivation is pure and injective. The tenant and the session are [a-z0-9-] (pointer.ts), so `_`
 * can only be a separator: `<tenant>` (a tenant's key), `<tenant>_<session>` (a session's; a session
 * cannot start with `_`), `<tenant>__<32 hex>` (one run's, random). No two callers' keys coincide,
 * and the same (tenant, session) always gives the same key, so its calls reuse a warm environment.
 *
 * The data a call may bind stays the tenant's (data pointers resolve under the tenant alone): a
 * session narrows who shares an environment, never what a tenant may read.
 */
import { randomBytes } from 'node:crypto';
import { ISOLATION_KEY_SEPARATOR as SEP, type IsolationMode } from '../../../layers/contract/isolation.ts';
import { MAX_TENANT_LENGTH } from '../data-pointers/pointer.ts';
import { MAX_SESSION_LENGTH } from '../http/session.ts';

export interface IsolationCaller {
  readonly tenant: string;
  /** X-Jube-Session, already validated (session.ts); undefined when the caller sent none. */
  readonly session: string | undefined;
}

/** The longest key derivation can produce: a tenant, `_` and a session. */
export const MAX_ISOLATION_KEY_LENGTH = MAX_TENANT_LENGTH + 1 + MAX_SESSION_LENGTH;
/** Every key matches this: characters that any HTTP header (X-Amz-Tenant-Id) and AWS identifier carry. */
export const ISOLATION_KEY_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;

/** 128 random bits, so no two runs' keys coincide (and none is guessable from another). */
const randomRunId = (): string => randomBytes(16).toString('hex');

export function isolationKey(mode: IsolationMode, caller: IsolationCaller, runId: () => string = randomRunId): string {
  switch (mode) {
    case 'tenant':
      return caller.tenant;
    case 'session':
      return caller.session === undefined ? caller.tenant : `${caller.tenant}${SEP}${caller.session}`;
    case 'run':
      return `${caller.tenant}${SEP}${SEP}${runId()}`;
  }
}
