import { describe, expect, it } from 'vitest';
import { errorsOf } from '../support.ts';

describe('check package-query', () => {
  it.each([
    'ok <- rlang::is_installed("dplyr")',
    'rlang::is_installed(c("dplyr", "tidyr"))',
    'if (rlang::is_installed("ggplot2")) ggplot2::ggplot(mtcars)',
    'rlang::check_installed("dplyr", reason = "to summarise")',
    'rlang::check_installed(c("stats", "MASS"), version = c("4.0", "7.0"))',
  ])('accepts %s', async (script) => {
    expect(await errorsOf(script)).toEqual([]);
  });

  it.each([
    ['an installed dependency', 'rlang::is_installed("R6")', 'PACKAGE_NOT_ALLOWED:R6'],
    ['an absent package outside a guard', 'rlang::check_installed("brms")', 'PACKAGE_NOT_ALLOWED:brms'],
    ['a variable', 'p <- "dplyr"\nrlang::is_installed(p)', 'PACKAGE_LOADER_ARGUMENT:rlang::is_installed'],
    ['an install action', 'rlang::check_installed("dplyr", action = function(pkg, ...) 1)', 'PACKAGE_LOADER_ARGUMENT:action'],
    ['a second positional argument', 'rlang::is_installed("dplyr", "tidyr")', 'PACKAGE_LOADER_ARGUMENT:rlang::is_installed'],
  ])('refuses %s', async (_, script, code) => {
    expect(await errorsOf(script)).toContain(code);
  });
});

describe('check package-query: what it leaves alone', () => {
  it('a function of the script named is_installed, which is not rlang\'s', async () => {
    expect(await errorsOf('is_installed <- function(p) p %in% c("a", "b")\nis_installed(p)')).toEqual([]);
  });
});
