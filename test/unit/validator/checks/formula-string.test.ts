import { describe, expect, it } from 'vitest';
import { errorsOf } from '../support.ts';

describe('check formula-string', () => {
  describe('Noncompliance', () => {
    it.each([
      ['a model formula string calling a forbidden function', 'lm("mpg ~ system(\'id\')", data = mtcars)', 'FORBIDDEN_STRING_FUNCTION:system'],
      ['a one-sided formula string', 'model.frame("~ Sys.getenv(\'HOME\')")', 'FORBIDDEN_STRING_FUNCTION:Sys.getenv'],
      ['a backquoted name inside', 'f <- "y ~ `\\\\x73ystem`(1)"', 'FORBIDDEN_STRING_FUNCTION:system'],
      ['a blocked operator inside', 'lm("y ~ I(z <<- 1)", d)', 'BLOCKED_OPERATOR:<<-'],
    ])('rejects %s', async (_, script, expected) => {
      expect(await errorsOf(script)).toContain(expected);
    });
  });

  describe('Compliance', () => {
    it.each([
      ['a plain formula string', 'lm("mpg ~ wt + hp", data = mtcars)'],
      ['a facet string', 'facet_wrap("~ cyl")'],
      ['a forbidden name in a string without ~', 'labels <- "system load"'],
      ['a name that only contains a forbidden one', 'lm("y ~ systematic + evaluation", d)'],
    ])('accepts %s', async (_, script) => {
      expect(await errorsOf(script)).toEqual([]);
    });
  });
});
