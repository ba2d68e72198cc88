/** How much a benchmark measures: the full run locally, a bounded one in CI (CI=true). */
export const inCi = (): boolean => process.env['CI'] === 'true';

/** `full` samples locally, `ci` under CI. */
export const samples = (full: number, ci: number): number => (inCi() ? ci : full);
