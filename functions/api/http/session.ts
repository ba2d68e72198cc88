/**
 * The caller's session: header `X-Jube-Session` (any case), optional. Under `isolation: session` it
 * narrows the isolation key from the tenant to the tenant's session (isolation-key.ts), so an agent's
 * calls in one session share a warm environment and two sessions never share one. Same characters as
 * the tenant (it ends up in the invocation's TenantId); a malformed value is a 400, never dropped, since
 * dropping it would silently widen the caller's isolation to the whole tenant.
 */
import { isValidTenant, MAX_TENANT_LENGTH } from '../data-pointers/pointer.ts';
import { InvalidSessionError } from './errors.ts';

export const SESSION_HEADER = 'x-jube-session';
export const MAX_SESSION_LENGTH = MAX_TENANT_LENGTH;

/** `headers` must already have lower-case names (see ingress.ts). undefined: no session header. */
export function sessionOf(headers: Readonly<Record<string, string | undefined>>): string | undefined {
  const raw = headers[SESSION_HEADER];
  if (raw === undefined) return undefined;
  if (!isValidTenant(raw)) {
    throw new InvalidSessionError(
      `header X-Jube-Session must be 1-${MAX_SESSION_LENGTH} characters of lower-case letters, digits and "-", starting with a letter or digit`,
    );
  }
  return raw;
}
