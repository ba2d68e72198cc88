import { describe, expect, it } from 'vitest';
import { errorsOf } from '../support.ts';

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
