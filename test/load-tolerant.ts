/**
 * What keeps a test's verdict independent of an idle machine (a loaded two-core CI machine may take
 * seconds to start R): a test whose subject is not the time limit runs its scripts under a generous
 * one, and a test of the runtime backstop derives the kill grace from this machine's measured cost
 * of a cold run now, asserting the mechanism (the kill, its note), not the clock.
 */
import type { ExecuteEventInput, ExecuteResponse } from '../layers/contract/execute.ts';

/** A script limit far above what any test script needs on an idle machine (under a second). */
export const GENEROUS_TIMEOUT_SECONDS = 30;

interface Runs {
  run(script: string, event?: Partial<ExecuteEventInput>, context?: { getRemainingTimeInMillis(): number }): Promise<ExecuteResponse>;
}

/** `h`, whose runs default to GENEROUS_TIMEOUT_SECONDS (a test's own timeoutSeconds still wins). */
export function generous<H extends Runs>(h: H): H {
  const run: Runs['run'] = (script, event = {}, context) => h.run(script, { timeoutSeconds: GENEROUS_TIMEOUT_SECONDS, ...event }, context);
  return { ...h, run } as H;
}

/** Median wall time (ms) of `samples` calls of `run`: what one cold run costs on this machine now. */
export async function baselineMs(run: () => Promise<unknown>, samples = 3): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(samples / 2)]!;
}

/**
 * A kill grace (JUBE_R_KILL_GRACE_SECONDS) that a cold run fits in four times over at the measured
 * baseline: at least the configuration's default of 2 s, at most 20 s (a test's own time bound).
 */
export function graceSecondsFor(baseline: number): number {
  return Math.min(20, Math.max(2, Math.ceil((4 * baseline) / 1000)));
}
