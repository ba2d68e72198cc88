/** Timing helpers the execute and warm-start benchmarks share. */
import { execa } from 'execa';

/** Wall-clock ms of one call. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/**
 * Median ms of `callr::r(function() CODE)` over `rounds` calls inside one R process (so its own
 * start-up is not counted), or undefined when callr fails.
 */
export async function callrMedian(code: string, scratch: string, rounds: number): Promise<number | undefined> {
  const r = `f <- function() { ${code}; NULL }
invisible(callr::r(f))
t <- vapply(seq_len(${rounds}), function(i) { s <- proc.time()[["elapsed"]]; callr::r(f); proc.time()[["elapsed"]] - s }, 0)
cat(stats::median(t) * 1000)`;
  const result = await execa('Rscript', ['--vanilla', '-e', r], { reject: false, cwd: scratch });
  const ms = Number(result.stdout.trim());
  return result.exitCode === 0 && Number.isFinite(ms) ? ms : undefined;
}
