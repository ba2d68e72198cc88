import { describe, expect, it } from 'vitest';
import { errorsOf, validate } from '../support.ts';

describe('check package-loader', () => {
  describe('Noncompliance: a package named literally that a script may not load', () => {
    it.each([
      ['a blocked package', 'library(processx)', 'PACKAGE_NOT_ALLOWED:processx'],
      ['a blocked package by string', 'require("curl")', 'PACKAGE_NOT_ALLOWED:curl'],
      ['an unknown package', 'library(notapkg)', 'PACKAGE_NOT_ALLOWED:notapkg'],
      ['a blocked base package', 'requireNamespace("compiler")', 'PACKAGE_NOT_ALLOWED:compiler'],
      ['a qualified loader', 'base::library(callr)', 'PACKAGE_NOT_ALLOWED:callr'],
      ['loadNamespace', 'loadNamespace("Rcpp")', 'PACKAGE_NOT_ALLOWED:Rcpp'],
      ['package = name', 'library(package = shiny)', 'PACKAGE_NOT_ALLOWED:shiny'],
      ['a meta-package', 'library(tidyverse)', 'PACKAGE_NOT_ALLOWED:tidyverse'],
    ])('rejects %s', async (_, script, expected) => {
      expect(await errorsOf(script)).toEqual([expected]);
    });

    it('places the finding on the package name', async () => {
      expect((await validate('x <- 1\nlibrary(notapkg)')).errors[0]).toMatchObject({ line: 2, column: 9 });
    });
  });

  describe('Compliance: names are advice', () => {
    it.each([
      ['an allowed package', 'library(dplyr)'],
      ['an allowed package by string', 'library("ggplot2")'],
      ['package = name', 'library(package = tidyr)'],
      ['harmless named arguments', 'suppressPackageStartupMessages(library(dplyr, warn.conflicts = FALSE))'],
      ['requireNamespace with quietly', 'if (!requireNamespace("stringr", quietly = TRUE)) stop("missing")'],
      ['a base package', 'library(stats)'],
      ['a backquoted name', 'library(`data.table`)'],
      ['a package installed as a dependency', 'library(TTR)'],
      // A name held in a variable is R's to resolve: loading is not a capability.
      ['character.only', 'for (p in c("dplyr", "tidyr")) library(p, character.only = TRUE)'],
      ['a loader as a value', 'invisible(lapply(c("dplyr"), library, character.only = TRUE))'],
      ['a computed name', 'library(paste0("dp", "lyr"), character.only = TRUE)'],
      ['a column named like a loader', 'library(dplyr)\nd <- data.frame(library = c("a", "b"))\nfilter(d, library == "a")'],
      ['a loader name as a field', 'd$library\nd[["require"]]'],
    ])('accepts %s', async (_, script) => {
      expect(await errorsOf(script)).toEqual([]);
    });
  });
});
