/**
 * The caller's tenant: header `X-Jube-Tenant` (any case). Where the execute function uses PER_TENANT
 * tenancy the header is required, since every caller without one would share the `default` tenant's
 * execution environments; elsewhere an absent header means `default`.
 */
import { DEFAULT_TENANT, isValidTenant, MAX_TENANT_LENGTH } from '../data-pointers/pointer.ts';
import { InvalidTenantError, TenantRequiredError } from './errors.ts';

export const TENANT_HEADER = 'x-jube-tenant';

export interface TenantOptions {
  /** true under PER_TENANT tenancy (ServiceConfig.executePerTenant). */
  readonly required: boolean;
}

/** `headers` must already have lower-case names (see ingress.ts). */
export function tenantOf(headers: Readonly<Record<string, string | undefined>>, options: TenantOptions = { required: false }): string {
  const raw = headers[TENANT_HEADER];
  if (raw === undefined) {
    if (options.required) {
      throw new TenantRequiredError(
        'header X-Jube-Tenant is required: this deployment isolates execution environments per tenant (PER_TENANT)',
      );
    }
    return DEFAULT_TENANT;
  }
  if (!isValidTenant(raw)) {
    throw new InvalidTenantError(
      `header X-Jube-Tenant must be 1-${MAX_TENANT_LENGTH} characters of lower-case letters, digits and "-", starting with a letter or digit`,
    );
  }
  return raw;
}
