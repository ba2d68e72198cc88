import { describe, expect, it } from 'vitest';
import { loadRules } from '../../../../layers/rules/rules.ts';
import { errorsOf, validate } from '../support.ts';

const blocked = (name: string) => loadRules().packages.blocked.find((b) => b.name === name)!;

describe('check namespace-package', () => {
  describe('Noncompliance', () => {
    it.each([
      ['a blocked package', 'processx::run("id")', 'processx'],
      ['a blocked base package', 'compiler::cmpfun(f)', 'compiler'],
      ['an unknown package', 'foo::bar(1)', 'foo'],
      ['a string package', '"callr"::r(function() 1)', 'callr'],
      ['a blocked package as a value', 'f <- curl::curl_fetch_memory', 'curl'],
      ['an internal of a blocked package', 'x <- processx:::run', 'processx'],
    ])('rejects %s', async (_, script, pkg) => {
      expect(await errorsOf(script)).toContain(`PACKAGE_NOT_ALLOWED:${pkg}`);
    });

    it('gives a blocked package the rules\' reason and what to do instead', async () => {
      const processx = blocked('processx');
      expect((await validate('processx::run("id")')).errors[0]?.message).toBe(`Package 'processx' ${processx.why}. Instead: ${processx.instead}.`);
    });

    it('suggests the nearest installed package and points at GET /packages', async () => {
      expect((await validate('dplr::filter(x, y > 1)')).errors[0]?.message).toMatch(/^Package 'dplr' is not installed\. Did you mean 'dplyr'\?.*GET \/packages/);
    });

    it('suggests up to three, nearest first, ignoring case', async () => {
      expect((await validate('GGPLOT2::ggplot(x)')).errors[0]?.message).toMatch(/Did you mean 'ggplot2'/);
      expect((await validate('stringx::str_c(x)')).errors[0]?.message).toMatch(/Did you mean 'stringi', 'stringr'/);
    });

    it('names the installed members of a meta-package to load instead', async () => {
      const message = (await validate('tidyverse::tidyverse_packages()')).errors[0]?.message;
      expect(message).toMatch(/^Package 'tidyverse' is not installed as one package\. Load the packages it would attach instead: library\(dplyr\); library\(tidyr\); library\(ggplot2\)/);
      expect(message).toBe((await validate('library(tidyverse)')).errors[0]?.message);
    });

    it('points at GET /packages when nothing is near', async () => {
      expect((await validate('zzzzqqqq::f(1)')).errors[0]?.message).toBe("Package 'zzzzqqqq' is not installed. GET /packages lists every installed package.");
    });
  });

  describe('Compliance: every installed package that is not blocked, any of its functions', () => {
    it.each([
      ['a declared package', 'dplyr::filter(df, x > 1)'],
      ['a base package', 'stats::median(1:3)'],
      ['a dotted package', 'data.table::fread("x.csv")'],
      ['a namespaced value', 'f <- purrr::map'],
      ['an internal function', 'glmnet:::fid(c(1, 4, 5, 6), 1:5)'],
      ['rlang, whole', 'x <- rlang::eval_tidy(quote(1)); e <- rlang::env(); rlang::exec(sum, 1, 2)'],
      ['tools and withr', 'tools::file_ext("a.csv"); withr::with_options(list(digits = 3), print(pi))'],
      ['a package installed as a dependency', 'TTR::SMA(1:10, 3); nlme::lme; scales::percent(0.5)'],
      ['knitr', 'knitr::kable(head(mtcars))'],
    ])('accepts %s', async (_, script) => {
      expect(await errorsOf(script)).toEqual([]);
    });
  });
});
