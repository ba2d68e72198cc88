import { describe, expect, it } from 'vitest';
import { errorsOf, validate } from '../support.ts';

describe('check blocked-operator', () => {
  describe('Noncompliance', () => {
    it.each([
      ['superassignment', 'x <<- 1', '<<-'],
      ['right superassignment', '1 ->> x', '->>'],
      ['superassignment in a function', 'f <- function() { counter <<- counter + 1 }', '<<-'],
      ['triple colon', 'stats:::Pillai', ':::'],
      ['superassignment of a name only the same function binds', 'f <- function() { i <- 0; i <<- 1 }', '<<-'],
      ['superassignment in a function nested in one that does not bind it', 'f <- function() function() x <<- 1', '<<-'],
      ['superassignment bound only at top level', 'x <- 0\nf <- function() x <<- x + 1', '<<-'],
      ['superassignment directly in a top-level local()', 'local({ x <- 1; x <<- 2 })', '<<-'],
      ['superassignment of a replacement call', 'f <- function() { x <- 1; function() names(x) <<- "a" }', '<<-'],
      ['superassignment in a local() of another package', 'f <- function() { i <- 0; withr::local({ i <<- 1 }) }', '<<-'],
    ])('rejects %s', async (_, script, op) => {
      expect(await errorsOf(script)).toContain(`BLOCKED_OPERATOR:${op}`);
    });

    it.each([
      ['an unlisted internal function of a package with listed ones', 'glmnet:::someOther(x)'],
      ['glmnet.path, which evaluates its family\'s initialize expression', 'glmnet:::glmnet.path(x, y)'],
      ['a listed name of another package', 'stats:::fid(1, 2)'],
      ['an unlisted internal function as a value', 'f <- glmnet:::cox.fit'],
      ['a near miss of a listed name', 'glmnet:::`fid2`'],
    ])('rejects ::: of %s', async (_, script) => {
      expect(await errorsOf(script)).toEqual(['BLOCKED_OPERATOR::::']);
    });

    it('rejects a listed name of a package the script may not load, with the package finding too', async () => {
      expect(await errorsOf('evilpkg:::fid(1)')).toEqual(['PACKAGE_NOT_ALLOWED:evilpkg', 'BLOCKED_OPERATOR::::']);
    });

    it('names the listed internal functions of the package, in the wording the R re-validation uses too', async () => {
      // test/runner/r/test-internal-functions.R asserts the same sentence on the R side.
      const hint = " Of glmnet's internal functions, a script may use only fid, cox.path, as glmnet:::name.";
      const message = (await validate('glmnet:::someOther')).errors[0]?.message;
      expect(message).toBe(
        'The operator `:::` is not allowed: Reaches unexported internals of any package; the exported API is what the allow-list audits. ' +
          `Instead, use the exported function with pkg::name.${hint}`,
      );
      expect((await validate('stats:::Pillai')).errors[0]?.message).toMatch(/Instead, use the exported function with pkg::name\.$/);
    });

    it('advises a working alternative, from the rules', async () => {
      const { loadRules } = await import('../../../../layers/rules/rules.ts');
      const advice = loadRules().relaxations.superassignment.advice;
      expect((await validate('x <<- 1')).errors[0]?.message).toContain(`Instead, ${advice}.`);
      expect(await errorsOf('make_counter <- function() { i <- 0; function() { i <<- i + 1; i } }\nx <- 0\nx <- x + 1')).toEqual([]);
    });

    it('points at the operator', async () => {
      const result = await validate('total <<- 1');
      expect(result.errors[0]).toMatchObject({ line: 1, column: 7 });
    });
  });

  describe('Compliance', () => {
    it.each([
      ['assignment', 'x <- 1'],
      ['right assignment', '1 -> x'],
      ['equals assignment', 'x = 1'],
      ['double colon', 'stats::median(1:3)'],
      ['operators inside strings', 'x <- "a <<- b ->> c ::: d"'],
      ['operators inside comments', 'x <- 1 # y <<- 2'],
      ['less-than a negative number', 'x < -1'],
      ['a counter closure', 'make_counter <- function() { i <- 0; function() { i <<- i + 1; i } }'],
      ['a parameter of the enclosing function', 'adder <- function(total) function(x) total <<- total + x'],
      ['right superassignment of an enclosing binding', 'f <- function() { n = 0; g <- function() n + 1 ->> n; g }'],
      ['an element of an enclosing list', 'memo <- function() { cache <- list(); function(k) cache[[k]] <<- TRUE }'],
      ['a field of an enclosing list', 'f <- function() { s <- list(); function() s$a <<- 1 }'],
      ['a lambda', 'f <- function() { i <- 0; g <- \\() i <<- i + 1; g }'],
      ['a closure in local()', 'counter <- local({ i <- 0; function() { i <<- i + 1; i } })'],
      ['a closure in base::local()', 'counter <- base::local({ i <- 0; function() { i <<- i + 1; i } })'],
      ['a local() inside the function that binds it', 'f <- function() { i <- 0; local({ i <<- 1 }); i }'],
      ['a binding made by a for loop', 'f <- function() { for (i in 1:3) NULL; function() i <<- 0 }'],
      ['a listed internal function, called', 'glmnet:::fid(c(1, 4, 5, 6), 1:5)'],
      ['another listed internal function', 'fit <- glmnet:::cox.path(x, jsurv)'],
      ['a listed internal function as a value', 'lapply(xs, glmnet:::fid, 1:5)'],
      ['a listed internal function piped into', 'x |> glmnet:::fid(1:5)'],
      ['a listed internal function named by strings', '"glmnet":::"fid"'],
      ['a listed internal function backquoted, escapes decoded', 'glmnet:::`f\\x69d`'],
    ])('accepts %s', async (_, script) => {
      expect(await errorsOf(script)).toEqual([]);
    });
  });
});
