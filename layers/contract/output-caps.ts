/**
 * The output caps: what a run may return, field by field. Their values are configuration
 * (layers/config/service-config.ts reads them from JUBE_R_MAX_*); their names are the contract the
 * handler, the runner (through input.json, layers/contract/runner.ts) and GET /health share, so
 * they are listed here once and config depends on contract, never the reverse.
 */

export const OUTPUT_CAP_KEYS = [
  'consoleOutputBytes', 'errorBytes', 'warnings', 'warningBytes', 'resultBytes', 'messages', 'messageBytes',
  'valueBytes', 'callBytes', 'tracebackFrames', 'notes', 'noteBytes', 'validationErrors', 'responseBytes',
] as const;

export type OutputCaps = { readonly [K in (typeof OUTPUT_CAP_KEYS)[number]]: number };

/** The caps the runner applies itself before it writes the envelope; the handler applies them again. */
export const RUNNER_CAP_KEYS = [
  'errorBytes', 'warnings', 'warningBytes', 'messages', 'messageBytes', 'valueBytes', 'callBytes', 'tracebackFrames',
] as const satisfies readonly (keyof OutputCaps)[];

export type RunnerCaps = Pick<OutputCaps, (typeof RUNNER_CAP_KEYS)[number]>;
