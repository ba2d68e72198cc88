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

  it.each([
    ['max.print, saved and restored', 'op <- options(max.print = 5, width = 80)\nprint(1:10)\noptions(op)\ngetOption("max.print")', 99999],
    ['show.error.messages around try()', 'options(show.error.messages = FALSE)\nr <- try(log("a"))\noptions(show.error.messages = TRUE)\ninherits(r, "try-error")', true],
    ['the warning and deparse settings', 'options(nwarnings = 5, warning.length = 200, deparse.max.lines = 2, matprod = "internal")\nsum(matrix(1:4, 2) %*% matrix(1:4, 2))', 54],
  ])('options that only change the script\'s own process: %s passes both and runs', async (_, script, value) => {
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response).toMatchObject({ status: 'ok', value: { json: value } });
  });

  it('show.error.messages = FALSE left set: the script\'s error is still reported', async () => {
    const { statically, response } = await verdicts('options(show.error.messages = FALSE)\nstop("boom")');
    expect(statically).toEqual([]);
    expect(response).toMatchObject({ status: 'error', error: expect.stringContaining('boom') });
  });

  it('purrr::attr_getter() (its Rd example) passes both and runs, on the runner\'s attr()', async () => {
    const script = 'library(purrr)\nx <- list(structure(1, obj_attr = "a"), structure(2, obj_attr = "b"))\n' +
      'get_rownames <- attr_getter("row.names")\nc(pluck(x, 2, attr_getter("obj_attr")), get_rownames(mtcars)[1], map_chr(x, attr_getter("obj_attr")))';
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response).toMatchObject({ status: 'ok', value: { json: ['b', 'Mazda RX4', 'a', 'b'] } });
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

  it('rlang::exec is refused by both, advising do.call() with the function named literally, which passes both and runs', async () => {
    const { statically, atRuntime } = await verdicts('pieces <- list(1:2, 3:4)\nrlang::exec(rbind, !!!pieces)');
    expect(statically).toEqual(['PACKAGE_NOT_ALLOWED:rlang']);
    expect(atRuntime).toEqual(statically);
    expect(loadRules().packages.namedExports.packages.find((p) => p.name === 'rlang')?.refused['exec']).toContain('do.call(rbind, pieces)');
    const followed = await verdicts('pieces <- list(1:2, 3:4)\nm <- do.call(rbind, pieces)\nm[2, 1]');
    expect(followed.statically).toEqual([]);
    expect(followed.atRuntime).toEqual([]);
    expect(followed.response).toMatchObject({ status: 'ok', value: { json: 3 } });
  });

  it.each([
    ['tibble\'s example: rlang::local_options in a local() block', 'local({ rlang::local_options(tibble.view_max = 100); cat(getOption("tibble.view_max")) }); cat(is.null(getOption("tibble.view_max")))', '100TRUE'],
    ['rlang::local_options in a function', 'f <- function() {\n  rlang::local_options(digits = 4)\n  print(pi)\n}\nf()\nprint(pi)', '[1] 3.142\n[1] 3.141593\n'],
    ['rlang::with_options', 'rlang::with_options(print(pi), digits = 3)\nprint(pi)', '[1] 3.14\n[1] 3.141593\n'],
  ])('%s passes both and runs, restoring the options as withr\'s do', async (_, script, output) => {
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response.status, response.error ?? '').toBe('ok');
    expect(response.consoleOutput).toBe(output);
  });

  it.each([
    ['rlang::local_options(editor = "vi")', 'OPTION_NOT_ALLOWED:editor'],
    ['rlang::with_options(1, warn = 7)', 'OPTION_NOT_ALLOWED:warn'],
    ['rlang::local_options(digits = 3, .frame = globalenv())', 'PACKAGE_NOT_ALLOWED:rlang'],
    ['o <- list(editor = "x")\nrlang::local_options(!!!o)', 'PACKAGE_NOT_ALLOWED:rlang'],
    ['f <- rlang::local_options\nf(digits = 3)', 'PACKAGE_NOT_ALLOWED:rlang'],
  ])('%s is refused by both with the same code, as withr\'s forms are', async (script, code) => {
    const { statically, atRuntime } = await verdicts(script);
    expect(statically).toContain(code);
    expect(atRuntime).toEqual(statically);
  });

  it.each(['rlang::eval_tidy(quote(1))', 'e <- rlang::env()'])(
    '%s is refused by both with the same code',
    async (script) => {
      const { statically, atRuntime } = await verdicts(script);
      expect(statically).toEqual(['PACKAGE_NOT_ALLOWED:rlang']);
      expect(atRuntime).toEqual(statically);
    },
  );
});

describe('found by the vignette corpus (npm run bench -- vignettes): accepted by both, and they run', () => {
  it.each([
    ['tools::toTitleCase, the one listed function of blocked tools', 'tools::toTitleCase("the quick brown dog")', 'The Quick Brown Dog'],
    [
      'rlang::quo and rlang::quos given to a verb, and their text',
      'library(dplyr)\nq <- rlang::quo(cyl)\nqs <- rlang::quos(gear)\nn <- nrow(count(mtcars, !!q, !!!qs))\nc(n, rlang::expr_text(rlang::quo_get_expr(q)))',
      ['8', 'cyl'],
    ],
    ['rlang::enexpr in a function, and as_quosure of a formula', 'f <- function(x) rlang::enexpr(x)\nlibrary(dplyr)\nnrow(filter(mtcars, !!rlang::as_quosure(~ cyl == 4)))\n', 11],
    [
      'a column named demo, in a script that also names a table rank (tidyr\'s tidy-data vignette)',
      'library(dplyr)\nlibrary(tidyr)\ntb <- tibble(demo = c("m014", "f1524"), n = 1:2)\ntb3 <- tb %>% separate(demo, c("sex", "age"), 1)\nrank <- tb3 %>% select(sex, n)\nrank$sex',
      ['m', 'f'],
    ],
  ])('%s', async (_, script, value) => {
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response, response.error ?? '').toMatchObject({ status: 'ok', value: { json: value } });
  });

  it.each([
    ['tools::file_ext("a.csv")', 'PACKAGE_NOT_ALLOWED:tools'],
    ['library(dplyr)\nrlang::call2("sum", 1, 2)', 'PACKAGE_NOT_ALLOWED:rlang'],
    ['library(tidyr)\nrank <- function(x) x\ntb <- tibble::tibble(demo = "m014")\ntb$r <- rank(demo)', 'FORBIDDEN_SYMBOL:demo'],
  ])('%s stays refused by both with the same code', async (script, code) => {
    const { statically, atRuntime } = await verdicts(script);
    expect(statically).toEqual([code]);
    expect(atRuntime).toEqual(statically);
  });
});

// roxygen's @examplesIf renders as `if (rlang::is_installed("pkg")) (if (...) withAutoprint else force)({ ... })`.
describe('rlang::is_installed() and check_installed(), as requireNamespace()', () => {
  it.each([
    ['an @examplesIf block on an allowed package', 'if (rlang::is_installed("dplyr")) (if (getRversion() >= "3.4") withAutoprint else force)({\n  library(dplyr)\n  n <- nrow(filter(mtcars, cyl == 4))\n})\nn', 11],
    ['c() of packages and a version', 'c(rlang::is_installed(c("dplyr", "stats")), rlang::is_installed("stats", version = "99.0"))', [true, false]],
    ['an absent package in the condition, answered FALSE', 'if (rlang::is_installed(c("dplyr", "brms"))) 1 else 2', 2],
    ['check_installed of an allowed package', 'rlang::check_installed("MASS", reason = "for fitdistr")\nMASS::fitdistr(c(1, 2, 3), "normal")$estimate[["mean"]]', 2],
    ['a requireNamespace() @examplesIf block', 'if (requireNamespace("tibble", quietly = TRUE)) withAutoprint({\n  t <- tibble::tibble(a = 1:2)\n})\nnrow(t)', 2],
    ['an @examplesIf block on an absent package, which R skips', 'if (rlang::is_installed("brms")) withAutoprint({\n  library(brms)\n  system("id")\n})\n"skipped"', 'skipped'],
  ])('%s passes both and runs', async (_, script, value) => {
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response).toMatchObject({ status: 'ok', value: { json: value } });
  });

  it('check_installed() of a package too old fails the script with its reason, installing nothing', async () => {
    const { statically, response } = await verdicts('rlang::check_installed("MASS", version = "99.0", reason = "to fit")');
    expect(statically).toEqual([]);
    expect(response).toMatchObject({ status: 'error', error: expect.stringContaining('The package "MASS" is required to fit') });
  });

  it.each([
    ['rlang::is_installed("R6")', 'PACKAGE_NOT_ALLOWED:R6'],
    ['p <- "dplyr"\nrlang::is_installed(p)', 'PACKAGE_LOADER_ARGUMENT:rlang::is_installed'],
    ['rlang::check_installed("dplyr", action = function(pkg, ...) 1)', 'PACKAGE_LOADER_ARGUMENT:action'],
    ['if (rlang::is_installed("brms") && TRUE) system("id")', 'FORBIDDEN_SYMBOL:system'],
    ['`::` <- function(a, b) function(...) TRUE\nif (rlang::is_installed("brms")) system("id")', 'FORBIDDEN_SYMBOL:system'],
  ])('%s is refused by both with the same codes', async (script, code) => {
    const { statically, atRuntime } = await verdicts(script);
    expect(statically).toContain(code);
    // The R re-validation reports call rules after token rules; the set is what must agree.
    expect([...atRuntime].sort()).toEqual([...statically].sort());
  });
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
    ['options(expressions = 5e5)', 'OPTION_NOT_ALLOWED:expressions'],
    ['options(pager = "cat")', 'OPTION_NOT_ALLOWED:pager'],
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

describe('what a refused dependency\'s rejection says to write instead passes both and runs (packages.allowedDependencies.insteadOf)', () => {
  it.each([
    ['magrittr', 'library(dplyr)\nx <- mtcars %>% head(3)\nx <- x %>% mutate(k = 1)\nc(with(x, sum(k)), nrow(x |> head(1)))', [3, 1]],
    ['glue', 'library(stringr)\nn <- 3\nas.character(str_glue("{n} rows"))', '3 rows'],
    ['tidyselect', 'library(dplyr)\nnames(select(mtcars, starts_with("d"), any_of("qsec")))', ['disp', 'drat', 'qsec']],
  ])('%s', async (pkg, script, value) => {
    expect((await (await validator)(`library(${pkg})`)).errors[0]?.message).toContain('Instead: ');
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response).toMatchObject({ status: 'ok', value: { json: value } });
  });
});
