/**
 * The relaxations (layers/validator/relaxations.ts): forbidden names allowed where they cannot reach
 * a capability. The shared table (test/fixtures/relaxations/cases.json) is what the R re-validation
 * must decide identically (test/runner/r/test-relaxations.R); the cases here are the TypeScript side's own.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorsOf, findings, fullWalkValidator, validate, validator } from './support.ts';

const table = JSON.parse(readFileSync(new URL('../../fixtures/relaxations/cases.json', import.meta.url), 'utf8')) as {
  accepted: string[];
  rejected: Record<string, string[]>;
};
const sorted = (xs: string[]): string[] => [...xs].sort();

describe('relaxations', () => {
  describe('the table shared with the R re-validation', () => {
    it.each(table.accepted)('accepts %j', async (script) => {
      expect(await errorsOf(script)).toEqual([]);
    });

    it.each(Object.entries(table.rejected))('rejects %j', async (script, errors) => {
      expect(sorted(await errorsOf(script))).toEqual(sorted(errors));
    });

    it('is judged identically by the fast walk and the full reference walk', async () => {
      const [fast, full] = [await validator(), await fullWalkValidator()];
      for (const script of [...table.accepted, ...Object.keys(table.rejected)]) {
        expect(findings(fast(script)), script).toEqual(findings(full(script)));
      }
    });
  });

  describe('messages say what would be allowed and why it is not', () => {
    it.each([
      ['a column beside a redefined operator', '`==` <- function(a, b) b()\nfilter(df, 1 == source)', /as a column it would be allowed here, but the script defines `==`/],
      ['a column of a redefined function', 'count <- 1\ncount(df, source)', /but the script defines `count`.*\.data\$source/],
      ['a value that is not a column use', 'f <- source', /If it is a column, write \.data\$name/],
      ['a computed do.call', 'do.call(get("rbind"), x)', /only in its plain form: do.call\(\) must name its function literally/],
      ['do.call with envir', 'do.call(rbind, x, envir = e)', /may be given only what, args, quote by name, not envir/],
      ['a piped do.call', 'x |> do.call(rbind)', /a pipe would hand do.call\(\) its function/],
      ['do.call of a loader', 'do.call("library", list("x"))', /call library\(\) directly/],
      ['a qualified do.call', 'base::do.call(rbind, x)', /without a pkg:: prefix/],
      ['local with envir', 'local(x, envir = e)', /only local\(\{ \.\.\. \}\) with its one block/],
    ])('%s', async (_, script, message) => {
      const { errors } = await validate(script);
      expect(errors.map((e) => e.message).join('\n')).toMatch(message);
    });
  });

  it('the relaxation facts come from the whole script, wherever the binding stands', async () => {
    expect(await errorsOf('filter(df, 1 == source)\n`==` <- function(a, b) b()')).toEqual(['FORBIDDEN_SYMBOL:source']);
    expect(await errorsOf('options(op)\nop <- options(digits = 3)')).toEqual([]);
  });

  it('a loader named in do.call is also the package loader check\'s finding', async () => {
    expect(sorted(await errorsOf('do.call("library", list("x"))'))).toEqual(['FORBIDDEN_SYMBOL:do.call', 'PACKAGE_LOADER_ARGUMENT:library']);
  });
});
