import { describe, expect, it } from 'vitest';
import { errorsOf } from '../support.ts';

describe('check package-loader', () => {
  describe('Noncompliance', () => {
    it.each([
      ['a blocked package', 'library(processx)', 'PACKAGE_NOT_ALLOWED:processx'],
      ['a blocked package by string', 'require("curl")', 'PACKAGE_NOT_ALLOWED:curl'],
      ['an unknown package', 'library(notapkg)', 'PACKAGE_NOT_ALLOWED:notapkg'],
      ['a blocked base package', 'requireNamespace("tools")', 'PACKAGE_NOT_ALLOWED:tools'],
      ['a qualified loader', 'base::library(callr)', 'PACKAGE_NOT_ALLOWED:callr'],
      ['a string-called loader', '"library"(sys)', 'PACKAGE_NOT_ALLOWED:sys'],
      ['loadNamespace', 'loadNamespace("rlang")', 'PACKAGE_NOT_ALLOWED:rlang'],
      ['lib.loc', 'library(dplyr, lib.loc = "/tmp/lib")', 'PACKAGE_LOADER_ARGUMENT:lib.loc'],
      ['character.only', 'library(pkg, character.only = TRUE)', 'PACKAGE_LOADER_ARGUMENT:character.only'],
      ['a computed name', 'library(paste0("dp", "lyr"))', 'PACKAGE_LOADER_ARGUMENT:library'],
      ['no package', 'library()', 'PACKAGE_LOADER_ARGUMENT:library'],
      ['a second positional argument', 'library(dplyr, TRUE)', 'PACKAGE_LOADER_ARGUMENT:library'],
      ['a loader passed as a value', 'lapply(pkgs, library, character.only = TRUE)', 'PACKAGE_LOADER_ARGUMENT:library'],
      ['a loader named as a string to an apply', 'sapply(pkgs, "require")', 'PACKAGE_LOADER_ARGUMENT:require'],
      ['a loader aliased', 'l <- library', 'PACKAGE_LOADER_ARGUMENT:library'],
      ['a loader mapped', 'Map(library, pkgs)', 'PACKAGE_LOADER_ARGUMENT:library'],
      ['a loader as a named function argument', 'lapply(pkgs, FUN = library)', 'PACKAGE_LOADER_ARGUMENT:library'],
      ['a loader named by a string to an apply', 'sapply(x, "requireNamespace")', 'PACKAGE_LOADER_ARGUMENT:requireNamespace'],
      // A script binding does not make a loader data: the runtime has no checking loader to fall back on.
      ['a loader passed where the script binds the name too', 'lapply(pkgs, library, character.only = TRUE)\nlibrary <- "x"', 'PACKAGE_LOADER_ARGUMENT:library'],
      ['a loader given to a call with data =', 'aggregate(p ~ g, data = d, library, character.only = TRUE)', 'PACKAGE_LOADER_ARGUMENT:library'],
      ['a loader column beside a redefined operator', '`==` <- function(a, b) a(b)\nfilter(d, library == "a")', 'PACKAGE_LOADER_ARGUMENT:library'],
      ['a loader column of a redefined column function', 'filter <- function(d, f) f("x")\nfilter(d, require)', 'PACKAGE_LOADER_ARGUMENT:require'],
      ['a loader column inside with()', 'with(d, filter(d, library == "a"))', 'PACKAGE_LOADER_ARGUMENT:library'],
    ])('rejects %s', async (_, script, expected) => {
      expect(await errorsOf(script)).toContain(expected);
    });
  });

  describe('Compliance', () => {
    it.each([
      ['an allowed package', 'library(dplyr)'],
      ['an allowed package by string', 'library("ggplot2")'],
      ['package = name', 'library(package = tidyr)'],
      ['harmless named arguments', 'suppressPackageStartupMessages(library(dplyr, warn.conflicts = FALSE))'],
      ['requireNamespace with quietly', 'if (!requireNamespace("stringr", quietly = TRUE)) stop("missing")'],
      ['a base package', 'library(stats)'],
      ['a backquoted name', 'library(`data.table`)'],
      ['a column named like a loader', 'library(dplyr)\nd <- data.frame(library = c("a", "b"))\nfilter(d, library == "a")'],
      ['loader columns in column functions', 'count(d, require)\nmutate(d, n = nchar(loadNamespace))\nselect(d, cols = c(library, x))'],
      ['a loader column as an operand', 'subset(d, requireNamespace > 1 & !attachNamespace)'],
      ['a loader name as a field', 'd$library\nd[["require"]]'],
    ])('accepts %s', async (_, script) => {
      expect(await errorsOf(script)).toEqual([]);
    });
  });
});
