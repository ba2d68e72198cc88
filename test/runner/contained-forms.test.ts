/**
 * example(), withr's named exports and as.environment() of data (docs/script-rules.md,
 * "Relaxations"): /validate and the runtime (the runner's re-validation and the script's versions
 * of these functions, with real R) give the same verdict, what both accept runs, and what only a
 * value can show (an example's own code, an option held by a variable, a string handed to
 * as.environment) is refused at run time with a message saying why.
 */
import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { acceptEverything, harness } from './helpers.ts';

const validator = loadValidator({ rules: loadRules(), ...manifestPackages(loadManifest()) });
const runtime = harness({ validator: acceptEverything });
const handler = harness();

const codes = (errors: readonly { code: string; symbol?: string | undefined }[] | undefined): string[] =>
  (errors ?? []).map((e) => `${e.code}:${e.symbol ?? ''}`);

const verdicts = async (script: string) => {
  const statically = codes((await (await validator)(script)).errors);
  const response = await runtime.run(script, { timeoutSeconds: 20 });
  const atRuntime = response.status === 'rejected' ? codes(response.validation?.errors) : [];
  return { statically, atRuntime, response };
};

describe('accepted by both, and they run', () => {
  it.each([
    ['example() of a stats topic, echoed', 'example(median, package = "stats")', /median> median\(1:4\)\n\[1\] 2.5/],
    ['utils::example() with a string topic, not echoed, into the script\'s environment', 'utils::example("weighted.mean", package = "stats", echo = FALSE)\nround(xm, 3)', /^\[1\] 3.453\n$/],
    ['example() of an attached package, local', 'library(dplyr, warn.conflicts = FALSE)\nexample(between, local = TRUE)', /betwen> between\(1:12, 7, 9\)/],
    ['withr::with_options', 'withr::with_options(list(digits = 3), print(pi))\nprint(pi)', /^\[1\] 3.14\n\[1\] 3.141593\n$/],
    ['withr::local_options in a function', 'f <- function() {\n  withr::local_options(digits = 4)\n  print(pi)\n}\nf()\nprint(pi)', /^\[1\] 3.142\n\[1\] 3.141593\n$/],
    ['withr::with_seed', 'a <- withr::with_seed(42, runif(1))\nb <- withr::with_seed(42, runif(1))\ncat(identical(a, b), "\\n")', /^TRUE \n$/],
    ['withr::with_envvar of TZ', 'cat(withr::with_envvar(c(TZ = "Asia/Tokyo"), format(as.POSIXct(0, origin = "1970-01-01", tz = ""), "%H")), "\\n")', /^09 \n$/],
    ['withr::with_timezone', 'cat(withr::with_timezone("UTC", format(as.POSIXct(3600, origin = "1970-01-01", tz = ""), "%H")), "\\n")', /^01 \n$/],
    ['withr::with_collate', 'cat(withr::with_collate("C", sort(c("b", "A", "a"))), "\\n")', /^A a b \n$/],
    ['withr::local_tempfile', 'f <- function() {\n  path <- withr::local_tempfile(lines = c("a", "b"), fileext = ".txt")\n  cat(readLines(path), startsWith(path, tempdir()), "\\n")\n  path\n}\np <- f()\ncat(file.exists(p), "\\n")', /^a b TRUE \nFALSE \n$/],
    ['withr::with_tempfile', 'withr::with_tempfile("tf", {\n  writeLines("x", tf)\n  cat(readLines(tf), "\\n")\n})', /^x \n$/],
    ['withr::defer', 'f <- function() {\n  withr::defer(cat("cleaned\\n"))\n  cat("working\\n")\n}\nf()', /^working\ncleaned\n$/],
    ['as.environment of a list', 'e <- as.environment(list(a = 1, b = 2))\ncat(sort(ls(e)), e$a + e[["b"]], "\\n")', /^a b 3 \n$/],
    ['as.environment of a data frame', 'e <- as.environment(data.frame(x = 1:3))\ncat(sum(e$x), exists("x", envir = e, inherits = FALSE), "\\n")', /^6 TRUE \n$/],
  ])('%s', async (_, script, output) => {
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response.status, response.error ?? '').toBe('ok');
    expect(response.consoleOutput).toMatch(output);
  });
});

describe('refused by both, with the same codes', () => {
  it.each([
    ['example(lm, package = "stats", lib.loc = "lib")', 'FORBIDDEN_SYMBOL:example'],
    ['p <- "stats"\nexample(lm, package = p)', 'FORBIDDEN_SYMBOL:example'],
    ['example("run", package = "processx")', 'PACKAGE_NOT_ALLOWED:processx'],
    ['withr::with_options(list(editor = "vi"), 1)', 'OPTION_NOT_ALLOWED:editor'],
    ['withr::local_options(warn = 3)', 'OPTION_NOT_ALLOWED:warn'],
    ['withr::with_envvar(c(PATH = "/tmp"), 1)', 'PACKAGE_NOT_ALLOWED:withr'],
    ['withr::with_dir("/", list.files())', 'PACKAGE_NOT_ALLOWED:withr'],
    ['withr::with_tempfile("tf", 1, tmpdir = "/etc")', 'PACKAGE_NOT_ALLOWED:withr'],
    ['as.environment("package:base")', 'FORBIDDEN_SYMBOL:as.environment'],
    ['as.environment(1)', 'FORBIDDEN_SYMBOL:as.environment'],
  ])('%s', async (script, code) => {
    const { statically, atRuntime } = await verdicts(script);
    expect(statically).toContain(code);
    expect(atRuntime).toEqual(statically);
  });
});

describe('what only a value shows, refused at run time', () => {
  it.each([
    ['an example whose code calls system()', 'example("system", package = "base")', /example\(system, package = "base"\) was not run: its example code.*would be refused.*FORBIDDEN_SYMBOL:system/],
    ['an example whose code sets the environment', 'example("Sys.setenv", package = "base")', /was not run.*Sys.setenv/],
    ['a forbidden option held by a variable', 'o <- list(editor = "emacs")\nwithr::with_options(o, 1)', /with checked arguments/],
    ['a withr function handed around as a value', 'f <- withr::with_options\nf(list(digits = 3), 1)', /PACKAGE_NOT_ALLOWED|with checked arguments/],
    ['a string held by a variable', 'where <- "package:base"\nas.environment(where)', /as.environment\(\) of anything but a list or data frame/],
    ['a number held by a variable', 'k <- 1\nas.environment(k)', /as.environment\(\) of anything but a list or data frame/],
    ['an environment', 'e <- new.env()\nas.environment(e)', /as.environment\(\) of anything but a list or data frame/],
  ])('%s', async (_, script, message) => {
    const response = await handler.run(script, { timeoutSeconds: 20 });
    const said = response.status === 'rejected' ? JSON.stringify(response.validation?.errors) : (response.error ?? '');
    expect(said).toMatch(message);
    expect(response.status).not.toBe('ok');
  });

  it('an option held by a variable passes /validate only as a runtime question: the runner refuses it', async () => {
    const { statically, response } = await verdicts('o <- list(digits = 3, editor = "emacs")\nf <- function() withr::local_options(o)\nf()');
    expect(statically).toContain('PACKAGE_NOT_ALLOWED:withr');
    expect(response.status).toBe('rejected');
  });

  it('a seed that is not a number is refused by the runtime copy', async () => {
    const { statically, response } = await verdicts('s <- "x"\nwithr::with_seed(s, 1)');
    expect(statically).toEqual([]);
    expect(response).toMatchObject({ status: 'error', error: expect.stringContaining('seed must be a number') });
  });
});

describe("a refusal's advice passes both and runs", () => {
  it.each([
    ['example(lm, package = "stats", lib.loc = "lib")', 'example(lm, package = "stats")', 'example(lm, package = "stats", echo = FALSE)\ncoef(lm.D9)[["groupTrt"]]'],
    ['as.environment("package:base")', 'as.environment(list(a = 1))', 'e <- as.environment(list(a = 1))\ne$a'],
    ['o <- list(digits = 3)\nwithr::with_options(o, 1)', 'list(digits = 3)', 'withr::with_options(list(digits = 3), getOption("digits"))'],
    ['z <- "UTC"\nwithr::local_timezone(z)', '"UTC"', 'f <- function() {\n  withr::local_timezone("UTC")\n  Sys.timezone() == "UTC" || TRUE\n}\nf()'],
    ['v <- c(TZ = "UTC")\nwithr::with_envvar(v, 1)', 'c(TZ = "UTC")', 'withr::with_envvar(c(TZ = "UTC"), 1)'],
    ['withr::with_tempfile("tf", 1, pattern = "../x")', '".csv"', 'withr::with_tempfile("tf", nchar(tf) > 0, fileext = ".csv")'],
  ])('%s', async (refused, advice, followed) => {
    const result = await (await validator)(refused);
    expect(result.valid).toBe(false);
    expect(result.errors.map((e) => e.message).join('\n')).toContain(advice);
    const { statically, atRuntime, response } = await verdicts(followed);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response.status, response.error ?? '').toBe('ok');
  });
});
