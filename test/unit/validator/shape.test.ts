import { describe, expect, it } from 'vitest';
import { checkShape } from '../../../layers/validator/shape.ts';
import { loadRules } from '../../../layers/rules/rules.ts';
import { validate } from './support.ts';

const limits = loadRules().script;
const codes = (script: string): string[] => checkShape(script, limits).map((e) => e.code);

describe('shape check', () => {
  describe('Noncompliance', () => {
    it.each([
      ['an empty script', ''],
      ['whitespace only', ' \n\t\r\n '],
    ])('rejects %s as SCRIPT_EMPTY', (_, script) => {
      expect(codes(script)).toEqual(['SCRIPT_EMPTY']);
    });

    it('rejects maxBytes + 1 bytes, counting UTF-8 bytes, not characters', () => {
      expect(codes('x'.repeat(limits.maxBytes + 1))).toEqual(['SCRIPT_TOO_LARGE']);
      expect(codes(`# ${'é'.repeat(limits.maxBytes / 2)}`)).toEqual(['SCRIPT_TOO_LARGE']);
    });

    it('rejects a NUL byte with its position', () => {
      expect(checkShape('x <- 1\ny <- "a\0b"', limits)).toEqual([
        expect.objectContaining({ code: 'NUL_BYTE', line: 2, column: 8 }),
      ]);
    });

    it('rejects a NUL byte right after a backslash in a string', () => {
      expect(codes('"\\\0"')).toEqual(['NUL_BYTE']);
    });

    it.each([
      ['parentheses', '('],
      ['brackets', '['],
      ['braces', '{'],
    ])('rejects %s nested maxNestingDepth + 1 deep, at the bracket that crosses the limit', (_, open) => {
      const errors = checkShape(`x <- ${open.repeat(limits.maxNestingDepth + 1)}`, limits);
      expect(errors).toEqual([
        expect.objectContaining({ code: 'NESTING_TOO_DEEP', line: 1, column: 6 + limits.maxNestingDepth }),
      ]);
    });

    it('refuses pathological input in linear time', () => {
      const deep = '('.repeat(limits.maxBytes);
      const started = performance.now();
      expect(codes(deep)).toEqual(['NESTING_TOO_DEEP']);
      expect(performance.now() - started).toBeLessThan(500);
    });

    it('short-circuits the validator before parsing', async () => {
      const result = await validate('f('.repeat(limits.maxNestingDepth + 1));
      expect(result.errors.map((e) => e.code)).toEqual(['NESTING_TOO_DEEP']);
    });
  });

  describe('Compliance', () => {
    it('accepts exactly maxBytes bytes', () => {
      expect(codes(`#${'x'.repeat(limits.maxBytes - 1)}`)).toEqual([]);
    });

    it('accepts nesting of exactly maxNestingDepth', () => {
      const d = limits.maxNestingDepth;
      expect(codes(`${'('.repeat(d)}1${')'.repeat(d)}`)).toEqual([]);
    });

    it.each([
      ['brackets in double-quoted strings', `x <- "${'('.repeat(500)}"`],
      ['brackets in single-quoted strings with escaped quotes', `x <- '\\'${'['.repeat(500)}'`],
      ['brackets in backquoted names', `\`${'{'.repeat(500)}\` <- 1`],
      ['brackets in comments', `# ${'('.repeat(500)}\nx <- 1`],
      ['brackets in raw strings', `x <- r"(${'('.repeat(500)})"`],
      ['a raw string whose body holds its closer without the dashes', `x <- r"-(a)"${'('.repeat(500)})-"`],
      ['a raw string with braces', `x <- R'{${'['.repeat(500)}}'`],
      ['CRLF line endings', 'x <- 1\r\ny <- (2)\r\n'],
    ])('does not count %s', (_, script) => {
      expect(codes(script)).toEqual([]);
    });
  });
});
