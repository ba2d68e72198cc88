/**
 * What an agent needs back from a run, with real R: errors it can act on (class, call,
 * line, traceback), warnings with their line, messages, the last value (dsprrr's `result`) and
 * the request's context bound as `.context`.
 */
import { describe, expect, it } from 'vitest';
import { harness } from './helpers.ts';
import { generous } from '../load-tolerant.ts';

const h = generous(harness());

describe('execute handler: errors an agent can act on', () => {
  it('an error in the fifth expression: its class, message, call, line, column and the script\'s frames', async () => {
    const script = [
      'scale_by <- function(x, k) {',
      '  x * k',
      '}',
      'values <- c(1, 2, 3)',
      'total <- sum(scale_by(values, "two"))',
      'cat("never\\n")',
    ].join('\n');
    const response = await h.run(script);
    expect(response).toMatchObject({
      status: 'error', errorType: 'execution', retryable: true,
      error: 'Error in x * k: non-numeric argument to binary operator\nAt line 5: total <- sum(scale_by(values, "two"))',
      errorDetails: {
        class: ['simpleError', 'error', 'condition'],
        message: 'non-numeric argument to binary operator',
        call: 'x * k',
        // The innermost place the script wrote: `*` has no frame, so the call of scale_by().
        line: 5,
        column: 14,
        expressionLine: 5,
        expressionColumn: 1,
        traceback: [{ call: 'scale_by(values, "two")', line: 5, column: 1 }],
      },
    });
  });

  it('keeps the console output up to the failure', async () => {
    const response = await h.run('cat("step 1\\n")\nprint(1:3)\nstop("step 3 failed")\ncat("step 4\\n")');
    expect(response.consoleOutput).toBe('step 1\n[1] 1 2 3\n');
    expect(response.errorDetails).toMatchObject({ message: 'step 3 failed', call: null, line: 3, column: 1 });
  });

  it('a tidyverse error keeps its class and its full, multi-line message', async () => {
    const response = await h.run('library(dplyr)\ndf <- data.frame(x = 1:3)\ndf |> mutate(y = log(z))');
    expect(response.errorDetails?.class).toEqual(expect.arrayContaining(['rlang_error', 'error', 'condition']));
    expect(response.errorDetails?.message).toMatch(/object 'z' not found/);
    // The missing name itself, and where the pipeline starts.
    expect(response.errorDetails).toMatchObject({ line: 3, column: 22, expressionLine: 3, expressionColumn: 1 });
  });

  it('warnings carry their call and line, next to the plain list', async () => {
    const response = await h.run('x <- 1\nf <- function(v) as.integer(v)\ny <- f("a")\nwarning("top level")');
    expect(response.warnings).toEqual(['NAs introduced by coercion', 'top level']);
    expect(response.warningDetails).toEqual([
      { call: 'f("a")', line: 3, column: 1 },
      { call: null, line: 4, column: 1 },
    ]);
  });
});

describe('execute handler: messages', () => {
  it('collects message() conditions and keeps them in the console, in order', async () => {
    const response = await h.run('cat("a\\n")\nmessage("loading ", 3, " rows")\ncat("b\\n")');
    expect(response.messages).toEqual(['loading 3 rows']);
    expect(response.consoleOutput).toBe('a\nloading 3 rows\nb\n');
  });

  it('beyond the count cap, messages stay in the console only, and a note says so', async () => {
    const capped = generous(harness({ env: { JUBE_R_MAX_MESSAGES: '2' } }));
    const response = await capped.run('for (i in 1:3) message("m", i)');
    expect(response.messages).toEqual(['m1', 'm2']);
    expect(response.consoleOutput).toBe('m1\nm2\nm3\n');
    expect(response.truncated).toBe(true);
    expect(response.notes).toContain('1 more distinct message(s) are only in consoleOutput; outputBudget.messages is at this deployment\'s maximum, 2 (GET /health?detail=full limits.maxMessages), within limits.maxMessageBytes');
  });
});

describe('execute handler: the last value', () => {
  it.each([
    { script: '1 + 1', value: { kind: 'json', class: ['numeric'], json: 2 } },
    { script: 'x <- c(mean = 2.5, sd = 1)\nx', value: { kind: 'json', class: ['numeric'], json: { mean: 2.5, sd: 1 } } },
    {
      script: 'data.frame(g = c("a", "b"), n = 1:2)',
      value: {
        kind: 'json', class: ['data.frame'], json: [{ g: 'a', n: 1 }, { g: 'b', n: 2 }],
        types: [{ path: '', class: ['data.frame'], columns: [{ name: 'g', class: ['character'] }, { name: 'n', class: ['integer'] }] }],
      },
    },
    {
      script: 'tapply(mtcars$mpg, mtcars$cyl, length)',
      value: { kind: 'json', class: ['array'], json: { 4: 11, 6: 7, 8: 14 }, types: [{ path: '', class: ['array'], dims: [{ size: 3, name: null, labels: ['4', '6', '8'] }] }] },
    },
    {
      script: 'with(mtcars, table(am = am, vs = vs))',
      value: {
        kind: 'json', class: ['table'], json: { 0: { 0: 12, 1: 7 }, 1: { 0: 6, 1: 7 } },
        types: [{ path: '', class: ['table'], dims: [{ size: 2, name: 'am', labels: ['0', '1'] }, { size: 2, name: 'vs', labels: ['0', '1'] }] }],
      },
    },
    {
      script: 'list(when = as.Date("2024-03-01"), g = factor("b", levels = c("a", "b")), est = c(median = 23))',
      value: {
        kind: 'json', class: ['list'], json: { when: '2024-03-01', g: 'b', est: { median: 23 } },
        types: [{ path: '/when', class: ['Date'] }, { path: '/g', class: ['factor'], levels: ['a', 'b'] }],
      },
    },
    { script: 'list(ok = TRUE, missing = NA)', value: { kind: 'json', class: ['list'], json: { ok: true, missing: null } } },
    { script: 'NULL', value: { kind: 'json', class: ['NULL'], json: null } },
  ])('$script', async ({ script, value }) => {
    expect((await h.run(script)).value).toEqual(value);
  });

  it('a model is not JSON: its printed form and class', async () => {
    const response = await h.run('fit <- lm(dist ~ speed, data = cars)\nfit');
    expect(response.value).toMatchObject({ kind: 'printed', class: ['lm'], truncated: false });
    expect(response.value?.kind === 'printed' && response.value.printed).toMatch(/Coefficients:/);
  });

  it('a value over its cap falls back to a cut printed form, and the response says truncated', async () => {
    const capped = generous(harness({ env: { JUBE_R_MAX_VALUE_BYTES: '1024' } }));
    const response = await capped.run('seq_len(5000)');
    expect(response.value).toMatchObject({ kind: 'printed', class: ['integer'], truncated: true });
    expect(response.truncated).toBe(true);
  });

  it('a large data frame printed to R\'s max.print is truncated, and the note says which caps and what to raise', async () => {
    const response = await h.run('big <- data.frame(id = seq_len(5667), x = 0.5)\nbig', { outputBudget: { consoleBytes: 1024 } });
    expect(response.value).toMatchObject({ kind: 'printed', class: ['data.frame'], truncated: true });
    expect(response.truncated).toBe(true);
    expect(response.notes?.join('\n')).toMatch(
      /the value came back printed: its JSON is larger than 16384 bytes; its printed form stopped at R's max\.print \(1000 entries.*outputBudget\.valueBytes is 16384; raise it \(up to 262144\) to get more \(as JSON\), or return the rows you need/,
    );
    // Raised far enough, the same frame comes back whole, as JSON.
    const raised = await h.run('big <- data.frame(id = seq_len(5667), x = 0.5)\nbig', { outputBudget: { valueBytes: 262_144, consoleBytes: 1024 } });
    expect(raised.value).toMatchObject({ kind: 'json', class: ['data.frame'] });
    expect(raised.value?.kind === 'json' && (raised.value.json as unknown[]).length).toBe(5667);
    // Only the console (the frame printed at the top level) was cut; the value was not.
    expect((raised.notes ?? []).filter((n) => n.includes('value'))).toEqual([]);
  });

  it('sits alongside the marker-based result', async () => {
    const response = await h.run('cat("<<<JUBE_RESULT_START>>>{\\"a\\":1}<<<JUBE_RESULT_END>>>")\n42');
    expect(response).toMatchObject({ result: { a: 1 }, value: { kind: 'json', json: 42 } });
  });
});

describe('execute handler: context', () => {
  it('binds the request\'s context as .context, read as an R user expects', async () => {
    const context = { threshold: 2, labels: ['a', 'b'], rows: [{ x: 1, y: 'p' }, { x: 3, y: 'q' }], nested: { deep: [true] } };
    const response = await h.run('d <- .context$rows\nlist(n = sum(d$x > .context$threshold), labels = toupper(.context$labels), deep = .context$nested$deep)', { context });
    expect(response.value).toEqual({ kind: 'json', class: ['list'], json: { n: 1, labels: ['A', 'B'], deep: true } });
  });

  it('contextEncoding r-json: a Date, a factor, a whole double, records and NA arrive as R sent them', async () => {
    // jsonlite::serializeJSON(list(day = as.Date("2024-03-01"), g = factor("b", levels = c("a", "b")),
    //   whole = 3, rows = data.frame(x = 1:2), missing = NA), digits = NA)
    const chr = (...value: string[]) => ({ type: 'character', attributes: {}, value });
    const context = {
      type: 'list', attributes: { names: chr('day', 'g', 'whole', 'rows', 'missing') },
      value: [
        { type: 'double', attributes: { class: chr('Date') }, value: [19783] },
        { type: 'integer', attributes: { levels: chr('a', 'b'), class: chr('factor') }, value: [2] },
        { type: 'double', attributes: {}, value: [3] },
        {
          type: 'list',
          attributes: { names: chr('x'), class: chr('data.frame'), 'row.names': { type: 'integer', attributes: {}, value: [1, 2] } },
          value: [{ type: 'integer', attributes: {}, value: [1, 2] }],
        },
        { type: 'logical', attributes: {}, value: [null] },
      ],
    };
    const script = [
      'x <- .context',
      'c(day = inherits(x$day, "Date") && x$day == as.Date("2024-03-01"), g = identical(levels(x$g), c("a", "b")),',
      '  whole = is.double(x$whole), rows = is.data.frame(x$rows) && identical(x$rows$x, 1:2), missing = identical(x$missing, NA))',
    ].join('\n');
    const response = await h.run(script, { context, contextEncoding: 'r-json' });
    expect(response.value).toMatchObject({ kind: 'json', json: { day: true, g: true, whole: true, rows: true, missing: true } });
  });

  it('contextEncoding r-json: the execute function, trusting no caller, refuses a closure before R runs', async () => {
    const context = { type: 'list', attributes: {}, value: [{ type: 'closure', attributes: {}, value: [] }] };
    await expect(h.run('1', { context, contextEncoding: 'r-json' })).rejects.toThrow(/type "closure" is not data/);
  });

  it('without a context there is no .context', async () => {
    const response = await h.run('exists(".context")');
    expect(response.value).toMatchObject({ json: false });
  });
});
