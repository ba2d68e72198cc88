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

describe('a parse past its budget', () => {
  it('is rejected as PARSE_TIMEOUT, not as a syntax error of the script', async () => {
    const { loadValidator } = await import('../../../layers/validator/validator.ts');
    const { loadRules } = await import('../../../layers/rules/rules.ts');
    const { loadManifest } = await import('../../../layers/packages/manifest.ts');
    const { manifestPackages } = await import('../../../layers/validator/package-lists.ts');
    const hurried = await loadValidator({ rules: loadRules(), ...manifestPackages(loadManifest()), parseBudgetMs: -1 });
    const script = 'x <- c(1, 2, 3)\ny <- mean(x)\n'.repeat(5_000);
    const result = hurried(script);
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([expect.objectContaining({ code: 'PARSE_TIMEOUT', line: 1, column: 1 })]);
    // The same script within the normal budget is fine: the code names the budget, not the script.
    expect((await validate(script)).valid).toBe(true);
  });
});
