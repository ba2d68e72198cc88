import { describe, expect, it } from 'vitest';
import { validate } from '../support.ts';

describe('lint top-level-equals-assignment', () => {
  describe('Noncompliance', () => {
    it('flags = used for top-level assignment, at the statement', async () => {
      const lint = (await validate('x <- 1\ny = 2')).lint;
      expect(lint).toEqual([
        expect.objectContaining({ rule: 'top-level-equals-assignment', line: 2, column: 1, severity: 'info' }),
      ]);
    });
  });

  describe('Compliance', () => {
    it.each([['x <- 1'], ['f(a = 1)'], ['f <- function(a = 1) a'], ['if (TRUE) { y = 2 }'], ['x == 1']])(
      'stays quiet for %s',
      async (script) => {
        expect((await validate(script)).lint).toEqual([]);
      },
    );
  });
});
