import { describe, expect, it } from 'vitest';
import { errorsOf } from '../support.ts';

describe('check s3-dispatch', () => {
  describe('Noncompliance', () => {
    it.each([
      ['a generic that prefixes a forbidden name', 'f <- function(x) UseMethod("Sys")', 'FORBIDDEN_STRING_FUNCTION:Sys'],
      ['a computed generic', 'f <- function(x) UseMethod(paste0("Sy", "s"))', 'FORBIDDEN_STRING_FUNCTION:UseMethod'],
      ['UseMethod without a generic', 'f <- function(x) UseMethod()', 'FORBIDDEN_STRING_FUNCTION:UseMethod'],
      ['NextMethod with a prefixing generic', 'f <- function(x) NextMethod("update")', 'FORBIDDEN_STRING_FUNCTION:update'],
      ['structure() with a dispatching class', 'x <- structure(list(), class = "packages")', 'FORBIDDEN_STRING_FUNCTION:packages'],
      ['class<- with a dispatching class', 'class(x) <- c("foo", "getenv")', 'FORBIDDEN_STRING_FUNCTION:getenv'],
    ])('rejects %s', async (_, script, expected) => {
      expect(await errorsOf(script)).toContain(expected);
    });
  });

  describe('Compliance', () => {
    it.each([
      ['an ordinary generic', 'describe <- function(x, ...) UseMethod("describe")'],
      ['NextMethod with no arguments', 'print.foo <- function(x, ...) NextMethod()'],
      ['an ordinary class', 'x <- structure(list(a = 1), class = c("my_result", "list"))'],
      ['class<- with an ordinary class', 'class(x) <- "my_result"'],
      ['a data column called class', 'd <- data.frame(class = c("show", "start"))'],
    ])('accepts %s', async (_, script) => {
      expect(await errorsOf(script)).toEqual([]);
    });
  });
});
