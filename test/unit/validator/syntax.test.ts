import { describe, expect, it } from 'vitest';
import { validate } from './support.ts';

describe('syntax errors', () => {
  it.each([
    ['an extra closing parenthesis', 'f(x))', 1, 5, /unexpected '\)'/],
    ['an extra closing brace', 'x <- 1\n{ }}', 2, 4, /unexpected '\}'/],
    ['a missing closing parenthesis', 'f(x', 1, 4, /missing '\)'/],
    ['a missing right-hand side', 'x <- ', 1, 5, /missing an identifier: the expression is incomplete/],
    ['an unterminated string', 'x <- 1\n"abc', 2, 5, /unterminated string/],
    ['a dangling else', 'if (x) y else', 1, 10, /unexpected 'else'/],
  ])('reports %s with line, column and a helpful message', async (_, script, line, column, message) => {
    const result = await validate(script);
    expect(result.valid).toBe(false);
    expect(result.errors[0]).toMatchObject({ code: 'SYNTAX_ERROR', line, column });
    expect(result.errors[0]?.message).toMatch(message);
  });

  it('does not run the static checks on a script that does not parse', async () => {
    const result = await validate('system("id")\nf(');
    expect(result.errors.map((e) => e.code)).toEqual(['SYNTAX_ERROR']);
  });
});
