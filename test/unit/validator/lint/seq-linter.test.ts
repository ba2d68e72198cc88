import { describe, expect, it } from 'vitest';
import { validate } from '../support.ts';

describe('lint seq-linter', () => {
  describe('Noncompliance', () => {
    it.each([
      ['for (i in 1:length(x)) print(i)', 'seq_along(x)'],
      ['for (i in 1:nrow(df)) print(i)', 'seq_len(nrow(df))'],
      ['idx <- 1:NROW(m)', 'seq_len(NROW(m))'],
      ['idx <- 1:ncol(m)', 'seq_len(ncol(m))'],
      ['idx <- 1L : length(v)', 'seq_along(v)'],
    ])('flags %s', async (script, suggestion) => {
      const lint = (await validate(script)).lint;
      expect(lint).toEqual([expect.objectContaining({ rule: 'seq-linter', severity: 'warning' })]);
      expect(lint[0]?.message).toContain(suggestion);
    });
  });

  describe('Compliance', () => {
    it.each([['seq_along(x)'], ['1:10'], ['2:length(x)'], ['11:length(x)'], ['seq_len(nrow(df))']])(
      'stays quiet for %s',
      async (script) => {
        expect((await validate(script)).lint).toEqual([]);
      },
    );
  });
});
