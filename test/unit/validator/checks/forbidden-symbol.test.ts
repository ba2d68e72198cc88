import { describe, expect, it } from 'vitest';
import { errorsOf, validate } from '../support.ts';

describe('check forbidden-symbol', () => {
  describe('Noncompliance', () => {
    it.each([
      ['a call', 'system("id")', 'system'],
      ['a bare value', 'f <- system', 'system'],
      ['an alias later called', 'x <- system; x("id")', 'system'],
      ['a pkg:: qualified call', 'base::system("id")', 'system'],
      ['a pkg:: qualified string', 'base::"system"("id")', 'system'],
      ['a backquoted call', '`system`("id")', 'system'],
      ['an escaped backquoted name', '`\\x73ystem`("id")', 'system'],
      ['a parenthesized function', '(system)("id")', 'system'],
      ['an argument value', 'lapply(x, system)', 'system'],
      ['a formal default', 'f <- function(g = system) g("id")', 'system'],
      ['inside a function body', 'f <- function() { Sys.unsetenv("AWS_SECRET_ACCESS_KEY") }', 'Sys.unsetenv'],
      ['a pipe target', '"id" |> system()', 'system'],
      ['inside a formula', 'y ~ system("id")', 'system'],
      ['inside tryCatch', 'tryCatch(system("id"), error = identity)', 'system'],
      ['an indirection primitive', 'base::get("system")', 'get'],
      ['do.call naming a forbidden function', 'do.call("system", list("id"))', 'do.call'],
      ['do.call with a computed function', 'do.call(paste0("sys", "tem"), list("id"))', 'do.call'],
      ['a column name passed on as a function', 'dplyr::mutate(d, y = sapply(x, source))', 'source'],
      ['match.fun', 'match.fun("system")("id")', 'match.fun'],
      ['a replacement call', 'body(f) <- quote(system("id"))', 'body<-'],
      ['a nested replacement call', 'formals(f)$x <- 1', 'formals<-'],
      ['a backquoted replacement function', '`body<-`(f, value = 1)', 'body<-'],
      ['environment<- through replacement syntax', 'environment(f) <- e', 'environment<-'],
      ['a right assignment of a forbidden value', 'system -> f', 'system'],
    ])('rejects %s', async (_, script, symbol) => {
      const errors = await errorsOf(script);
      expect(errors).toContain(`FORBIDDEN_SYMBOL:${symbol}`);
    });

    it('reports the position and an actionable message', async () => {
      const result = await validate('x <- 1\n  y <- Sys.unsetenv("HOME")');
      expect(result.errors).toEqual([
        expect.objectContaining({ code: 'FORBIDDEN_SYMBOL', symbol: 'Sys.unsetenv', line: 2, column: 8 }),
      ]);
      expect(result.errors[0]?.message).toMatch(/request variables/);
    });

    it('reports every error, sorted by position', async () => {
      const result = await validate('get("a")\nsystem("b")\neval(1)');
      expect(result.errors.map((e) => [e.symbol, e.line])).toEqual([
        ['get', 1],
        ['system', 2],
        ['eval', 3],
      ]);
    });

    // base::local() and utils::example() are their plain calls; written as a string or through `:::` they are
    // not, as the R re-validation reads them (test/runner/validator-differential.test.ts).
    it.each([
      ['base::"local"({ 1 })', ['FORBIDDEN_SYMBOL:local']],
      ['base:::local({ 1 })', ['BLOCKED_OPERATOR::::', 'FORBIDDEN_SYMBOL:local']],
      ['utils::"example"("lm", package = "stats")', ['FORBIDDEN_SYMBOL:example']],
      ['utils:::example("lm", package = "stats")', ['BLOCKED_OPERATOR::::', 'FORBIDDEN_SYMBOL:example']],
    ])('gives no relaxation to %j', async (script, errors) => {
      expect((await errorsOf(script)).sort()).toEqual(errors);
    });

    it('bounds the number of errors reported', async () => {
      const result = await validate('system("id")\n'.repeat(500));
      expect(result.errors).toHaveLength(100);
    });
  });

  describe('Compliance', () => {
    it.each([
      ['an argument name', 'f(system = 1)'],
      ['a $ field', 'x$system'],
      ['an @ slot', 'x@system'],
      ['a formal parameter name', 'f <- function(system) 1'],
      ['an assignment target', 'system <- 1'],
      ['a right-assignment target', '1 -> system'],
      ['a for variable', 'for (load in 1:3) print(1)'],
      ['a plain string', 'x <- "system"'],
      ['a string naming it outside a function slot', 'paste("system", "call")'],
      ['a longer name containing it', 'system_info <- 1; print(system_info)'],
      ['a name only similar to a forbidden one', 'q <- 0.9; quantile(1:10, q)'],
      ['a data.table column target', 'dt[, source := 1]'],
      // The relaxations (test/fixtures/relaxations/cases.json has the full table).
      ['a column compared in filter()', 'dplyr::filter(d, source == "web")'],
      ['a column named bare in a verb', 'tidyr::pivot_wider(d, names_from = system, values_from = n)'],
      ['a column in a formula', 'lm(y ~ demo + url, data = d)'],
      ['do.call naming a function', 'do.call(rbind, pieces)'],
      ['local with one block', 'x <- local({ a <- 1; a + 1 })'],
      ['base::local with one block', 'x <- base::local({ a <- 1; a + 1 })'],
      ['utils::example of a package', 'utils::example("lm", package = "stats")'],
    ])('accepts %s', async (_, script) => {
      expect(await errorsOf(script)).toEqual([]);
    });
  });
});
