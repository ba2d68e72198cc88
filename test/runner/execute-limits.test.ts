/** Time and size limits with real R: both timeout layers, the remaining-time budget, output caps. */
import { beforeAll, describe, expect, it } from 'vitest';
import { harness } from './helpers.ts';
import { baselineMs, generous, graceSecondsFor } from '../load-tolerant.ts';

const h = generous(harness());

describe('execute handler: timeouts', () => {
  // The backstop's grace from this machine's cost of a cold run now: R's own limit and the backstop
  // are told apart by which one fires, never by how busy the machine is.
  let grace = 2;
  let timed = h;
  beforeAll(async () => {
    grace = graceSecondsFor(await baselineMs(() => h.run('cat(1)')));
    timed = harness({ env: { JUBE_R_KILL_GRACE_SECONDS: String(grace) } });
  }, 120_000);

  it('a tight loop is stopped by R\'s own time limit', async () => {
    const response = await timed.run('cat("start\\n")\nrepeat {}', { timeoutSeconds: 1 });
    expect(response).toMatchObject({
      status: 'error',
      timedOut: true,
      consoleOutput: 'start\n',
      // The line R's limit stopped it at, second, as in an error's text.
      error: "script exceeded its 1 s limit (R time limit); the request's timeoutSeconds raises the limit up to 20 s\nAt line 2",
      errorType: 'execution',
      retryable: true,
      errorDetails: { line: 2, column: 1 },
    });
  });

  it('a run the backstop kills keeps the console and the plots from before it', async () => {
    const response = await timed.run('cat("start\\n")\nplot(1:3)\nplot.new()\nSys.sleep(60)', { timeoutSeconds: 1 });
    expect(response).toMatchObject({ status: 'error', timedOut: true, consoleOutput: 'start\n', errorType: 'execution' });
    expect(response.error).toMatch(/killed by the runtime backstop/);
    // The first page was written when the second began; the second was never finished.
    expect(response.plots).toHaveLength(1);
  });

  it.each([
    // Catching the time-limit error and carrying on: R's limit fires once, then is spent.
    { name: 'a loop that swallows the time-limit error', script: 'repeat tryCatch(repeat {}, error = function(e) NULL)' },
    // R 4.2's Sys.sleep does not check the time limit while it sleeps (R 4.2.2, checked on this host).
    { name: 'a long Sys.sleep', script: 'Sys.sleep(60)' },
  ])('$name is killed by the runtime backstop at T + grace', async ({ script }) => {
    const started = Date.now();
    const response = await timed.run(script, { timeoutSeconds: 1 });
    const elapsed = Date.now() - started;
    expect(response).toMatchObject({
      status: 'error',
      timedOut: true,
      error: `script exceeded its 1 s limit and was killed by the runtime backstop after ${1 + grace} s; the request's timeoutSeconds raises the limit up to 20 s`,
    });
    // Not before T + grace; and killed, not ended by itself (the sleep would last 60 s).
    expect(elapsed).toBeGreaterThanOrEqual((1 + grace) * 1000);
    expect(elapsed).toBeLessThan(60_000);
    expect(timed.reports.at(-1)?.group?.survivors).toEqual([]);
  }, 120_000);

  it('never waits past the invocation\'s remaining time', async () => {
    // The handler stops waiting at the remaining time less its safety margin (3 s here, room for the
    // kill and the answer on a loaded machine) and answers before the invocation's deadline.
    const budget = Date.now() + 6000;
    const context = { getRemainingTimeInMillis: () => budget - Date.now() };
    const limited = generous(harness({ safetyMarginMs: 3000 }));
    const started = Date.now();
    const response = await limited.run('Sys.sleep(60)', { timeoutSeconds: 20 }, context);
    expect(Date.now() - started).toBeLessThan(6000);
    expect(response.timedOut).toBe(true);
    expect(response.error).toMatch(/^script was killed by the runtime backstop after [\d.]+ s: the invocation's remaining time ran out before its 20 s limit$/);
  });
});

describe('execute handler: output caps', () => {
  it('caps a script printing over 100 MB without holding it in the handler', async () => {
    const capped = generous(harness({ env: { JUBE_R_MAX_CONSOLE_OUTPUT_BYTES: String(64 * 1024) } }));
    const rssBefore = process.memoryUsage().rss;
    const response = await capped.run(
      'line <- strrep("x", 1023)\nfor (i in 1:110000) cat(line, "\\n", sep = "")\ncat("<<<JUBE_RESULT_START>>>{\\"after\\": true}<<<JUBE_RESULT_END>>>")',
      { timeoutSeconds: 60, outputBudget: { consoleBytes: 64 * 1024 } },
    );
    const rssGrowth = process.memoryUsage().rss - rssBefore;
    expect(response.status).toBe('ok');
    expect(response.truncated).toBe(true);
    // The head and the tail share what the longest omitted line leaves of 64 KiB, each cut back
    // to whole lines (the tail's first, partial line goes), with the count of what was left out
    // between them, the whole within the budget.
    const marker = '<<<JUBE_RESULT_START>>>{"after": true}<<<JUBE_RESULT_END>>>';
    const total = 110_000 * 1024 + marker.length;
    const room = 64 * 1024 - Buffer.byteLength(`\n[... ${total} bytes of console output omitted ...]\n`);
    const keptHead = Math.floor(Math.floor(room / 2) / 1024) * 1024;
    const keptTail = Math.floor((room - Math.floor(room / 2) - marker.length) / 1024) * 1024 + marker.length;
    const omitted = total - keptHead - keptTail;
    expect(response).toMatchObject({ consoleOutputBytes: total, consoleOutputOmittedBytes: omitted });
    expect(Buffer.byteLength(response.consoleOutput)).toBeLessThanOrEqual(64 * 1024);
    expect(response.consoleOutput).toContain(`[... ${omitted} bytes of console output omitted ...]\n`);
    const [head, tail] = response.consoleOutput.split(/\[\.\.\. \d+ bytes of console output omitted \.\.\.\]\n/);
    expect(Buffer.byteLength(head!)).toBe(keptHead);
    // The kept tail ended with the marker block, which is `result` now and leaves the console.
    expect(Buffer.byteLength(tail!)).toBe(keptTail - marker.length);
    expect(head!.endsWith('\n')).toBe(true);
    expect(tail!.startsWith('x'.repeat(1023))).toBe(true);
    expect(head!.startsWith('x'.repeat(1023))).toBe(true);
    expect(tail!.endsWith(`${'x'.repeat(1023)}\n`)).toBe(true);
    // Markers in the cut middle are still found: the stream is scanned, not only what is kept.
    expect(response.result).toEqual({ after: true });
    expect(rssGrowth).toBeLessThan(50 * 1024 * 1024);
  });

  it('cuts the console at character boundaries, head and tail', async () => {
    const capped = generous(harness({ env: { JUBE_R_MAX_CONSOLE_OUTPUT_BYTES: '1025' } }));
    const response = await capped.run('cat(strrep("é", 2000))');
    expect(response.truncated).toBe(true);
    // 1025 less the longest omitted line (48 bytes) leaves a 488-byte head and a 489-byte tail
    // whose first byte, half a character, is dropped.
    expect(response.consoleOutput).toBe(`${'é'.repeat(244)}\n[... 3024 bytes of console output omitted ...]\n${'é'.repeat(244)}`);
    expect(response).toMatchObject({ consoleOutputBytes: 4000, consoleOutputOmittedBytes: 3024 });
    expect(Buffer.byteLength(response.consoleOutput)).toBeLessThanOrEqual(1025);
  });

  it('keeps a console of exactly the cap whole', async () => {
    const capped = generous(harness({ env: { JUBE_R_MAX_CONSOLE_OUTPUT_BYTES: '1024' } }));
    const response = await capped.run('cat(strrep("a", 1024))');
    expect(response).toMatchObject({ consoleOutput: 'a'.repeat(1024), consoleOutputBytes: 1024, consoleOutputOmittedBytes: 0 });
    expect(response.truncated).toBeUndefined();
  });

  it('outputBudget.consoleBytes bounds the whole consoleOutput: the budget kept whole, one byte more cut within it', async () => {
    // Lines of 10 bytes ("row 0001\n" and on), 1000 of them; a budget of 1000 bytes fails by one.
    const script = 'cat(sprintf("row %05d\\n", 1:1000), sep = "")\ninvisible(NULL)';
    const exact = await h.run(script, { outputBudget: { consoleBytes: 10_000 } });
    expect(exact).toMatchObject({ consoleOutputBytes: 10_000, consoleOutputOmittedBytes: 0 });
    expect(exact.consoleOutput).toHaveLength(10_000);
    expect(exact.truncated).toBeUndefined();
    // 80: the omitted line (49 bytes at most) leaves room for one line each side.
    for (const consoleBytes of [9_999, 80]) {
      const cut = await h.run(script, { outputBudget: { consoleBytes } });
      expect(cut.truncated).toBe(true);
      expect(Buffer.byteLength(cut.consoleOutput)).toBeLessThanOrEqual(consoleBytes);
      const [head, tail] = cut.consoleOutput.split(/\[\.\.\. \d+ bytes of console output omitted \.\.\.\]\n/);
      for (const line of `${head}${tail}`.split('\n').filter(Boolean)) expect(line).toMatch(/^row \d{5}$/);
      expect(Buffer.byteLength(`${head}${tail}`) + cut.consoleOutputOmittedBytes!).toBe(10_000);
      expect(tail!.endsWith('row 01000\n')).toBe(true);
    }
    // Too small for the omitted line itself: nothing comes back but the count and the note.
    const none = await h.run(script, { outputBudget: { consoleBytes: 40 } });
    expect(none).toMatchObject({ consoleOutput: '', consoleOutputOmittedBytes: 10_000, truncated: true });
    expect(none.notes?.join('\n')).toMatch(/10000 of 10000 bytes were left out.*outputBudget\.consoleBytes is 40/);
  });

  it('caps a long error message', async () => {
    const capped = generous(harness({ env: { JUBE_R_MAX_ERROR_BYTES: '256' } }));
    const response = await capped.run('stop(strrep("e", 5000))');
    expect(response.status).toBe('error');
    expect(Buffer.byteLength(response.error ?? '')).toBeLessThanOrEqual(256);
    expect(response.truncated).toBe(true);
  });

  it('drops an oversized structured result with a warning', async () => {
    const capped = generous(harness({ env: { JUBE_R_MAX_RESULT_BYTES: '1024' } }));
    const response = await capped.run('cat("<<<JUBE_RESULT_START>>>[", paste(rep("1", 2000), collapse = ","), "]<<<JUBE_RESULT_END>>>")');
    expect(response.status).toBe('ok');
    expect(response).not.toHaveProperty('result');
    expect(response.resultWarning).toMatch(/exceeded 1024 bytes/);
    expect(response.truncated).toBe(true);
  });
});
