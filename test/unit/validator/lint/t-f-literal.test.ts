import { describe, expect, it } from 'vitest';
import { lintRulesOf, validate } from '../support.ts';

describe('lint T-F-literal', () => {
  describe('Noncompliance', () => {
    it.each([['mean(x, na.rm = T)'], ['if (F) 1'], ['x <- c(T, F)']])('flags %s', async (script) => {
      expect((await lintRulesOf(script)).every((r) => r === 'T-F-literal')).toBe(true);
      expect(await lintRulesOf(script)).not.toEqual([]);
    });

    it('points at the letter and names the replacement', async () => {
      const [finding] = (await validate('mean(x, na.rm = T)')).lint;
      expect(finding).toMatchObject({ rule: 'T-F-literal', line: 1, column: 17, severity: 'warning' });
      expect(finding?.message).toMatch(/TRUE/);
    });
  });

  describe('Compliance', () => {
    it.each([['mean(x, na.rm = TRUE)'], ['T <- 5'], ['f(T = 1)'], ['df$T'], ['f <- function(F) 1']])(
      'stays quiet for %s',
      async (script) => {
        expect(await lintRulesOf(script)).toEqual([]);
      },
    );
  });
});
