import { describe, expect, it } from 'vitest';
import { validate } from '../support.ts';

describe('lint absolute-path', () => {
  describe('Noncompliance', () => {
    it.each([['read.csv("/home/user/data.csv")'], ['x <- "~/data.csv"'], ['x <- "C:\\\\data\\\\x.csv"']])(
      'flags %s',
      async (script) => {
        expect((await validate(script)).lint).toEqual([
          expect.objectContaining({ rule: 'absolute-path', severity: 'info', line: 1 }),
        ]);
      },
    );
  });

  describe('Compliance', () => {
    it.each([['read.csv("data.csv")'], ['paste(a, b, sep = "/")'], ['x <- "a/b"'], ['u <- "https://example.com/x"']])(
      'stays quiet for %s',
      async (script) => {
        expect((await validate(script)).lint).toEqual([]);
      },
    );
  });
});
