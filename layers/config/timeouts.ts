/**
 * The two sums every timeout is built from, written once: the handler kills a run's process group
 * at its backstop, and the execute function lives for the backstop of the longest script plus the
 * handler's own work. The handler (functions/execute/run/run-in-workdir.ts), the local stack's
 * defaults (service-config.ts) and the deployed chain (infra/lib/timeout-chain.ts) all use these.
 */

/** When the handler kills the process group: R's own limit, then the kill grace. */
export const backstopSeconds = (timeoutSeconds: number, killGraceSeconds: number): number => timeoutSeconds + killGraceSeconds;

/** The execute function's timeout: the longest script's backstop plus the handler's own work. */
export const executeTimeoutSeconds = (maxScriptSeconds: number, killGraceSeconds: number, overheadSeconds: number): number =>
  backstopSeconds(maxScriptSeconds, killGraceSeconds) + overheadSeconds;

/** The handler's own work where no stack derives it (the local stack): start, data, R start-up, result, cleanup. */
export const LOCAL_EXECUTE_OVERHEAD_SECONDS = 5;
