/** The caller's tenant: header `X-Jube-Tenant` (any case), `default` when absent. */
import { DEFAULT_TENANT, isValidTenant, MAX_TENANT_LENGTH } from '../data-pointers/pointer.ts';
import { InvalidTenantError } from './errors.ts';

export const TENANT_HEADER = 'x-jube-tenant';

/** `headers` must already have lower-case names (see ingress.ts). */
export function tenantOf(headers: Readonly<Record<string, string | undefined>>): string {
  const raw = headers[TENANT_HEADER];
  if (raw === undefined) return DEFAULT_TENANT;
  if (!isValidTenant(raw)) {
    throw new InvalidTenantError(
      `header X-Jube-Tenant must be 1-${MAX_TENANT_LENGTH} characters of lower-case letters, digits and "-", starting with a letter or digit`,
    );
  }
  return raw;
}
