/**
 * The answer when the environment could not be cleaned before a run (or at init): the script is
 * not run, the failure is the service's, and the error starts with a stable code a caller can
 * match. The problems name what is left (a pid, an IPC id, a path), never what it holds.
 */
import type { ExecuteResponse } from '../../../layers/contract/execute.ts';
import type { HygieneReport } from './environment-hygiene.ts';
import type { ResponseBase } from '../output/response.ts';

export const ENVIRONMENT_NOT_CLEAN = 'environment-not-clean';

export function notCleanResponse(report: Pick<HygieneReport, 'phase' | 'problems'>, base: ResponseBase): ExecuteResponse {
  return {
    status: 'error', consoleOutput: '', warnings: [], timedOut: false, errorType: 'interpreter', retryable: false, ...base,
    error: `${ENVIRONMENT_NOT_CLEAN}: the execution environment could not be cleaned (${report.phase}): ${report.problems.join('; ')}; the script was not run and this environment is retired`,
  };
}
