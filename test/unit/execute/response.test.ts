/** Outcome + envelope + captured output -> the /execute response, without R (response.ts). */
import { describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../../layers/config/service-config.ts';
import { resolveOutputBudget } from '../../../layers/config/output-budget.ts';
import type { CapturedOutput } from '../../../functions/execute/output/caps.ts';
import type { RunnerEnvelope } from '../../../functions/execute/output/envelope.ts';
import type { Artifacts, RunOutcome } from '../../../functions/execute/outcome.ts';
import { executeResponse, rejectedResponse, unarmedResponse, withRequestNotes, type ResponseLimits } from '../../../functions/execute/output/response.ts';

const base = { durationMs: 42, rVersion: '4.2.2', timestamp: '2026-01-01T00:00:00.000Z' };
const limits: ResponseLimits = {
  timeoutSeconds: 5, timeoutSecondsMax: 20, killGraceSeconds: 2, caps: { ...readServiceConfig({}).caps, errorBytes: 64, warnings: 2, warningBytes: 32 },
};
const output = (extra: Partial<CapturedOutput> = {}): CapturedOutput => ({
  consoleOutput: '[1] 2\n',
  truncated: false,
  result: { kind: 'none' },
  ...extra,
});
const noArtifacts: Artifacts = { plots: [], plotsOmitted: 0, files: [], notes: [], truncated: false };
const envelope = (extra: Partial<RunnerEnvelope> = {}, artifacts: Artifacts = noArtifacts): RunOutcome => ({
  kind: 'envelope',
  output: output(),
  artifacts,
  envelope: { nonce: 'n', rVersion: '4.5.0', status: 'ok', error: null, warnings: [], timedOut: false, ...extra },
});

describe('a run that wrote its envelope', () => {
  it("answers ok with the console, the service's R version (never the envelope's) and no truncated field", () => {
    // Act
    const response = executeResponse(envelope(), limits, base);
    // Assess
    expect(response).toEqual({
      status: 'ok', consoleOutput: '[1] 2\n', error: null, warnings: [], timedOut: false,
      durationMs: 42, rVersion: '4.2.2', timestamp: base.timestamp,
      warningDetails: [], messages: [], plots: [], plotsOmitted: 0, files: [], notes: [],
      consoleOutputBytes: 6, consoleOutputOmittedBytes: 0,
    });
  });

  it("words R's own timeout itself, whatever error text the envelope carries, with how to raise the limit", () => {
    for (const error of [null, 'anything a forged envelope says']) {
      const response = executeResponse(envelope({ status: 'error', error, timedOut: true }), limits, base);
      expect(response).toMatchObject({
        status: 'error', timedOut: true,
        error: "script exceeded its 5 s limit (R time limit); the request's timeoutSeconds raises the limit up to 20 s",
      });
    }
    const atMax = executeResponse(envelope({ status: 'error', error: null, timedOut: true }), { ...limits, timeoutSeconds: 20 }, base);
    expect(atMax.error).toBe("script exceeded its 20 s limit (R time limit); 20 s is this deployment's maximum timeoutSeconds: make the script faster or split it");
    const placed = executeResponse(envelope({ status: 'error', error: null, timedOut: true, errorDetails: { class: ['error'], message: 'm', call: null, line: 3, traceback: [] } }), limits, base);
    expect(placed.error).toBe("script exceeded its 5 s limit (R time limit); the request's timeoutSeconds raises the limit up to 20 s\nAt line 3");
  });

  it('caps the error and the warnings and says it did', () => {
    const response = executeResponse(envelope({ status: 'error', error: 'e'.repeat(100), warnings: ['a', 'b', 'c'] }), limits, base);
    expect(response.error).toBe('e'.repeat(64));
    expect(response.warnings).toEqual(['a', 'b']);
    expect(response.truncated).toBe(true);
  });

  it('marks warnings the runner already dropped as truncated', () => {
    expect(executeResponse(envelope({ warnings: ['a'], warningsDropped: 3 }), limits, base).truncated).toBe(true);
  });

  it("answers R's rejection with its validation errors and no console", () => {
    const errors = [{ code: 'PARSER_DISAGREEMENT' as const, message: 'differ', line: 1, column: 1 }];
    const response = executeResponse(envelope({ status: 'rejected', validation: errors }), limits, base);
    expect(response).toEqual({
      status: 'rejected', consoleOutput: '', error: null, warnings: [], timedOut: false, errorType: 'execution', retryable: true,
      validation: { valid: false, errors, lint: [], durationMs: 0 },
      durationMs: 42, rVersion: '4.2.2', timestamp: base.timestamp,
    });
  });
});

describe('the structured result', () => {
  it.each<[string, CapturedOutput['result'], Record<string, unknown>]>([
    ['valid JSON becomes result', { kind: 'ok', value: { n: 1 } }, { result: { n: 1 } }],
    ['invalid JSON gives a resultWarning', { kind: 'invalid', warning: 'not JSON' }, { resultWarning: 'not JSON' }],
    ['an oversized result is dropped and flagged', { kind: 'invalid', warning: 'too big', overflow: true }, { resultWarning: 'too big', truncated: true }],
  ])('%s', (_, result, expected) => {
    const outcome: RunOutcome = { ...envelope(), output: output({ result }) } as RunOutcome;
    expect(executeResponse(outcome, limits, base)).toMatchObject(expected);
  });

  it('a cut console is truncated', () => {
    const outcome = { ...envelope(), output: output({ truncated: true }) } as RunOutcome;
    expect(executeResponse(outcome, limits, base).truncated).toBe(true);
  });
});

describe('a run the backstop killed', () => {
  it("names the script's limit and the grace when that set the deadline", () => {
    const response = executeResponse({ kind: 'killed', afterMs: 7012, byRemainingTime: false, output: output(), artifacts: noArtifacts }, limits, base);
    expect(response).toMatchObject({
      status: 'error', timedOut: true, warnings: [], consoleOutput: '[1] 2\n',
      error: "script exceeded its 5 s limit and was killed by the runtime backstop after 7 s; the request's timeoutSeconds raises the limit up to 20 s",
    });
  });

  it("names the invocation's remaining time when that ran out first", () => {
    const response = executeResponse({ kind: 'killed', afterMs: 3260, byRemainingTime: true, output: output(), artifacts: noArtifacts }, limits, base);
    expect(response.error).toBe("script was killed by the runtime backstop after 3.3 s: the invocation's remaining time ran out before its 5 s limit");
    expect(response.timedOut).toBe(true);
  });
});

describe('a run without an envelope', () => {
  it("says how R ended, why the envelope did not count, and R's last words", () => {
    const outcome: RunOutcome = {
      kind: 'no-envelope', reason: 'no result file', exitCode: 3, signal: null, stderrTail: '1\n2\n3\n4\n5\n6\n', output: output(), artifacts: noArtifacts,
    };
    expect(executeResponse(outcome, { ...limits, caps: { ...limits.caps, errorBytes: 1000 } }, base)).toMatchObject({
      status: 'error', timedOut: false, consoleOutput: '[1] 2\n',
      error: 'R exited without a result (exit code 3; no result file); R said: 2\n3\n4\n5\n6',
    });
  });

  it('names the signal when there is one, and caps the message', () => {
    const outcome: RunOutcome = { kind: 'no-envelope', reason: 'r'.repeat(100), exitCode: null, signal: 'SIGKILL', stderrTail: '', output: output(), artifacts: noArtifacts };
    const response = executeResponse(outcome, limits, base);
    expect(response.error).toBe(`R was ended by signal SIGKILL before it wrote a result (not by the script's time limit: the kernel's out-of-memory killer, a crash in native code or another process; ${'r'.repeat(100)})`.slice(0, 64));
    expect(response.truncated).toBe(true);
  });
});

describe('no run at all', () => {
  it('dataframes that could not be staged: an error saying the script was not run', () => {
    expect(executeResponse({ kind: 'not-staged', message: "dataframe 'd' could not be read" }, limits, base)).toEqual({
      status: 'error', consoleOutput: '', error: "dataframe 'd' could not be read; the script was not run", warnings: [], timedOut: false,
      errorType: 'interpreter', retryable: false, ...base,
    });
  });

  it("the validator's rejection: the validation result, nothing else", () => {
    const validation = { valid: false, errors: [], lint: [], durationMs: 1 };
    expect(rejectedResponse(validation, base)).toEqual({
      status: 'rejected', consoleOutput: '', error: null, warnings: [], timedOut: false, errorType: 'execution', retryable: true, validation, ...base,
    });
  });
});

describe('a run that reached the script without the capsule armed', () => {
  it('is the service\'s failure: the result is withheld, and retrying it would not help', () => {
    const report = 'preload=unavailable(the capsule was not preloaded: set LD_PRELOAD)';
    expect(unarmedResponse(report, base)).toEqual({
      status: 'error', consoleOutput: '', warnings: [], timedOut: false, errorType: 'interpreter', retryable: false, ...base,
      error: `the execute runtime's capsule was not armed for this run (${report}); its result is withheld`,
    });
  });
});

describe('who caused a failure: errorType and retryable (dsprrr)', () => {
  it.each<[string, RunOutcome, Record<string, unknown>]>([
    ['the script\'s own error', envelope({ status: 'error', error: 'Error: x', errorType: 'execution' }), { errorType: 'execution', retryable: true }],
    ['an error in the runner\'s set-up', envelope({ status: 'error', error: 'Error: no sandbox', errorType: 'interpreter' }), { errorType: 'interpreter', retryable: false }],
    ['R\'s time limit', envelope({ status: 'error', error: 'script exceeded', timedOut: true, errorType: 'execution' }), { errorType: 'execution', retryable: true }],
    ['the backstop kill', { kind: 'killed', afterMs: 7000, byRemainingTime: false, output: output(), artifacts: noArtifacts }, { errorType: 'execution', retryable: true }],
    ['R gone without an envelope', { kind: 'no-envelope', reason: 'no result file', exitCode: null, signal: 'SIGSEGV', stderrTail: '', output: output(), artifacts: noArtifacts }, { errorType: 'interpreter', retryable: false }],
  ])('%s', (_, outcome, expected) => {
    expect(executeResponse(outcome, limits, base)).toMatchObject(expected);
  });

  it('a run that succeeded has neither', () => {
    const response = executeResponse(envelope(), limits, base);
    expect(response).not.toHaveProperty('errorType');
    expect(response).not.toHaveProperty('retryable');
  });
});

describe('what a run left: details, messages, value, plots, files, notes', () => {
  const plot = { mimeType: 'image/png' as const, width: 10, height: 10, bytes: 3, data: 'AAAA' };
  it('passes errorDetails, messages and the value through and keeps warningDetails in step with the capped warnings', () => {
    const errorDetails = { class: ['simpleError', 'error', 'condition'], message: 'm', call: 'f(x)', line: 5, column: 1, traceback: [] };
    const warningDetails = ['a', 'b', 'c'].map((message, i) => ({ message, call: null, line: i + 1, column: 1 }));
    const response = executeResponse(envelope({
      status: 'error', error: 'Error in f(x): m', errorType: 'execution', errorDetails,
      warnings: ['a', 'b', 'c'], warningDetails, messages: ['hello'],
    }), limits, base);
    expect(response).toMatchObject({ errorDetails, messages: ['hello'], warnings: ['a', 'b'] });
    expect(response.warningDetails).toEqual(warningDetails.slice(0, 2));
    const value = { kind: 'json' as const, class: ['numeric'], json: 2 };
    expect(executeResponse(envelope({ value }), limits, base).value).toEqual(value);
  });

  it('returns the plots and files, counts omitted plots and says so in the notes, truncated', () => {
    const artifacts: Artifacts = { plots: [plot], plotsOmitted: 2, files: [], notes: ['2 of 3 drawn pages were not returned'], truncated: true };
    const response = executeResponse(envelope({ notes: ['from R'] }, artifacts), limits, base);
    expect(response).toMatchObject({ plots: [plot], plotsOmitted: 2, notes: ['from R', '2 of 3 drawn pages were not returned'], truncated: true });
  });

  it('keeps what was drawn before the backstop killed the run', () => {
    const artifacts: Artifacts = { ...noArtifacts, plots: [plot] };
    const response = executeResponse({ kind: 'killed', afterMs: 7000, byRemainingTime: false, output: output(), artifacts }, limits, base);
    expect(response.plots).toEqual([plot]);
  });

  it('reports the console size and what its middle cut left out', () => {
    const outcome: RunOutcome = { ...envelope(), output: output({ truncated: true, bytes: 5000, omittedBytes: 4000 }) } as RunOutcome;
    expect(executeResponse(outcome, limits, base)).toMatchObject({ consoleOutputBytes: 5000, consoleOutputOmittedBytes: 4000, truncated: true });
  });

  it('says when messages beyond the cap stayed in the console only, and when a printed value was cut', () => {
    const dropped = executeResponse(envelope({ messages: ['m'], messagesDropped: 4 }), limits, base);
    expect(dropped.truncated).toBe(true);
    expect(dropped.notes?.[0]).toMatch(/^4 more distinct message\(s\) are only in consoleOutput; GET \/health\?detail=full limits.maxMessages/);
    const cut = executeResponse(envelope({ value: { kind: 'printed', class: ['lm'], printed: 'Call...', truncated: true } }), limits, base);
    expect(cut.truncated).toBe(true);
  });

  describe('with an output budget', () => {
    const config = readServiceConfig({});
    const withBudget = (requested: Parameters<typeof resolveOutputBudget>[0]): ResponseLimits => {
      const budget = resolveOutputBudget(requested, config);
      return { ...limits, caps: budget.caps, budget };
    };

    it('a console cut names outputBudget.consoleBytes and how far it can go', () => {
      const outcome = { ...envelope(), output: output({ truncated: true, bytes: 700_000, omittedBytes: 690_000 }) } as RunOutcome;
      const response = executeResponse(outcome, withBudget(undefined), base);
      expect(response.notes).toEqual([
        `consoleOutput was cut to its head and tail on line boundaries: 690000 of 700000 bytes were left out of the middle; outputBudget.consoleBytes is ${config.outputBudget.consoleBytes}; raise it (up to ${config.caps.consoleOutputBytes}) to get more`,
      ]);
    });

    it('a printed value names each cap that shortened it: max.print sets truncated, and its JSON over valueBytes says what to raise', () => {
      const budgeted = withBudget({ valueBytes: 300 });
      const raise = `outputBudget.valueBytes is 300; raise it (up to ${config.caps.valueBytes}) to get more`;
      const printed = (cuts: ('json' | 'maxPrint' | 'valueBytes')[], truncated: boolean) =>
        executeResponse(envelope({ value: { kind: 'printed', class: ['data.frame'], printed: 'id\n1 1', truncated, cuts } }), budgeted, base);
      // The case: a frame whose JSON was over the cap, printed to R's max.print, within the bytes.
      const frame = printed(['json', 'maxPrint'], false);
      expect(frame.value).toEqual({ kind: 'printed', class: ['data.frame'], printed: 'id\n1 1', truncated: true });
      expect(frame.truncated).toBe(true);
      expect(frame.notes).toEqual([
        `the value came back printed: its JSON is larger than 300 bytes; its printed form stopped at R's max.print (1000 entries; its last line counts what was left out); ${raise} (as JSON), or return the rows you need (head(x, n), x[i, ]) or a summary as the last value`,
      ]);
      const model = printed(['maxPrint'], true);
      expect(model.notes).toEqual([
        "the value's printed form stopped at R's max.print (1000 entries; its last line counts what was left out); max.print is fixed for the value: return the rows you need (head(x, n), x[i, ]) or a summary as the last value",
      ]);
      // Printed whole, only because its JSON was over the cap: not truncated itself, but the response is.
      const whole = printed(['json'], false);
      expect(whole.value).toMatchObject({ truncated: false });
      expect(whole).toMatchObject({ truncated: true, notes: [`the value came back printed: its JSON is larger than 300 bytes; ${raise} (as JSON)`] });
      expect(printed(['valueBytes'], true).notes).toEqual([`the value's printed form was cut to 300 bytes; ${raise}`]);
      // The handler's own cut, whatever the runner said.
      const long = executeResponse(envelope({ value: { kind: 'printed', class: ['lm'], printed: 'x'.repeat(400), truncated: false } }), budgeted, base);
      expect(long).toMatchObject({ truncated: true, value: { printed: 'x'.repeat(300), truncated: true }, notes: [`the value's printed form was cut to 300 bytes; ${raise}`] });
      const none = executeResponse(envelope({ value: { kind: 'printed', class: ['lm'], printed: 'Call', truncated: false } }), budgeted, base);
      expect(none.truncated).toBeUndefined();
      expect(none.notes).toEqual([]);
    });

    it('a field above its maximum is lowered to it with a note', () => {
      const response = executeResponse(envelope(), withBudget({ consoleBytes: 10 ** 9 }), base);
      expect(response.notes).toEqual([
        `outputBudget.consoleBytes 1000000000 is above this deployment's maximum; ${config.caps.consoleOutputBytes} was used (GET /health?detail=full limits.maxConsoleOutputBytes)`,
      ]);
    });

    it('dropped warnings and a value over valueBytes each say which field to raise', () => {
      const budgeted = withBudget({ warnings: 1, valueBytes: 300 });
      const response = executeResponse(envelope({ warnings: ['a', 'b'], warningsDropped: 2, value: { kind: 'json', class: ['character'], json: 'x'.repeat(400) } }), budgeted, base);
      expect(response.warnings).toEqual(['a']);
      expect(response.value).toBeUndefined();
      expect(response.notes).toEqual([
        `3 more distinct warning(s) were left out (identical ones are already folded); outputBudget.warnings is 1; raise it (up to ${config.caps.warnings}) to get more, within limits.maxWarningBytes`,
        `the value was left out: its JSON is larger than 300 bytes; outputBudget.valueBytes is 300; raise it (up to ${config.caps.valueBytes}) to get more`,
      ]);
    });
  });
});

describe('the notes cap (maxNotes)', () => {
  const capped: ResponseLimits = { ...limits, caps: { ...limits.caps, notes: 3 } };
  const threeNotes: Artifacts = { ...noArtifacts, notes: ['a', 'b', 'c'] };

  it('keeps exactly maxNotes notes of the run as they are', () => {
    expect(executeResponse(envelope({}, threeNotes), capped, base).notes).toEqual(['a', 'b', 'c']);
  });

  it("puts the API's request notes first, under the same cap, the last place counting what was left out", () => {
    const response = executeResponse(envelope({}, threeNotes), { ...capped, requestNotes: ['clamp'] }, base);
    expect(response.notes).toEqual(['clamp', 'a', '2 more note(s) were left out (GET /health?detail=full limits.maxNotes)']);
  });

  it("keeps the post-run budget's note last, inside the cap", () => {
    const response = executeResponse(envelope({}, threeNotes), { ...capped, requestNotes: ['clamp'], pinnedNotes: ['budget'] }, base);
    expect(response.notes).toEqual(['clamp', '3 more note(s) were left out (GET /health?detail=full limits.maxNotes)', 'budget']);
  });

  it('gives a response that never ran the script its request and pinned notes, within the cap', () => {
    const rejected = rejectedResponse({ valid: false, errors: [], lint: [], durationMs: 0 }, base);
    expect(withRequestNotes(rejected, { caps: { notes: 1, noteBytes: 1024 }, requestNotes: ['clamp'], pinnedNotes: ['budget'] }).notes).toEqual(['budget']);
    expect(withRequestNotes(rejected, { caps: capped.caps, requestNotes: ['clamp'] }).notes).toEqual(['clamp']);
    expect(withRequestNotes(rejected, { caps: capped.caps })).toBe(rejected);
  });
});
