/**
 * What every front shows first about a run that did not end ok: the cause, the script line and the
 * hints. The runner writes that text once, as the response's `error` (r-image/runner/R/error-cause.R:
 * "Error: ...", "At line N: ...", "Hint: ..."), and HTTP callers and the R client read it there; the
 * MCP server and the CLI show it through this function, so no front rebuilds it from parts.
 */
import type { ExecuteResponse } from './execute.ts';

export function failureText(response: ExecuteResponse): string {
  const cause = response.error ?? response.errorDetails?.message ?? `the script ended with status ${response.status}`;
  return response.timedOut ? `timed out after ${response.durationMs} ms: ${cause}` : cause;
}
