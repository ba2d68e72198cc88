/**
 * Isolation keys: the names shared by the stack, the API function's configuration and GET /health.
 * In Lambda the boundary is the Firecracker microVM of one execution environment; under PER_TENANT
 * tenancy an environment only ever serves invocations carrying one TenantId, so the TenantId the
 * API function derives (functions/api/invoke/isolation-key.ts) decides who can ever meet whose
 * leftovers.
 */

/**
 * What one key stands for: `tenant` (every call of a tenant), `session` (a tenant's calls that send
 * one X-Jube-Session; without the header, the tenant's own key), `run` (each call its own key, so
 * its own new microVM: Lambda's only real fresh environment per run).
 */
export const ISOLATION_MODES = ['tenant', 'session', 'run'] as const;
export type IsolationMode = (typeof ISOLATION_MODES)[number];

/** The execute function's TenancyConfig as the API function sees it (JUBE_R_EXECUTE_TENANCY). */
export const TENANCIES = ['PER_TENANT', 'SHARED'] as const;
export type Tenancy = (typeof TENANCIES)[number];

/**
 * What actually keeps two keys apart where the API function runs, for GET /health:
 * `lambda-tenant-isolation` (deployed, PER_TENANT), `container-per-key` (the local stack's container
 * runtime), `none` (shared tenancy, or the local host-R runtime, which runs every key in one process
 * tree on the host and cannot isolate them).
 */
export const ISOLATION_BOUNDARIES = ['lambda-tenant-isolation', 'container-per-key', 'none'] as const;
export type IsolationBoundary = (typeof ISOLATION_BOUNDARIES)[number];

/**
 * Lambda's cap on tenant execution environments, active or idle: 2,500 for every 1,000 concurrent
 * executions of the function ("Troubleshooting tenant isolation for Lambda functions"); past it an
 * invoke with a new TenantId gets TooManyRequestsException. The local container runtime applies the
 * same cap to its containers, so the same path can be shown without AWS.
 */
export const TENANT_ENVIRONMENTS_PER_CONCURRENCY = 2.5;
export function tenantEnvironmentCap(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency * TENANT_ENVIRONMENTS_PER_CONCURRENCY));
}

/**
 * Who may name which tenant (the path's `/t/{tenant}/`), as the API function checks it against the
 * caller's IAM identity (functions/api/http/caller.ts) and the stack's policies enforce it:
 * - `identity`: the caller is a session of the tenant role named after its tenant and tagged with it
 *   (TENANT_TAG_KEY); IAM allows it only its own tenant's path, and the API refuses any other.
 * - `single-orchestrator`: one trusted role names every tenant (an explicit deployment choice).
 * - `unchecked`: no IAM in front (the local stack, sam local): the path's tenant is taken as given.
 */
export const TENANT_BINDINGS = ['identity', 'single-orchestrator', 'unchecked'] as const;
export type TenantBinding = (typeof TENANT_BINDINGS)[number];

/** The principal tag (role tag or STS session tag) that names a caller's tenant under `identity`. */
export const TENANT_TAG_KEY = 'jube-tenant';

/**
 * The separator in an isolation key: tenants and sessions are [a-z0-9-], so `_` only ever joins
 * them (`<tenant>`, `<tenant>_<session>`, `<tenant>__<run id>`; derived in
 * functions/api/invoke/isolation-key.ts).
 */
export const ISOLATION_KEY_SEPARATOR = '_';

/** The tenant an isolation key belongs to: what the execute side scopes a tenant's data by. */
export function tenantOfKey(key: string): string {
  const at = key.indexOf(ISOLATION_KEY_SEPARATOR);
  return at < 0 ? key : key.slice(0, at);
}
