/**
 * Code an agent writes every day that only changes the script's own process, or names data the way
 * a forbidden function is named: /validate (the TypeScript validator) and the runtime (the runner's
 * re-validation and its safe replacements, with real R) must give the same verdict, and what both
 * accept must run. The refused neighbours of each form are checked the same way (the shared table
 * test/fixtures/relaxations/cases.json holds more cases of each, decided without running them).
 */
import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { acceptEverything, harness } from './helpers.ts';

const validator = loadValidator({ rules: loadRules(), ...manifestPackages(loadManifest()) });
const runtime = harness({ validator: acceptEverything });

const verdicts = async (script: string) => {
  const statically = (await (await validator)(script)).errors.map((e) => `${e.code}:${e.symbol ?? ''}`);
  const response = await runtime.run(script);
  const atRuntime = response.status === 'rejected' ? (response.validation?.errors ?? []).map((e) => `${e.code}:${e.symbol ?? ''}`) : [];
  return { statically, atRuntime, response };
};

describe('safe forms: accepted by /validate and the runtime alike, and they run', () => {
  it.each([
    'options(warn = -1)\nas.integer("x")\noptions(warn = 0)\n1',
    'options(warn = 1)\nx <- as.integer("x")\nidentical(x, NA_integer_)',
    'old <- options(warn = 2)\nr <- tryCatch(as.integer("x"), error = function(e) "now an error")\noptions(old)\nr',
    'Sys.setenv(TZ = "America/New_York")\nformat(as.POSIXct(0, origin = "1970-01-01", tz = ""), "%H")',
    'Sys.setenv(LANG = "C.UTF-8", LC_ALL = "C", LANGUAGE = "en")\nsort(c("b", "A", "a"))',
    'dat <- data.frame(yi = c(0.2, 0.4, 0.1), vi = c(0.01, 0.02, 0.04))\nfit <- lm(yi ~ 1, data = dat, weights = 1 / vi)\ncoef(fit)',
    'dat <- data.frame(y = 1:4, vi = c(1, 2, 1, 2))\ncoef(lm(y ~ 1, data = dat, weights = vi))',
    'zip <- c("02139", "10001")\nurl <- "https://example.org"\nload <- 3\npage <- 2\ntrace <- 1:3\nde <- 0.5\nlist(nchar(zip), url, load * page, mean(trace) + de)',
    'for (load in 1:2) print(load)\nf <- function(page) page + 1\nf(1)',
    'attach(mtcars)\nmean(mpg)',
    'inc <- function(x) x + 1\ndo.call(inc, list(1))',
    'df <- data.frame(score = c(2, 4), grp = factor(c("a", "b")))\nattach(df, warn.conflicts = FALSE)\ntapply(score, grp, sum)',
  ])('%s', async (script) => {
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response.status, response.error ?? '').toBe('ok');
  });

  it('warn = 2 left set: the runner still reports the script\'s warning (its handler sees it first) and finishes', async () => {
    const { response } = await verdicts('options(warn = 2)\nx <- as.integer("x")\n1');
    expect(response).toMatchObject({ status: 'ok', warnings: ['NAs introduced by coercion'], value: { json: 1 } });
  });
});

it('attach() of something that is not a data frame of atomic columns is refused at run time', async () => {
  const { statically, response } = await verdicts('e <- list(a = 1)\nattach(e)');
  expect(statically).toEqual([]);
  expect(response).toMatchObject({ status: 'error', error: expect.stringContaining('attach() of anything but a data frame') });
});

describe('rlang, blocked but for its named exports', () => {
  it('group_by(!!rlang::sym(grp)) passes both and runs', async () => {
    const { statically, atRuntime, response } = await verdicts(
      'library(dplyr)\ngrp <- "cyl"\nout <- mtcars |> group_by(!!rlang::sym(grp)) |> summarise(n = n())\nout$n',
    );
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response).toMatchObject({ status: 'ok', value: { json: [11, 7, 14] } });
  });

  it('rlang::abort fails the script with its message, as stop() would', async () => {
    const { statically, response } = await verdicts('rlang::abort("no rows")');
    expect(statically).toEqual([]);
    expect(response).toMatchObject({ status: 'error', error: expect.stringContaining('no rows') });
  });

  it.each(['rlang::eval_tidy(quote(1))', 'e <- rlang::env()', 'rlang::is_installed("dplyr")'])(
    '%s is refused by both with the same code',
    async (script) => {
      const { statically, atRuntime } = await verdicts(script);
      expect(statically).toEqual(['PACKAGE_NOT_ALLOWED:rlang']);
      expect(atRuntime).toEqual(statically);
    },
  );
});

describe('<<- into an enclosing function of the script', () => {
  it.each([
    ['a counter closure', 'make_counter <- function() { i <- 0; function() { i <<- i + 1; i } }\nnext_id <- make_counter()\nnext_id()\nnext_id()', 2],
    ['a closure made by base::local()', 'tick <- base::local({ n <- 0; function() n <<- n + 1 })\ntick()\ntick()', 2],
    ['a memo', 'memo <- function() { cache <- list(); function(k) { cache[[k]] <<- nchar(k); cache } }\nm <- memo()\nm("ab")\nlength(m("abc"))', 2],
  ])('%s passes both and runs', async (_, script, value) => {
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response).toMatchObject({ status: 'ok', value: { json: value } });
  });

  it.each(['x <<- 1', 'x <- 0\nf <- function() x <<- x + 1', 'local({ x <- 1; x <<- 2 })'])(
    '%s is refused by both with the same code, advising a form that passes both and runs',
    async (script) => {
      const { statically, atRuntime } = await verdicts(script);
      expect(statically).toContain('BLOCKED_OPERATOR:<<-');
      expect(atRuntime).toEqual(statically);
      const advice = loadRules().relaxations.superassignment.advice;
      const example = `${advice.slice(advice.indexOf('make_counter'))}\nnext_id <- make_counter()\nnext_id()`;
      const followed = await verdicts(example);
      expect(followed.statically).toEqual([]);
      expect(followed.atRuntime).toEqual([]);
      expect(followed.response).toMatchObject({ status: 'ok', value: { json: 1 } });
    },
  );

  it('a target the enclosing function binds only on some paths is refused at run time when it is not bound', async () => {
    const { statically, response } = await verdicts('f <- function(go) { if (go) x <- 0; function() x <<- 1 }\ng <- f(FALSE)\ng()');
    expect(statically).toEqual([]);
    expect(response).toMatchObject({ status: 'error', error: expect.stringContaining("'<<-' may only update a variable of an enclosing function") });
  });
});

it('an allowed dependency (nlme) loads and fits, accepted by both', async () => {
  const { statically, atRuntime, response } = await verdicts(
    'library(nlme)\nfit <- lme(distance ~ age, data = Orthodont, random = ~ 1 | Subject)\nround(unname(fixef(fit))[2], 3)',
  );
  expect(statically).toEqual([]);
  expect(atRuntime).toEqual([]);
  expect(response).toMatchObject({ status: 'ok', value: { json: 0.66 } });
});

describe('requireNamespace() guards on an absent package', () => {
  it('the guarded branch is not judged by either, and R skips it', async () => {
    const script = 'fit <- if (requireNamespace("brms", quietly = TRUE)) {\n  brms::brm(y ~ x, data = d)\n} else {\n  "fallback"\n}\nfit';
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response).toMatchObject({ status: 'ok', value: { json: 'fallback' } });
  });

  it.each([
    ['an installed but blocked package', 'if (requireNamespace("processx", quietly = TRUE)) processx::run("id")', 'PACKAGE_NOT_ALLOWED:processx'],
    ['the else branch', 'if (requireNamespace("brms", quietly = TRUE)) 1 else system("id")', 'FORBIDDEN_SYMBOL:system'],
  ])('%s is still refused by both with the same code', async (_, script, code) => {
    const { statically, atRuntime } = await verdicts(script);
    expect(statically).toContain(code);
    expect(atRuntime).toEqual(statically);
  });
});

describe('their refused neighbours: refused by both, with the same codes', () => {
  it.each([
    ['options(warn = 3)', 'OPTION_NOT_ALLOWED:warn'],
    ['w <- 1\noptions(warn = w)', 'OPTION_NOT_ALLOWED:warn'],
    ['Sys.setenv(PATH = "/tmp")', 'FORBIDDEN_SYMBOL:Sys.setenv'],
    ['Sys.setenv(TZ = ":/etc/passwd")', 'FORBIDDEN_SYMBOL:Sys.setenv'],
    ['tz <- "UTC"\nSys.setenv(TZ = tz)', 'FORBIDDEN_SYMBOL:Sys.setenv'],
    ['Sys.getenv(paste0("T", "Z"))', 'FORBIDDEN_SYMBOL:Sys.getenv'],
    ['lapply(1:2, url)', 'FORBIDDEN_SYMBOL:url'],
    ['url <- "x"\nurl("https://example.org")', 'FORBIDDEN_SYMBOL:url'],
    ['d <- data.frame(x = 1)\naggregate(x ~ 1, data = d, FUN = load)', 'FORBIDDEN_SYMBOL:load'],
    ['attach("saved.RData")', 'FORBIDDEN_SYMBOL:attach'],
    ['attach(df, pos = 1)', 'FORBIDDEN_SYMBOL:attach'],
    // The runtime's do.call() refuses a refused name held by a variable; /validate refuses the variable first.
    ['f <- "sapply"\ndo.call(f, list(1:2, sqrt))', 'FORBIDDEN_SYMBOL:do.call'],
    ['run <- function(f, x) do.call(f, list(x))\nrun("sapply", 1:2)', 'FORBIDDEN_SYMBOL:do.call'],
  ])('%s', async (script, code) => {
    const { statically, atRuntime } = await verdicts(script);
    expect(statically).toContain(code);
    expect(atRuntime).toEqual(statically);
  });
});
