/**
 * Sys.getenv(), setwd() and sink() in their contained forms (script-rules.json
 * relaxations.environmentReads, workingDirectory, consoleDiversion): the forms real code writes pass,
 * the ones that could only escape are refused with a message that names a form that passes. The
 * runtime checks what a static walk cannot see (test/runner/contained-calls.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { errorsOf, validate } from './support.ts';

describe('contained calls', () => {
  it.each([
    // From the installed packages' Rd examples (npm run bench -- examples).
    'if (identical(Sys.getenv("NOT_CRAN"), "true")) 1',
    'doExtras <- interactive() || nzchar(Sys.getenv("R_MATRIX_CHECK_EXTRA"))',
    'if ((Sys.getenv("NOT_CRAN") != "true" || Sys.getenv("IN_PKGDOWN") == "true")) 1',
    '.old_wd <- setwd(tempdir())\nwrite.csv(mtcars, "mtcars.csv")\nsetwd(.old_wd)',
    'sink(print(tempfile()))\nprint(1:3)\nsink()',
    // Other everyday forms.
    'Sys.getenv()',
    'Sys.getenv(c("LANG", "TZ"), unset = NA, names = TRUE)',
    'home <- Sys.getenv("HOME", unset = Inf)',
    'dir.create("run")\nold <- setwd("run")\non.exit(setwd(old))',
    'setwd(file.path(tempdir(), "sub"))',
    'sink(file = "out/log.txt", append = TRUE, split = TRUE)\nsink(NULL)',
    'sink.number()',
  ])('accepts %j', async (script) => {
    expect(await errorsOf(script)).toEqual([]);
  });

  it.each([
    ['a computed name', 'Sys.getenv(paste0("AWS_", "SECRET_ACCESS_KEY"))', 'Sys.getenv', /its x must be written literally, e\.g\. Sys\.getenv\("TZ"\)/],
    ['a name held by a variable', 'k <- "HOME"\nSys.getenv(k)', 'Sys.getenv', /written literally/],
    ['Sys.getenv as a value', 'vals <- vapply(c("A", "B"), Sys.getenv, "")', 'Sys.getenv', /request variables/],
    ['base::Sys.getenv', 'base::Sys.getenv("HOME")', 'Sys.getenv', /without a pkg:: prefix/],
    ['setwd to the root', 'setwd("/")', 'setwd', /use a relative path, setwd\("sub"\) or setwd\(tempdir\(\)\)/],
    ['setwd to home', 'setwd("~")', 'setwd', /relative path/],
    ['setwd with no directory', 'setwd()', 'setwd', /give it the directory/],
    ['a piped setwd', '"sub" |> setwd()', 'setwd', /not piped/],
    ['sink to /tmp', 'sink("/tmp/x.txt")', 'sink', /use a relative path, sink\("out\/log\.txt"\)/],
    ['sink of the message stream', 'zz <- file("m.txt", "w")\nsink(zz, type = "message")', 'sink', /only the output stream may be diverted/],
    ['sink of a computed type', 'sink("a.txt", type = kind)', 'sink', /only the output stream/],
    ['sink through ...', 'f <- function(...) sink(...)', 'sink', /not piped or through \.\.\./],
  ])('refuses %s, saying what passes', async (_, script, symbol, message) => {
    const result = await validate(script);
    const error = result.errors.find((e) => e.symbol === symbol);
    expect(error?.code).toBe('FORBIDDEN_SYMBOL');
    expect(error?.message).toMatch(message);
  });

  it.each([
    'Sys.getenv("TZ")',
    'setwd("sub")',
    'sink("out/log.txt")\nsink()',
  ])('the advice\'s own example %j passes', async (script) => {
    expect(await errorsOf(script)).toEqual([]);
  });
});
