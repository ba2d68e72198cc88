/** The /execute result contract with real R: outputs, errors, warnings, autoprint, result markers. */
import { describe, expect, it } from 'vitest';
import { harness } from './helpers.ts';
import { generous } from '../load-tolerant.ts';

const h = generous(harness());
// quit() is the script's own error under the R layer; only a script that beat it ends R itself.
const escaped = generous(harness({ containment: { testEscapedRunner: true } }));

describe('execute handler: outputs', () => {
  it('returns ok with the console text, autoprinting visible values as the R console does', async () => {
    const response = await h.run('1 + 1\ninvisible(3)\nx <- 4\nx\nNULL\n');
    expect(response).toMatchObject({ status: 'ok', consoleOutput: '[1] 2\n[1] 4\nNULL\n', error: null, warnings: [], timedOut: false });
    expect(response.rVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(new Date(response.timestamp).toISOString()).toBe(response.timestamp);
    expect(response.truncated).toBeUndefined();
  });

  it('keeps printed output and messages in the order they happened', async () => {
    const response = await h.run('cat("one\\n")\nmessage("two")\nprint("three")\nmessage("four")\ncat("five\\n")\n');
    expect(response.consoleOutput).toBe('one\ntwo\n[1] "three"\nfour\nfive\n');
  });

  it('autoprints with the S3 method a script defines, like the console does', async () => {
    const response = await h.run('print.money <- function(x, ...) cat("$", unclass(x), "\\n")\nstructure(5, class = "money")\n');
    expect(response.consoleOutput).toBe('$ 5 \n');
  });

  it.each([
    { script: 'stop("boom")', error: 'Error: boom\nAt line 1: stop("boom")' },
    { script: 'f <- function() stop("inner")\nf()', error: 'Error in f(): inner\nAt line 1: f <- function() stop("inner")' },
    { script: 'log(-1:-2) + "a"', error: 'Error in log(-1:-2) + "a": non-numeric argument to binary operator\nAt line 1: log(-1:-2) + "a"' },
  ])('reports an error as status error: $script', async ({ script, error }) => {
    const response = await h.run(script);
    expect(response).toMatchObject({ status: 'error', error, timedOut: false });
  });

  it('stops at the first error and keeps the output before it', async () => {
    const response = await h.run('cat("before\\n")\nstop("halt")\ncat("after\\n")\n');
    expect(response).toMatchObject({ status: 'error', consoleOutput: 'before\n', error: 'Error: halt\nAt line 2: stop("halt")' });
  });

  it('collects warnings separately, in order, and the run stays ok', async () => {
    const response = await h.run('warning("first")\nx <- as.integer("a")\ncat("done\\n")\n');
    expect(response).toMatchObject({ status: 'ok', consoleOutput: 'done\n', warnings: ['first', 'NAs introduced by coercion'] });
  });

  it('caps the number of warnings and says so', async () => {
    const capped = generous(harness({ env: { JUBE_R_MAX_WARNINGS: '3' } }));
    const response = await capped.run('for (i in 1:10) warning(paste("w", i))');
    expect(response.warnings).toEqual(['w 1', 'w 2', 'w 3']);
    expect(response.truncated).toBe(true);
  });

  describe('structured result markers', () => {
    it.each([
      {
        name: 'valid JSON becomes result',
        script: 'cat("x\\n<<<JUBE_RESULT_START>>>{\\"mean\\": 2.5, \\"ok\\": [true]}<<<JUBE_RESULT_END>>>\\n")',
        expected: { status: 'ok', result: { mean: 2.5, ok: [true] } },
      },
      {
        name: 'jsonlite output becomes result',
        script: 'cat("<<<JUBE_RESULT_START>>>", jsonlite::toJSON(list(n = 3L), auto_unbox = TRUE), "<<<JUBE_RESULT_END>>>", sep = "")',
        expected: { status: 'ok', result: { n: 3 } },
      },
    ])('$name', async ({ script, expected }) => {
      const response = await h.run(script);
      expect(response).toMatchObject(expected);
      // The block is `result` now, not console text.
      expect(response.consoleOutput).not.toContain('<<<JUBE_RESULT_START>>>');
      expect(response.resultWarning).toBeUndefined();
    });

    it('invalid JSON gives a resultWarning and no result, and does not fail the run', async () => {
      const response = await h.run('cat("<<<JUBE_RESULT_START>>>{not json<<<JUBE_RESULT_END>>>")');
      expect(response.status).toBe('ok');
      expect(response).not.toHaveProperty('result');
      expect(response.resultWarning).toMatch(/not valid JSON/);
    });

    it('no markers, no result', async () => {
      const response = await h.run('cat("{\\"a\\": 1}")');
      expect(response).not.toHaveProperty('result');
      expect(response).not.toHaveProperty('resultWarning');
    });
  });

  describe('the envelope cannot be forged', () => {
    it('ignores an envelope printed to stdout', async () => {
      const response = await h.run('cat(\'{"status":"ok","error":null,"warnings":[],"timedOut":false}\\n\')\nstop("real failure")');
      expect(response).toMatchObject({ status: 'error', error: 'Error: real failure\nAt line 2: stop("real failure")' });
    });

    it('ignores an envelope file the script writes before quitting', async () => {
      const forged = '{"nonce":"guess","rVersion":"9.9.9","status":"ok","error":null,"warnings":[],"timedOut":false}';
      const response = await escaped.run(`writeLines('${forged}', "envelope.json")\nquit(status = 0)`);
      expect(response.status).toBe('error');
      expect(response.error).toMatch(/^Error: quit\(\) at line 2 ends the script here/);
      expect(response.rVersion).not.toBe('9.9.9');
    });

    it('ignores an envelope file the script writes before ending R without the runner (a signal to itself)', async () => {
      const forged = '{"nonce":"guess","rVersion":"9.9.9","status":"ok","error":null,"warnings":[],"timedOut":false}';
      const response = await escaped.run(`writeLines('${forged}', "envelope.json")\ntools::pskill(Sys.getpid(), tools::SIGKILL)`);
      expect(response.status).toBe('error');
      expect(response.error).toMatch(/nonce/);
      expect(response.rVersion).not.toBe('9.9.9');
    });
  });

  describe('R dying is a clean error', () => {
    it('quit() with a status is the script\'s own error, its output kept', async () => {
      const response = await escaped.run('cat("bye\\n")\nquit(status = 3)');
      expect(response).toMatchObject({ status: 'error', consoleOutput: 'bye\n', timedOut: false, errorType: 'execution' });
      expect(response.error).toMatch(/^Error: quit\(\) at line 2 ends the script here/);
    });

    it('R ended by a signal, with no result file, is the service\'s error', async () => {
      const response = await escaped.run('cat("bye\\n")\ntools::pskill(Sys.getpid(), tools::SIGKILL)');
      expect(response).toMatchObject({ status: 'error', consoleOutput: 'bye\n', timedOut: false, errorType: 'interpreter' });
      expect(response.error).toMatch(/SIGKILL/);
    });

    it('a memory blow-up is stopped by the address-space limit', async () => {
      const response = await h.run('x <- numeric(1e10)');
      expect(response).toMatchObject({ status: 'error', timedOut: false });
      expect(response.error).toMatch(/cannot allocate vector/);
    });

    it('a growing allocation loop ends in an error, not a crash', async () => {
      const limited = generous(harness({ env: { JUBE_R_RLIMIT_AS_BYTES: String(512 * 1024 * 1024) } }));
      const response = await limited.run('x <- list()\nfor (i in 1:100) x[[i]] <- numeric(1e7)\nlength(x)');
      expect(response.status).toBe('error');
      expect(response.error).toMatch(/cannot allocate|R exited without a result/);
    });
  });
});
