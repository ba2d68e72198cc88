/**
 * How much of the execute function's memory R may take. Lambda's memory setting bounds the whole
 * execution environment: the runtime interface client, the Node handler (which buffers R's output
 * up to the caps, and base64-encodes plots for the response) and R. If R alone may grow to the whole
 * amount, the environment is OOM-killed as a whole (the call ends as a bare function error and the
 * next call pays a cold start) instead of R failing one allocation with a clean R error. So R's
 * address-space rlimit (JUBE_R_RLIMIT_AS_BYTES, read by layers/config/service-config.ts) is the
 * function's memory minus what the handler keeps. Pure.
 *
 * RLIMIT_AS caps virtual address space, which is never less than what R really uses, so R hits it
 * before the environment runs out; the price is that large untouched reservations count too.
 */

const MIB = 1024 * 1024;

/** What the environment keeps outside R: the Node 24 handler and runtime client, and their buffers. */
export const EXECUTE_HANDLER_RESERVE_MIB = 384;
/** The lowest address-space limit R starts with its packages under (service-config.ts accepts no less). */
export const MIN_R_ADDRESS_SPACE_MIB = 256;
/** The smallest execute memory that leaves R its minimum after the handler's reserve. */
export const MIN_EXECUTE_MEMORY_MIB = EXECUTE_HANDLER_RESERVE_MIB + MIN_R_ADDRESS_SPACE_MIB;

/** R's address-space limit in bytes for an execute function of `memoryMiB`. */
export function rAddressSpaceLimitBytes(memoryMiB: number): number {
  if (!Number.isInteger(memoryMiB) || memoryMiB < MIN_EXECUTE_MEMORY_MIB) {
    throw new RangeError(
      `execute memory must be a whole number of MiB >= ${MIN_EXECUTE_MEMORY_MIB} ` +
        `(${EXECUTE_HANDLER_RESERVE_MIB} for the handler + ${MIN_R_ADDRESS_SPACE_MIB} for R); got ${memoryMiB}`,
    );
  }
  return (memoryMiB - EXECUTE_HANDLER_RESERVE_MIB) * MIB;
}
