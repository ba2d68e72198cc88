import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How much a benchmark measures: the full run locally, a bounded one in CI (CI=true). */
export const inCi = (): boolean => process.env['CI'] === 'true';

/** `full` samples locally, `ci` under CI. */
export const samples = (full: number, ci: number): number => (inCi() ? ci : full);

/**
 * A scratch dir for one run of a section, under os.tmpdir(); under CI inside the directory the
 * section's parent made for it (JUBE_R_BENCH_SCRATCH), which the parent removes even when it
 * stops the section at its budget, where the section's own `finally` never runs.
 */
export const benchScratch = (prefix: string): string => mkdtempSync(join(process.env['JUBE_R_BENCH_SCRATCH'] ?? tmpdir(), prefix));
