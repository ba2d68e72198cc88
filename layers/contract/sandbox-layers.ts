/**
 * The names GET /health uses for sandbox layers. The execute runtime reports the ones it detects
 * (functions/execute/run/sandbox.ts) and a deployment declares its own (infra, JUBE_R_SANDBOX_LAYERS);
 * both take the names from here, so one layer never appears under two names.
 */
import type { SandboxStatus } from './api.ts';
import { parseCapsuleReport } from './runner.ts';

/** What every execute handler does, wherever it runs. */
export const EXECUTE_HANDLER_LAYERS = [
  'fresh-rscript-per-call',
  'allow-listed-environment',
  'private-workdir',
  'process-group-kill',
  'output-caps',
] as const;

/** prlimit on the Rscript (absent only when JUBE_R_PRLIMIT=none). */
export const RLIMITS_LAYER = 'rlimits';

/** bubblewrap, where the host allows its namespaces (never in Lambda). */
export const BWRAP_LAYERS = ['bwrap-namespaces', 'no-network', 'read-only-system-dirs'] as const;

/**
 * The capsule (r-image/capsule), as its report names what it armed: the interposition layer
 * (libc and native routines) everywhere, the capability rows in R's dispatch table and the sealed
 * PLT slots where it runs R, Landlock and seccomp only where the kernel accepted no_new_privs
 * (never in Lambda).
 */
export const CAPSULE_LAYERS = {
  preload: 'capsule-preload',
  /** The capability table's rows in R's own dispatch table (dispatch.c). */
  dispatch: 'capsule-dispatch-table',
  /** Every loaded object's PLT slots read-only where their pages hold nothing else (relro.c). */
  got: 'capsule-plt-sealed',
  landlock: 'capsule-landlock',
  seccomp: 'capsule-seccomp',
} as const;

/** The static checks in front of every run: the API function's, then R's own re-validation. */
export const VALIDATION_LAYERS = ['ingress-limits', 'shape-check', 'static-walk', 'r-revalidation'] as const;

/** setTimeLimit on the script (the runner), inside the process-group kill and Lambda's timeout. */
export const R_TIME_LIMIT_LAYER = 'r-time-limit';

/** What only a deployment provides; the stack declares these (infra/lib/environment-variables.ts). */
export const PLATFORM_LAYERS = {
  microvm: 'lambda-microvm',
  perTenantIsolation: 'lambda-per-tenant-isolation',
  noCredentialsInside: 'no-credentials-inside',
  executeRoleLogsOnly: 'execute-role-logs-only',
  isolatedSubnets: 'isolated-subnets-s3-get-only',
  dnsFirewall: 'dns-firewall',
  readOnlyImage: 'read-only-image',
} as const;

/** After-run hygiene beyond the run's own processes and workdir (functions/execute/environment/hygiene.ts). */
export const HYGIENE_LAYERS = {
  environmentSweep: 'environment-sweep',
  writableWipe: 'writable-wipe',
  /** System V IPC objects and POSIX queues removed (ipc-hygiene.ts). */
  ipcCleanup: 'ipc-cleanup',
} as const;

/**
 * The layers in a capsule report such as "preload=armed landlock=abi6 seccomp=active"; a layer
 * reported off or unavailable is absent.
 */
export function capsuleLayers(report: string): string[] {
  const parsed = parseCapsuleReport(report)!;
  const layers: string[] = [];
  if (parsed.armed) layers.push(CAPSULE_LAYERS.preload);
  if (parsed.armed && parsed.dispatch) layers.push(CAPSULE_LAYERS.dispatch);
  if (parsed.armed && parsed.got) layers.push(CAPSULE_LAYERS.got);
  if (parsed.landlockAbi !== undefined) layers.push(CAPSULE_LAYERS.landlock);
  if (parsed.seccomp) layers.push(CAPSULE_LAYERS.seccomp);
  return layers;
}

/** The layers the deployment declares (JUBE_R_SANDBOX_LAYERS), if it declares any. */
export function configuredSandbox(declared: readonly string[] | undefined): SandboxStatus | undefined {
  return declared === undefined ? undefined : { source: 'config', layers: [...declared] };
}

/**
 * The layers that still hold once a script owns its R process (docs/threat-model.md): enforced by
 * the kernel or the hypervisor, so nothing the script does inside R lifts them. The capsule's
 * interposition and R-internals layers are not among them: they live in the process the script
 * owns. Neither are rlimits, hygiene or the caps, which bound a run but confine nothing.
 */
export const BELOW_R_LAYERS: readonly string[] = [
  CAPSULE_LAYERS.landlock,
  CAPSULE_LAYERS.seccomp,
  BWRAP_LAYERS[0],
  PLATFORM_LAYERS.microvm,
];

/** GET /health `sandbox.sandboxed`: whether any layer below R is in force here. */
export function isSandboxed(layers: readonly string[]): boolean {
  return layers.some((layer) => BELOW_R_LAYERS.includes(layer));
}
