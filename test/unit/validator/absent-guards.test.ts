import { describe, expect, it } from 'vitest';
import { errorsOf } from './support.ts';

// 'brms' and 'INLA' are not in the manifest's installed set; 'processx' is installed and blocked.
describe('guards on an absent package', () => {
  it.each([
    ['a guarded block', 'if (requireNamespace("brms", quietly = TRUE)) {\n  fit <- brms::brm(y ~ x, data = d)\n}'],
    ['a guard without quietly', 'if (requireNamespace("INLA")) INLA::inla(y ~ 1, data = d)'],
    ['base::requireNamespace', 'if (base::requireNamespace("brms", quietly = TRUE)) library(brms)'],
    ['a guard whose else branch is fine', 'if (requireNamespace("brms", quietly = TRUE)) brms::brm(y ~ x) else lm(y ~ x)'],
  ])('accepts %s: R never runs the branch', async (_, script) => {
    expect(await errorsOf(script)).toEqual([]);
  });

  it.each([
    ['the else branch', 'if (requireNamespace("brms", quietly = TRUE)) brms::brm(y ~ x) else system("id")', 'FORBIDDEN_SYMBOL:system'],
    ['an installed but blocked package', 'if (requireNamespace("processx", quietly = TRUE)) processx::run("id")', 'PACKAGE_NOT_ALLOWED:processx'],
    ['a condition that is more than the call', 'if (requireNamespace("brms") || TRUE) brms::brm(y ~ x)', 'PACKAGE_NOT_ALLOWED:brms'],
    ['a script that rebinds requireNamespace', 'requireNamespace <- function(...) TRUE\nif (requireNamespace("brms")) system("id")', 'FORBIDDEN_SYMBOL:system'],
    ['a script that rebinds if', '`if` <- function(c, a) a\nif (requireNamespace("brms")) system("id")', 'FORBIDDEN_SYMBOL:system'],
    ['code after the guard', 'if (requireNamespace("brms", quietly = TRUE)) 1\nsystem("id")', 'FORBIDDEN_SYMBOL:system'],
    ['a package named by a variable, which could hold any name', 'p <- "dplyr"\nif (requireNamespace(p)) system("id")', 'FORBIDDEN_SYMBOL:system'],
    ['other named arguments', 'if (requireNamespace("brms", lib.loc = "/tmp")) system("id")', 'FORBIDDEN_SYMBOL:system'],
    ['a script that rebinds ::', '`::` <- function(a, b) function(...) TRUE\nif (base::requireNamespace("brms")) system("id")', 'FORBIDDEN_SYMBOL:system'],
  ])('still judges %s', async (_, script, code) => {
    expect(await errorsOf(script)).toContain(code);
  });
});

// roxygen's @examplesIf renders as `if (rlang::is_installed("pkg")) withAutoprint({ ... })`.
describe('rlang::is_installed() guards on an absent package', () => {
  it.each([
    ['an @examplesIf block', 'if (rlang::is_installed("brms")) (if (getRversion() >= "3.4") withAutoprint else force)({\n  library(brms)\n  fit <- brm(y ~ x, data = d)\n})'],
    ['c() of packages, one absent', 'if (rlang::is_installed(c("dplyr", "brms"))) brms::brm(y ~ x)'],
    ['pkg = and version =', 'if (rlang::is_installed(pkg = "INLA", version = "23.1")) INLA::inla(y ~ 1, data = d) else lm(y ~ x)'],
  ])('accepts %s: R never runs the branch', async (_, script) => {
    expect(await errorsOf(script)).toEqual([]);
  });

  it.each([
    ['the else branch', 'if (rlang::is_installed("brms")) 1 else system("id")', 'FORBIDDEN_SYMBOL:system'],
    ['an installed but blocked package', 'if (rlang::is_installed("processx")) processx::run("id")', 'PACKAGE_NOT_ALLOWED:processx'],
    ['a condition that is more than the call', 'if (rlang::is_installed("brms") && TRUE) system("id")', 'FORBIDDEN_SYMBOL:system'],
    ['a script that rebinds c', 'c <- function(...) "dplyr"\nif (rlang::is_installed(c("brms"))) system("id")', 'FORBIDDEN_SYMBOL:system'],
    ['a script that rebinds ::', '`::` <- function(a, b) function(...) TRUE\nif (rlang::is_installed("brms")) system("id")', 'FORBIDDEN_SYMBOL:system'],
    ['a package named by a variable', 'p <- "brms"\nif (rlang::is_installed(p)) system("id")', 'FORBIDDEN_SYMBOL:system'],
    ['other named arguments', 'if (rlang::is_installed("brms", compare = ">=")) system("id")', 'FORBIDDEN_SYMBOL:system'],
  ])('still judges %s', async (_, script, code) => {
    expect(await errorsOf(script)).toContain(code);
  });
});
