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
    ])('accepts %s', async (_, script) => {
      expect(await errorsOf(script)).toEqual([]);
    });
  });
});
