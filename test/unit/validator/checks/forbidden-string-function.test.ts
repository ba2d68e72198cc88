import { describe, expect, it } from 'vitest';
import { errorsOf, validator } from '../support.ts';

describe('check forbidden-string-function', () => {
  describe('Noncompliance', () => {
    it.each([
      ['a string called as a function', '"system"("id")'],
      ['a single-quoted string called', "'system'('id')"],
      ['a raw string called', 'r"(system)"("id")'],
      ['a raw string with dashes called', 'r"--[system]--"("id")'],
      ['a string to sapply', 'sapply(1, "system")'],
      ['a string to Map', 'Map("system", "id")'],
      ['a string to purrr::map', 'purrr::map(x, "system")'],
      ['a string to a pkg::-qualified apply', 'base::lapply(1, "system")'],
      ['FUN = a string anywhere', 'my_helper(x, FUN = "system")'],
      ['.f = a string', 'purrr::map(x, .f = "system")'],
      ['a hex-escaped string', 'sapply(1, "\\x73ystem")'],
      ['a unicode-escaped string', 'lapply(1, "\\u0073ystem")'],
      ['a braced unicode escape', 'lapply(1, "\\U{73}ystem")'],
      ['an octal-escaped string', 'lapply(1, "sys\\164em")'],
      ['a string to Reduce', 'Reduce("system", x)'],
      ['a string to outer', 'outer(1, 2, "system")'],
      ['a string to do.call', 'do.call("system", list("id"))'],
      ['a string to match.fun', 'f <- match.fun("system")'],
      ['a string piped into a higher-order function', '"system" |> sapply(X = 1)'],
      ['a string piped into match.fun with magrittr', '"system" %>% match.fun()'],
    ])('rejects %s', async (_, script) => {
      expect(await errorsOf(script)).toContain('FORBIDDEN_STRING_FUNCTION:system');
    });
  });

  describe('any string called as a function, as the R re-validation refuses it', () => {
    it.each([
      ['an allowed name string-called', '"median"(1:3)', 'FORBIDDEN_STRING_FUNCTION:median'],
      ['an allowed name string-called after ::', 'stats::"median"(1:3)', 'FORBIDDEN_STRING_FUNCTION:median'],
      ['a non-syntactic name string-called', '`my fun` <- function() 1\n"my fun"()', 'FORBIDDEN_STRING_FUNCTION:my fun'],
    ])('rejects %s', async (_, script, finding) => {
      expect(await errorsOf(script)).toEqual([finding]);
    });

    it('advises the call by name, with its package', async () => {
      const { errors } = (await validator())('dplyr::"filter"(mtcars, cyl == 4)');
      expect(errors[0]?.message).toBe('A string may not be called as a function; call it by name: dplyr::filter(...).');
    });

    it.each([
      ['a string after :: as a value', 'f <- stats::"median"'],
      ['a forbidden name after :: is the namespace finding alone', 'base::"system"("id")'],
    ])('%s is not this finding', async (_, script) => {
      expect((await errorsOf(script)).filter((f) => f.startsWith('FORBIDDEN_STRING_FUNCTION'))).toEqual([]);
    });
  });

  describe('Compliance', () => {
    it.each([
      ['a string naming an allowed function', 'sapply(x, "mean")'],
      ['an operator string', 'outer(1:3, 1:4, "+")'],
      ['a forbidden name as data', 'labels <- c("system", "url")'],
      ['a forbidden name as a plain argument', 'paste("source", "data")'],
      ['a forbidden name as a column', 'df[["source"]]'],
      ['a string that only starts like one', '"sys" -> a'],
      ['a string in a non-function argument', 'cat("system", sep = "")'],
    ])('accepts %s', async (_, script) => {
      expect(await errorsOf(script)).toEqual([]);
    });
  });
});
