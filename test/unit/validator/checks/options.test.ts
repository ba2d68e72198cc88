import { describe, expect, it } from 'vitest';
import { errorsOf } from '../support.ts';

describe('check options', () => {
  describe('Noncompliance', () => {
    it.each([
      ['an error handler', 'options(error = function() NULL)', 'OPTION_NOT_ALLOWED:error'],
      ['an editor', 'options(editor = "vi")', 'OPTION_NOT_ALLOWED:editor'],
      ['a denied name as a string', 'options("pager" = "less")', 'OPTION_NOT_ALLOWED:pager'],
      ['a denied name backquoted', 'options(`warning.expression` = quote(1))', 'OPTION_NOT_ALLOWED:warning.expression'],
      ['a qualified call', 'base::options(timeout = 1e6)', 'OPTION_NOT_ALLOWED:timeout'],
      ['a saved options list', 'op <- options(digits = 3)\noptions(op)', 'OPTION_NOT_ALLOWED:options'],
      ['a built list', 'options(list(error = quote(1)))', 'OPTION_NOT_ALLOWED:options'],
      ['options passed as a value', 'lapply(list(list(pager = "x")), options)', 'OPTION_NOT_ALLOWED:options'],
      ['options named as a string to an apply', 'Map("options", list(1))', 'OPTION_NOT_ALLOWED:options'],
    ])('rejects %s', async (_, script, expected) => {
      expect(await errorsOf(script)).toContain(expected);
    });
  });

  describe('Compliance', () => {
    it.each([
      ['presentation settings by name', 'options(digits = 3, scipen = 999, width = 120)'],
      ['reading an option', 'options("digits")'],
      ['getOption', 'getOption("error")'],
      ['dplyr summarise option', 'options(dplyr.summarise.inform = FALSE)'],
    ])('accepts %s', async (_, script) => {
      expect(await errorsOf(script)).toEqual([]);
    });
  });
});
