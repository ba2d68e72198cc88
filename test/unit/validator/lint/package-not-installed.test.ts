import { describe, expect, it } from 'vitest';
import { validate } from '../support.ts';

describe('lint package-not-installed', () => {
  describe('Noncompliance', () => {
    it.each([
      ['library() of a typo', 'library(dplyrr)', /'dplyrr' is not installed\. Did you mean 'dplyr'\?/],
      ['pkg:: of a typo', 'x <- ggplot::ggplot(df)', /Did you mean 'ggplot2'\?/],
      ['a package with no near name', 'library(zzzzzzzzzz)', /GET \/packages/],
    ])('flags %s with the nearest installed name', async (_, script, message) => {
      const lint = (await validate(script)).lint.filter((l) => l.rule === 'package-not-installed');
      expect(lint).toHaveLength(1);
      expect(lint[0]).toMatchObject({ severity: 'warning', line: 1 });
      expect(lint[0]?.message).toMatch(message);
    });
  });

  describe('Compliance', () => {
    it('stays quiet for an installed dependency that packages.R does not declare (rlang, vctrs)', async () => {
      for (const script of ['x <- rlang::sym("a")', 'library(vctrs)']) {
        const lint = (await validate(script)).lint.filter((l) => l.rule === 'package-not-installed');
        expect(lint, script).toEqual([]);
      }
    });


    it.each([['library(dplyr)'], ['stats::median(1)'], ['data.table::fread("a.csv")'], ['library("MASS")']])(
      'stays quiet for %s',
      async (script) => {
        expect((await validate(script)).lint).toEqual([]);
      },
    );
  });
});
