/**
 * The /execute response from an outcome, pure (no R, no clock): caps on the error and warnings,
 * the structured result, `truncated`, the wording that says which layer ended a run, who caused
 * a failure (`errorType`, `retryable`), and what the run left (plots, files, notes). New response
 * fields are mapped here from the outcome and the envelope.
 */
import type { ErrorType, ExecuteResponse } from '../../../layers/contract/execute.ts';
import type { ValidationResult } from '../../../layers/contract/validation.ts';
import { raiseBudgetHint, type ResolvedBudget } from '../../../layers/config/output-budget.ts';
import { backstopSeconds } from '../../../layers/config/timeouts.ts';
import { capText, RESULT_END, RESULT_START, type CapturedOutput } from './caps.ts';
import { capEnvelope, capNotes, type ResponseCaps } from './envelope-caps.ts';
import type { Artifacts, RunOutcome } from '../outcome.ts';
import { fitResponse } from './response-size.ts';

/** The fields every response carries, decided by the handler when it answers. */
export type ResponseBase = Pick<ExecuteResponse, 'durationMs' | 'rVersion' | 'timestamp'>;

export interface ResponseLimits {
  readonly timeoutSeconds: number;
  /** The most a request's timeoutSeconds may ask for, which a timeout's message names. */
  readonly timeoutSecondsMax?: number;
  readonly killGraceSeconds: number;
  readonly caps: ResponseCaps;
  /** The request's output budget as resolved (its caps are `caps`): what a fired cap's note names. */
  readonly budget?: ResolvedBudget;
  /** The API function's notes about the request (the event's `notes`): first, under the same cap. */
  readonly requestNotes?: readonly string[];
  /** Notes the cap must keep whatever else it drops, last (the post-run budget's). */
  readonly pinnedNotes?: readonly string[];
}

/** The TypeScript validator refused the script: R never started. */
export function rejectedResponse(validation: ValidationResult, base: ResponseBase): ExecuteResponse {
  return { status: 'rejected', consoleOutput: '', error: null, warnings: [], timedOut: false, ...failedBy('execution'), validation, ...base };
}

/**
 * The response for an outcome, every field within its published cap and the whole within
 * caps.responseBytes, whatever the envelope held. `base.rVersion` is the service's, never a run's.
 */
export function executeResponse(outcome: RunOutcome, limits: ResponseLimits, base: ResponseBase): ExecuteResponse {
  return fitResponse(uncheckedResponse(outcome, limits, base), limits.caps.responseBytes);
}

function uncheckedResponse(outcome: RunOutcome, limits: ResponseLimits, base: ResponseBase): ExecuteResponse {
  if (outcome.kind === 'not-staged') {
    return {
      status: 'error', consoleOutput: '', error: `${outcome.message}; the script was not run`, warnings: [], timedOut: false,
      ...failedBy('interpreter'), ...base,
    };
  }
  const { artifacts } = outcome;
  const { output, notes: resultNotes } = consoleWithoutResult(outcome.output);
  const fromOutput = resultFields(output);
  const truncated = output.truncated || (output.result.kind === 'invalid' && output.result.overflow === true) || artifacts.truncated;

  if (outcome.kind === 'killed') {
    const error = timeoutMessage(limits, outcome);
    return finish(
      { status: 'error', consoleOutput: output.consoleOutput, error, warnings: [], timedOut: true, ...failedBy('execution'), ...fromOutput, ...base },
      ranFields(output, artifacts, resultNotes, limits),
      truncated,
    );
  }

  if (outcome.kind === 'no-envelope') {
    const lastWords = outcome.stderrTail.trim().split('\n').slice(-5).join('\n');
    const detail = lastWords ? `; R said: ${lastWords}` : '';
    // A signal the handler did not send came from outside R's own error handling: the kernel's
    // out-of-memory killer, a crash in native code, or something else in the environment.
    const said = outcome.signal
      ? `R was ended by signal ${outcome.signal} before it wrote a result (not by the script's time limit: the kernel's out-of-memory killer, a crash in native code or another process; ${outcome.reason})`
      : `R exited without a result (exit code ${outcome.exitCode ?? 'unknown'}; ${outcome.reason})`;
    const error = capText(`${said}${detail}`, limits.caps.errorBytes);
    return finish(
      {
        status: 'error', consoleOutput: output.consoleOutput, error: error.value, warnings: [], timedOut: false,
        ...failedBy('interpreter'), ...fromOutput, ...base,
      },
      ranFields(output, artifacts, resultNotes, limits),
      truncated || error.truncated,
    );
  }

  const capped = capEnvelope(outcome.envelope, limits.caps, limits.budget);
  if (outcome.envelope.status === 'rejected') {
    return {
      status: 'rejected', consoleOutput: '', error: null, warnings: [], timedOut: false, ...failedBy('execution'),
      validation: { valid: false, errors: capped.validation, lint: [], durationMs: 0 },
      ...base,
    };
  }
  const { envelope } = outcome;
  return finish({
    status: envelope.status,
    consoleOutput: output.consoleOutput,
    // Where R's own limit stopped the script, as an error says it: the line comes second.
    error: envelope.timedOut ? atLine(timeoutMessage(limits), envelope.errorDetails?.line) : capped.error,
    warnings: capped.warnings,
    timedOut: envelope.timedOut,
    ...(envelope.status === 'error' ? failedBy(envelope.errorType ?? 'execution') : {}),
    ...(capped.errorDetails ? { errorDetails: capped.errorDetails } : {}),
    warningDetails: capped.warningDetails,
    messages: capped.messages,
    ...(capped.value ? { value: capped.value } : {}),
    ...fromOutput,
    ...base,
  },
  ranFields(output, artifacts, [...resultNotes, ...capped.notes], limits),
  truncated || capped.truncated);
}

/**
 * The capsule is required but a run that reached the script does not report it armed: whatever
 * the run produced is withheld, and the failure is the service's.
 */
export function unarmedResponse(report: string, base: ResponseBase): ExecuteResponse {
  return {
    status: 'error', consoleOutput: '', warnings: [], timedOut: false, ...failedBy('interpreter'), ...base,
    error: `the execute runtime's capsule was not armed for this run (${report}); its result is withheld`,
  };
}

/**
 * A response that never reached ranFields (the script was not run, or its result was withheld)
 * still carries the API function's notes about the request, within the same cap.
 */
export function withRequestNotes(
  response: ExecuteResponse,
  limits: Pick<ResponseLimits, 'requestNotes' | 'pinnedNotes'> & { readonly caps: Pick<ResponseCaps, 'notes' | 'noteBytes'> },
): ExecuteResponse {
  const [notes, pinned] = [limits.requestNotes ?? [], limits.pinnedNotes ?? []];
  if (response.notes !== undefined || notes.length + pinned.length === 0) return response;
  return { ...response, notes: capNotes(notes, limits.caps, pinned).value };
}

/** dsprrr's pair: a failure the script's author can fix is retryable, one the service caused is not. */
function failedBy(errorType: ErrorType): Pick<ExecuteResponse, 'errorType' | 'retryable'> {
  return { errorType, retryable: errorType === 'execution' };
}

/** What every run that started R returns: the console's size, plots, files and notes. */
function ranFields(output: CapturedOutput, artifacts: Artifacts, notes: readonly string[], limits: ResponseLimits): Partial<ExecuteResponse> {
  const bytes = output.bytes ?? Buffer.byteLength(output.consoleOutput);
  const omitted = output.omittedBytes ?? 0;
  return {
    consoleOutputBytes: bytes,
    consoleOutputOmittedBytes: omitted,
    plots: [...artifacts.plots],
    plotsOmitted: artifacts.plotsOmitted,
    files: [...artifacts.files],
    notes: capNotes([...(limits.requestNotes ?? []), ...(limits.budget?.notes ?? []), ...consoleNote(output, bytes, omitted, limits), ...notes, ...artifacts.notes], limits.caps, limits.pinnedNotes).value,
  };
}

/** The console's cap fired: how much of its middle went, and how to get more. */
function consoleNote(output: CapturedOutput, bytes: number, omitted: number, limits: ResponseLimits): string[] {
  if (!output.truncated) return [];
  const raise = limits.budget ? raiseBudgetHint('consoleBytes', limits.budget) : 'GET /health?detail=full limits.maxConsoleOutputBytes';
  return [`consoleOutput was cut to its head and tail on line boundaries: ${omitted} of ${bytes} bytes were left out of the middle; ${raise}`];
}

/**
 * The one wording of a timeout, whichever layer ended the run: R's own limit (the runner reports
 * only that it fired), the handler's backstop at the script's limit plus grace, or the
 * invocation's remaining time running out first.
 */
export function timeoutMessage(
  limits: Pick<ResponseLimits, 'timeoutSeconds' | 'timeoutSecondsMax' | 'killGraceSeconds'>,
  killed?: { readonly afterMs: number; readonly byRemainingTime: boolean },
): string {
  const t = limits.timeoutSeconds;
  if (!killed) return `script exceeded its ${t} s limit (R time limit); ${timeoutRaiseHint(limits)}`;
  const after = Math.round(killed.afterMs / 100) / 10;
  return killed.byRemainingTime
    ? `script was killed by the runtime backstop after ${after} s: the invocation's remaining time ran out before its ${t} s limit`
    : `script exceeded its ${t} s limit and was killed by the runtime backstop after ${backstopSeconds(t, limits.killGraceSeconds)} s; ${timeoutRaiseHint(limits)}`;
}

/** A failure's text with the script line it happened at, the runner's `At line N` (error-cause.R). */
function atLine(text: string, line: number | undefined): string {
  return line === undefined ? text : `${text}\nAt line ${line}`;
}

/** What a timed-out script's author can do: raise timeoutSeconds up to the maximum, or make it faster. */
export function timeoutRaiseHint(limits: Pick<ResponseLimits, 'timeoutSeconds' | 'timeoutSecondsMax'>): string {
  const max = limits.timeoutSecondsMax;
  if (max === undefined) return 'make the script faster';
  return limits.timeoutSeconds < max
    ? `the request's timeoutSeconds raises the limit up to ${max} s`
    : `${max} s is this deployment's maximum timeoutSeconds: make the script faster or split it`;
}

/**
 * The console without the marker block the parsed `result` came from, as R's console shows what a
 * script prints but the caller already has it as `result`; and the note that says so. Only the
 * block whose text is that result is taken out (the last complete one, where the console kept it).
 */
function consoleWithoutResult(output: CapturedOutput): { output: CapturedOutput; notes: string[] } {
  if (output.result.kind !== 'ok') return { output, notes: [] };
  const text = output.consoleOutput;
  const end = text.lastIndexOf(RESULT_END);
  const start = end < 0 ? -1 : text.lastIndexOf(RESULT_START, end);
  if (start < 0) return { output, notes: [] };
  let same = false;
  try {
    same = JSON.stringify(JSON.parse(text.slice(start + RESULT_START.length, end))) === JSON.stringify(output.result.value);
  } catch {
    same = false;
  }
  if (!same) return { output, notes: [] };
  const stop = end + RESULT_END.length + (text[end + RESULT_END.length] === '\n' ? 1 : 0);
  return {
    output: { ...output, consoleOutput: text.slice(0, start) + text.slice(stop) },
    notes: ['the structured result printed between the markers was taken out of consoleOutput: it is `result`'],
  };
}

function resultFields(output: CapturedOutput): Pick<ExecuteResponse, 'result' | 'resultWarning'> {
  const { result } = output;
  if (result.kind === 'ok') return { result: result.value };
  if (result.kind === 'invalid') return { resultWarning: result.warning };
  return {};
}

function finish(response: ExecuteResponse, ran: Partial<ExecuteResponse>, truncated: boolean): ExecuteResponse {
  const merged = { ...response, ...ran };
  return truncated ? { ...merged, truncated: true } : merged;
}
