/**
 * The /execute response from an outcome, pure (no R, no clock): caps on the error and warnings,
 * the structured result, `truncated`, and the wording that says which layer ended a run. New
 * response fields are mapped here from the outcome and the envelope.
 */
import type { ServiceConfig } from '../../layers/config/service-config.ts';
import type { ExecuteResponse } from '../../layers/contract/execute.ts';
import type { ValidationResult } from '../../layers/contract/validation.ts';
import { capText, capWarnings, type CapturedOutput } from './caps.ts';
import type { ExecuteOutcome } from './outcome.ts';

/** The fields every response carries, decided by the handler when it answers. */
export type ResponseBase = Pick<ExecuteResponse, 'durationMs' | 'rVersion' | 'timestamp'>;

export interface ResponseLimits {
  readonly timeoutSeconds: number;
  readonly killGraceSeconds: number;
  readonly caps: Pick<ServiceConfig['caps'], 'errorBytes' | 'warnings' | 'warningBytes'>;
}

/** The TypeScript validator refused the script: R never started. */
export function rejectedResponse(validation: ValidationResult, base: ResponseBase): ExecuteResponse {
  return { status: 'rejected', consoleOutput: '', error: null, warnings: [], timedOut: false, validation, ...base };
}

export function executeResponse(outcome: ExecuteOutcome, limits: ResponseLimits, base: ResponseBase): ExecuteResponse {
  if (outcome.kind === 'not-staged') {
    return { status: 'error', consoleOutput: '', error: `${outcome.message}; the script was not run`, warnings: [], timedOut: false, ...base };
  }
  const { output } = outcome;
  const fromOutput = resultFields(output);
  const truncated = output.truncated || (output.result.kind === 'invalid' && output.result.overflow === true);

  if (outcome.kind === 'killed') {
    const error = backstopMessage(outcome.afterMs, outcome.byRemainingTime, limits);
    return finish({ status: 'error', consoleOutput: output.consoleOutput, error, warnings: [], timedOut: true, ...fromOutput, ...base }, truncated);
  }

  if (outcome.kind === 'no-envelope') {
    const how = outcome.signal ? `signal ${outcome.signal}` : `exit code ${outcome.exitCode ?? 'unknown'}`;
    const lastWords = outcome.stderrTail.trim().split('\n').slice(-5).join('\n');
    const detail = lastWords ? `; R said: ${lastWords}` : '';
    const error = capText(`R exited without a result (${how}; ${outcome.reason})${detail}`, limits.caps.errorBytes);
    return finish(
      { status: 'error', consoleOutput: output.consoleOutput, error: error.value, warnings: [], timedOut: false, ...fromOutput, ...base },
      truncated || error.truncated,
    );
  }

  const { envelope } = outcome;
  if (envelope.status === 'rejected') {
    return {
      status: 'rejected', consoleOutput: '', error: null, warnings: [], timedOut: false,
      validation: { valid: false, errors: envelope.validation ?? [], lint: [], durationMs: 0 },
      ...base, rVersion: envelope.rVersion,
    };
  }
  const error = envelope.error === null ? { value: null, truncated: false } : capText(envelope.error, limits.caps.errorBytes);
  const warnings = capWarnings(envelope.warnings, limits.caps.warnings, limits.caps.warningBytes);
  return finish({
    status: envelope.status,
    consoleOutput: output.consoleOutput,
    error: error.value,
    warnings: warnings.value,
    timedOut: envelope.timedOut,
    ...fromOutput,
    ...base,
    rVersion: envelope.rVersion,
  }, truncated || error.truncated || warnings.truncated || (envelope.warningsDropped ?? 0) > 0);
}

/** Which layer killed the run: the script's own limit plus grace, or the invocation running out. */
export function backstopMessage(afterMs: number, byRemainingTime: boolean, limits: Pick<ResponseLimits, 'timeoutSeconds' | 'killGraceSeconds'>): string {
  const after = Math.round(afterMs / 100) / 10;
  const t = limits.timeoutSeconds;
  return byRemainingTime
    ? `script was killed by the runtime backstop after ${after} s: the invocation's remaining time ran out before its ${t} s limit`
    : `script exceeded its ${t} s limit and was killed by the runtime backstop after ${t + limits.killGraceSeconds} s`;
}

function resultFields(output: CapturedOutput): Pick<ExecuteResponse, 'result' | 'resultWarning'> {
  const { result } = output;
  if (result.kind === 'ok') return { result: result.value };
  if (result.kind === 'invalid') return { resultWarning: result.warning };
  return {};
}

function finish(response: ExecuteResponse, truncated: boolean): ExecuteResponse {
  return truncated ? { ...response, truncated: true } : response;
}
