import { describe, expect, it } from 'vitest';
import { errorsOf, validate } from '../support.ts';

describe('check blocked-operator', () => {
  describe('Noncompliance', () => {
    it.each([
      ['superassignment', 'x <<- 1', '<<-'],
      ['right superassignment', '1 ->> x', '->>'],
      ['superassignment in a function', 'f <- function() { counter <<- counter + 1 }', '<<-'],
      ['triple colon', 'stats:::Pillai', ':::'],
    ])('rejects %s', async (_, script, op) => {
      expect(await errorsOf(script)).toContain(`BLOCKED_OPERATOR:${op}`);
    });

    it('points at the operator', async () => {
      const result = await validate('total <<- 1');
      expect(result.errors[0]).toMatchObject({ line: 1, column: 7 });
    });
  });

  describe('Compliance', () => {
    it.each([
      ['assignment', 'x <- 1'],
      ['right assignment', '1 -> x'],
      ['equals assignment', 'x = 1'],
      ['double colon', 'stats::median(1:3)'],
      ['operators inside strings', 'x <- "a <<- b ->> c ::: d"'],
      ['operators inside comments', 'x <- 1 # y <<- 2'],
      ['less-than a negative number', 'x < -1'],
    ])('accepts %s', async (_, script) => {
      expect(await errorsOf(script)).toEqual([]);
    });
  });
});
