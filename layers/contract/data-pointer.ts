/**
 * Syntax of data pointers and tenants. Both end up as path segments (a directory on disk, an S3
 * key prefix), so they are restricted to one segment of plain ASCII: no separators, no `..`, no
 * encodings, bounded length. Anything outside this syntax never reaches a store.
 */
import { z } from 'zod';

export const MAX_POINTER_LENGTH = 128;
export const MAX_TENANT_LENGTH = 63;

/** One path segment: starts alphanumeric, then letters, digits, `.`, `_`, `-`; no `..` anywhere. Length: MAX_POINTER_LENGTH. */
const POINTER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** DNS-label-like, lower case: usable as a directory, an S3 prefix and a Lambda TenantId alike. Length: MAX_TENANT_LENGTH. */
const TENANT_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

export const PointerSchema = z
  .string()
  .max(MAX_POINTER_LENGTH)
  .regex(POINTER_PATTERN)
  .refine((pointer) => !pointer.includes('..'), 'must not contain ".."');

export const TenantSchema = z.string().max(MAX_TENANT_LENGTH).regex(TENANT_PATTERN);

/** The default tenant when the caller sends no tenant header (local stack, single-tenant use). */
export const DEFAULT_TENANT = 'default';

export function isValidPointer(pointer: unknown): pointer is string {
  return PointerSchema.safeParse(pointer).success;
}

export function isValidTenant(tenant: unknown): tenant is string {
  return TenantSchema.safeParse(tenant).success;
}

/** The stored object names a pointer may take, in order of preference. */
export const POINTER_SUFFIXES = [
  { suffix: '.csv', gzip: false },
  { suffix: '.csv.gz', gzip: true },
] as const;

/** Where a tenant's table is stored: `<tenant>/<pointer><suffix>`, an S3 key or a path under the data directory alike. */
export function storedName(tenant: string, pointer: string, suffix: (typeof POINTER_SUFFIXES)[number]['suffix']): string {
  return `${tenant}/${pointer}${suffix}`;
}
