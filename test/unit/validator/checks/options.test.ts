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
      ['a built list', 'options(list(error = quote(1)))', 'OPTION_NOT_ALLOWED:options'],
      ['a list variable not saved from options()', 'op <- list(editor = "vi")\noptions(op)', 'OPTION_NOT_ALLOWED:options'],
      ['a saved list modified before it is restored', 'op <- options(digits = 3)\nop$pager <- "less"\noptions(op)', 'OPTION_NOT_ALLOWED:options'],
      ['a saved list rebound as a parameter', 'op <- options()\nf <- function(op) options(op)', 'OPTION_NOT_ALLOWED:options'],
      ['a variable never assigned (a request variable or dataframe)', 'options(d)', 'OPTION_NOT_ALLOWED:options'],
      ['a saved list restored inside with()', 'op <- options(digits = 3)\nwith(l, options(op))', 'OPTION_NOT_ALLOWED:options'],
      ['options passed as a value', 'lapply(list(list(pager = "x")), options)', 'OPTION_NOT_ALLOWED:options'],
      ['options named as a string to an apply', 'Map("options", list(1))', 'OPTION_NOT_ALLOWED:options'],
      ['options given to do.call', 'do.call(options, l)', 'OPTION_NOT_ALLOWED:options'],
      ['options aliased', 'f <- options', 'OPTION_NOT_ALLOWED:options'],
      ['options as a named function argument', 'lapply(l, FUN = options)', 'OPTION_NOT_ALLOWED:options'],
      ['options as a column beside a redefined operator', '`==` <- function(a, b) a(b)\nfilter(d, options == "a")', 'OPTION_NOT_ALLOWED:options'],
      ['warn beyond its documented values', 'options(warn = 3)', 'OPTION_NOT_ALLOWED:warn'],
      ['warn computed', 'options(warn = w)', 'OPTION_NOT_ALLOWED:warn'],
      ['warn as a string', 'options(warn = "1")', 'OPTION_NOT_ALLOWED:warn'],
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
      ['restoring a saved list (relaxations.savedOptions)', 'op <- options(digits = 3)\nprint(pi)\noptions(op)'],
      ['restoring on exit from a function', 'f <- function() {\n  op <- options(digits = 3)\n  on.exit(options(op), add = TRUE)\n}'],
      ['restoring every option saved by options()', 'old <- options()\noptions(old)'],
      ['warn = -1 (options.restrictedValues)', 'options(warn = -1)'],
      ['warn = 0, 1, 2 and 2L', 'options(warn = 0)\noptions(warn = 1)\nold <- options(warn = 2)\noptions(warn = 2L)'],
      ['a variable named options (relaxations.dataNames)', 'options <- c("call", "put")\nlength(options)\nprint(options)\nfor (o in options) cat(o)'],
      ['a parameter named options', 'price <- function(s, options) sum(options) * s'],
      ['options as a column', 'filter(d, options == "call")\ncount(d, options)'],
      ['options as an argument of a call given data =', 'fit <- lm(y ~ x, data = d, weights = options)'],
    ])('accepts %s', async (_, script) => {
      expect(await errorsOf(script)).toEqual([]);
    });
  });
});
