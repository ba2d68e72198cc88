/**
 * The relaxations at run time (docs/script-rules.md, "Relaxations"): scripts the static rules
 * now accept, run through the real execute handler with host R. The relaxed forms work as analysts
 * expect, and what the static walk cannot see (a name computed at run time) is refused by the
 * script's match.fun and by the guarded reformulate; do.call() of a variable is refused before it runs. (The script's options() refusing a
 * denied name has no statically accepted route to it; test/runner/r/test-safe-calls.R tests it.)
 */
import { describe, expect, it } from 'vitest';
import { harness } from './helpers.ts';

const h = harness();

describe('execute handler: the relaxations at run time', () => {
  it.each([
    ['a name handed to match.fun by a caller', 'g <- function(FUN) match.fun(FUN)\ng(paste0("Sys.", "getenv"))', /match.fun\(\) of 'Sys.getenv' is not available/],
    ['formula text built to call a forbidden function', 'f <- reformulate(paste0("I(sys", "tem(\'id\'))"))', /not even inside a formula/],
    ['a column name that is no column', 'library(dplyr)\nd <- data.frame(x = 1)\nfilter(d, system == "x")', /system/],
    // `options` bound by the script anywhere is read as data statically, so the mask's options() is
    // what a value use elsewhere reaches: it checks every setting of a list too.
    ['options() handed over as a value where the script also binds the name', 'invisible(lapply(list(list(editor = "evil")), options))\noptions <- c("call", "put")', /the option 'editor' cannot be set/],
  ])('refuses %s', async (_, script, error) => {
    const response = await h.run(script);
    expect(response.status).toBe('error');
    expect(response.error).toMatch(error);
  });

  // The script's do.call() refuses these names at run time too (test-safe-calls.R); both
  // validators refuse the variable first, so the agent is never told such a script is valid.
  it.each([
    ['a name computed for do.call', 'f <- paste0("sys", "tem")\ndo.call(f, list("echo hi"))'],
    ['a higher-order function named at run time', 'f <- "sapply"\ndo.call(f, list(1, "system"))'],
  ])('refuses %s before it runs', async (_, script) => {
    const response = await h.run(script);
    expect(response.status).toBe('rejected');
    expect(response.validation?.errors.map((e) => `${e.code}:${e.symbol ?? ''}`)).toContain('FORBIDDEN_SYMBOL:do.call');
  });

  it('runs the relaxed forms as R does', async () => {
    const script = [
      'pieces <- lapply(1:3, function(i) data.frame(i = i, sq = i^2))',
      'cat(nrow(do.call(rbind, pieces)), nrow(do.call("rbind", pieces)), "\\n")',
      'cat(local({ a <- 2; a * 21 }), exists("a"), "\\n")',
      'op <- options(digits = 3)',
      'print(pi)',
      'options(op)',
      'print(pi)',
      'cat(deparse(reformulate(c("wt", "hp"), "mpg")), deparse(as.formula(paste("mpg ~", "wt"))), "\\n")',
      'print(do.call(identity, list(quote(stop("never evaluated")))))',
      'library(dplyr, warn.conflicts = FALSE)',
      'd <- data.frame(source = c("web", "app"), call = 1:2)',
      'print(nrow(filter(d, source == "web")))',
    ].join('\n');
    const response = await h.run(script, { timeoutSeconds: 20 });
    expect(response.error).toBeNull();
    expect(response.consoleOutput).toBe(
      '3 3 \n42 FALSE \n[1] 3.14\n[1] 3.141593\nmpg ~ wt + hp mpg ~ wt \nstop("never evaluated")\n[1] 1\n',
    );
  });

  it('runs scripts whose columns and variables are named like a loader or options()', async () => {
    // filter() reads the column; the script's own `options` is its vector, and the mask's options() still works.
    const script = [
      'library(dplyr)',
      'd <- data.frame(library = c("a", "b"))',
      'print(nrow(filter(d, library == "a")))',
      'options <- c("call", "put")',
      'print(length(options))',
      'print(options)',
      'op <- options(digits = 3)',
      'print(pi)',
    ].join('\n');
    const response = await h.run(script, { timeoutSeconds: 20 });
    expect(response.error).toBeNull();
    expect(response.status).toBe('ok');
    expect(response.consoleOutput).toBe('[1] 1\n[1] 2\n[1] "call" "put" \n[1] 3.14\n');
  });
});
