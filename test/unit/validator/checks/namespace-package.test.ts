import { describe, expect, it } from 'vitest';
import { errorsOf, validate } from '../support.ts';

describe('check namespace-package', () => {
  describe('Noncompliance', () => {
    it.each([
      ['a blocked package', 'processx::run("id")', 'processx'],
      ['a blocked base package', 'tools::file_ext("a.csv")', 'tools'],
      ['an unknown package', 'foo::bar(1)', 'foo'],
      ['a string package', '"callr"::r(function() 1)', 'callr'],
      ['a blocked package as a value', 'f <- rlang::eval_tidy', 'rlang'],
      ['a blocked package as a value', 'f <- withr::with_dir', 'withr'],
    ])('rejects %s', async (_, script, pkg) => {
      expect(await errorsOf(script)).toContain(`PACKAGE_NOT_ALLOWED:${pkg}`);
    });

    it('gives a blocked package the rules\' reason, in the wording the R re-validation uses too', async () => {
      const { loadRules } = await import('../../../../layers/rules/rules.ts');
      const tools = loadRules().packages.blocked.find((b) => b.name === 'tools')!;
      // test/runner/r/test-revalidate-packages.R asserts the same sentence on the R side.
      expect((await validate('library(tools)')).errors[0]?.message).toBe(
        `Package 'tools' is blocked in jube-r: ${tools.why} Do it with base R or an installed package.`,
      );
    });

    it('suggests the nearest allowed package and points at GET /packages', async () => {
      const result = await validate('dplr::filter(x, y > 1)');
      expect(result.errors[0]?.message).toMatch(/Did you mean 'dplyr'\?.*GET \/packages/);
    });

    it('suggests up to three, nearest first, ignoring case', async () => {
      expect((await validate('plyr::ddply(x)')).errors[0]?.message).toMatch(/Did you mean 'dplyr'\?/);
      expect((await validate('mas::lda(x)')).errors[0]?.message).toMatch(/Did you mean 'MASS', 'base', 'hms'\?/);
      expect((await validate('stringx::str_c(x)')).errors[0]?.message).toMatch(/Did you mean 'stringi', 'stringr'\?/);
      expect((await validate('GGPLOT2::ggplot(x)')).errors[0]?.message).toMatch(/Did you mean 'ggplot2'\?/);
    });

    it('names the installed members of a meta-package to load instead, in the wording the R re-validation uses too', async () => {
      // test/runner/r/test-revalidate-packages.R asserts the same sentence on the R side.
      const expected =
        "Package 'tidyverse' is not available in jube-r as one package. Load the packages it would attach instead: " +
        'library(dplyr); library(tidyr); library(ggplot2); library(readr); library(purrr); library(stringr); library(tibble); ' +
        'library(lubridate). Not available: forcats.';
      expect((await validate('library(tidyverse)')).errors[0]?.message).toBe(expected);
      expect((await validate('tidyverse::tidyverse_packages()')).errors[0]?.message).toBe(expected);
    });

    it.each([
      ['an rlang evaluator', 'rlang::eval_tidy(quote(1))', 'eval_tidy'],
      ['an rlang environment function', 'e <- rlang::env()', 'env'],
      ['rlang::env_bind', 'rlang::env_bind(e, x = 1)', 'env_bind'],
      ['rlang::inject', 'rlang::inject(sum(!!!list(1, 2)))', 'inject'],
      ['rlang::caller_env', 'f <- function() rlang::caller_env()', 'caller_env'],
    ])('rejects %s: rlang is blocked but for its named exports', async (_, script, name) => {
      const result = await validate(script);
      expect(result.errors.map((e) => `${e.code}:${e.symbol}`)).toContain('PACKAGE_NOT_ALLOWED:rlang');
      // test/runner/r/test-revalidate-packages.R asserts the same sentence on the R side.
      expect(result.errors[0]?.message).toMatch(
        new RegExp(`^'rlang::${name}' is not available in jube-r: rlang is blocked: .* Of rlang, a script may call only sym, syms, `),
      );
    });

    it.each([
      ['tools: a listed string function', 'tools::toTitleCase("the quick brown dog")'],
      ['rlang: quosures and expressions', 'q <- rlang::quo(x + 1); e <- rlang::enexpr(y); qs <- rlang::quos(a, b); rlang::as_quosure(~cyl)'],
      ['rlang: their parts and their text', 'rlang::quo_get_expr(q); rlang::expr_print(e); rlang::expr_text(rlang::expr(a + b))'],
    ])('accepts %s as pkg::name although the package is blocked', async (_, script) => {
      expect(await errorsOf(script)).toEqual([]);
    });

    it('keeps the rest of tools refused, naming what it may call', async () => {
      const result = await validate('tools::file_ext("a.csv")');
      expect(result.errors.map((e) => `${e.code}:${e.symbol}`)).toEqual(['PACKAGE_NOT_ALLOWED:tools']);
      expect(result.errors[0]?.message).toMatch(/^'tools::file_ext' is not available in jube-r: tools is blocked: .* Of tools, a script may call only toTitleCase, as tools::name\.$/);
      expect(await errorsOf('library(tools)\ntoTitleCase("a")')).toContain('PACKAGE_NOT_ALLOWED:tools');
    });

    it('says why a refused rlang export is refused and what to write instead', async () => {
      expect((await validate('rlang::exec(fn, !!!args)')).errors[0]?.message).toMatch(
        /^'rlang::exec' is not available in jube-r: calls a function given as a value .* do.call\(f, args\) with f named literally or defined by the script/,
      );
    });

    it('keeps library(rlang) refused: attaching it would hand out every export', async () => {
      expect(await errorsOf('library(rlang)')).toContain('PACKAGE_NOT_ALLOWED:rlang');
    });

    it('points at GET /packages when nothing is near', async () => {
      expect((await validate('zzzzqqqq::f(1)')).errors[0]?.message).toBe(
        "Package 'zzzzqqqq' is not available in jube-r. GET /packages lists every installed package.",
      );
    });
  });

  describe('Compliance', () => {
    it.each([
      ['a declared package', 'dplyr::filter(df, x > 1)'],
      ['a base package', 'stats::median(1:3)'],
      ['a dotted package', 'data.table::fread("x.csv")'],
      ['a namespaced value', 'f <- purrr::map'],
      ['rlang::sym in tidy evaluation', 'grp <- "cyl"\nmtcars |> dplyr::group_by(!!rlang::sym(grp)) |> dplyr::summarise(n = dplyr::n())'],
      ['rlang::syms', 'cols <- rlang::syms(c("a", "b"))'],
      ['the .data pronoun', 'dplyr::mutate(df, y = rlang::.data$x + 1)'],
      ['rlang::enquo in a wrapper', 'f <- function(df, col) dplyr::summarise(df, m = mean(!!rlang::enquo(col)))'],
      ['rlang::as_name and as_label', 'n <- rlang::as_name(rlang::sym("x"))\nl <- rlang::as_label(quote(a + b))'],
      ['rlang::abort, warn, inform', 'f <- function(x) if (x < 0) rlang::abort("negative") else rlang::inform("ok")'],
      ['rlang\'s null default', 'x <- NULL %||% 1\ny <- rlang::`%||%`(NULL, 2)'],
      ['rlang type predicates', 'ok <- rlang::is_string("a") && rlang::is_character("b") && !rlang::is_null(1) && rlang::is_true(TRUE)'],
      ['a listed internal function of an allowed package (packages.internalFunctions)', 'glmnet:::fid(c(1, 4, 5, 6), 1:5)'],
      ['a listed internal function as a value', 'lapply(xs, glmnet:::fid, 1:5)'],
    ])('accepts %s', async (_, script) => {
      expect(await errorsOf(script)).toEqual([]);
    });
  });
});

describe('internal functions (packages.internalFunctions)', () => {
  it('are listed only for packages a script may load, each name once', async () => {
    const { loadRules, allowedPackages } = await import('../../../../layers/rules/rules.ts');
    const { loadManifest } = await import('../../../../layers/packages/manifest.ts');
    const { manifestPackages } = await import('../../../../layers/validator/package-lists.ts');
    const rules = loadRules();
    const allowed = allowedPackages(rules, manifestPackages(loadManifest()).declaredPackages);
    for (const p of rules.packages.internalFunctions.packages) {
      expect(allowed.has(p.name), p.name).toBe(true);
      const names = p.groups.flatMap((g) => g.names);
      expect(new Set(names).size, p.name).toBe(names.length);
    }
  });

  it('an unlisted internal function of an allowed package is the blocked-operator check\'s, not a package finding', async () => {
    expect(await errorsOf('glmnet:::someOther(1)')).toEqual(['BLOCKED_OPERATOR::::']);
  });
});

describe('allowed dependencies', () => {
  it('are each installed by the image (the manifest lists them) and never blocked', async () => {
    const { loadRules } = await import('../../../../layers/rules/rules.ts');
    const { loadManifest } = await import('../../../../layers/packages/manifest.ts');
    const rules = loadRules();
    const installed = new Set(loadManifest().installed ?? []);
    const blocked = new Set(rules.packages.blocked.map((b) => b.name));
    for (const name of rules.packages.allowedDependencies.groups.flatMap((g) => g.names)) {
      expect(installed.has(name), name).toBe(true);
      expect(blocked.has(name), name).toBe(false);
    }
  });

  it.each([['library(nlme)'], ['lattice::xyplot(y ~ x, data = d)'], ['x <- stringi::stri_trans_toupper("a")'], ['scales::percent(0.5)']])(
    'accepts %s',
    async (script) => {
      expect(await errorsOf(script)).toEqual([]);
    },
  );

  it.each([['library(R6)', 'R6'], ['glue::glue("{x}")', 'glue'], ['TTR::stockSymbols()', 'TTR']])('still rejects %s, saying why', async (script, pkg) => {
    const result = await validate(script);
    expect(result.errors.map((e) => `${e.code}:${e.symbol}`)).toContain(`PACKAGE_NOT_ALLOWED:${pkg}`);
    // test/runner/r/test-revalidate-packages.R asserts the same sentence on the R side.
    expect(result.errors[0]?.message).toMatch(
      new RegExp(`^Package '${pkg}' is not available in jube-r\\. It is installed only as a dependency of the packages a script may load, not for scripts to load themselves\\.`),
    );
  });

  it('says what to write instead of a refused dependency the rules advise on, in the wording the R re-validation uses too', async () => {
    // test/runner/r/test-revalidate-packages.R asserts the same sentence on the R side.
    expect((await validate('library(magrittr)')).errors[0]?.message).toBe(
      "Package 'magrittr' is not available in jube-r. It is installed only as a dependency of the packages a script may load, not for scripts to load themselves. " +
        'Instead: its pipe %>% comes with dplyr, tidyr and purrr (library(dplyr)), and R has |> built in; for %$% use with(df, expr), ' +
        'for %<>% assign back (x <- x %>% f()). GET /packages lists every installed package.',
    );
  });

  it('advises only on packages a script may not load (else the advice would never show)', async () => {
    const { allowedPackages, loadRules } = await import('../../../../layers/rules/rules.ts');
    const { loadManifest } = await import('../../../../layers/packages/manifest.ts');
    const rules = loadRules();
    const loadable = allowedPackages(rules, loadManifest().declared);
    expect(Object.keys(rules.packages.allowedDependencies.insteadOf).filter((p) => loadable.has(p))).toEqual([]);
  });
});
