import { describe, expect, it } from 'vitest';
import { decodeName, decodeStringLiteral } from '../../../layers/validator/r-strings.ts';

describe('R literal decoding', () => {
  it.each([
    ['"system"', 'system'],
    ["'system'", 'system'],
    ['"\\x73ystem"', 'system'],
    ['"\\x73\\x79stem"', 'system'],
    ['"\\u0073ystem"', 'system'],
    ['"\\u{73}ystem"', 'system'],
    ['"\\U00000073ystem"', 'system'],
    ['"\\U{73}ystem"', 'system'],
    ['"sys\\164em"', 'system'],
    ['"a\\tb\\n"', 'a\tb\n'],
    ['"quote \\" inside"', 'quote " inside'],
    ['r"(system)"', 'system'],
    ['R"[a]b]"', 'a]b'],
    ["r'---{x}--}---'", 'x}--'],
    ['r"-(a)"b)-"', 'a)"b'],
    ['"unknown \\q kept"', 'unknown \\q kept'],
  ])('decodes %s', (literal, value) => {
    expect(decodeStringLiteral(literal)).toBe(value);
  });

  it.each([
    ['system', 'system'],
    ['`system`', 'system'],
    ['`body<-`', 'body<-'],
    ['`\\x73ystem`', 'system'],
  ])('decodes the name %s', (text, name) => {
    expect(decodeName(text)).toBe(name);
  });

  it('agrees with R on every escape form', async () => {
    const { execFileSync } = await import('node:child_process');
    const literals = ['"\\x73ystem"', '"\\u{73}y\\U{73}tem"', '"sys\\164em"', "r\"-(a)\"b)-\""];
    const out = execFileSync('Rscript', ['-e', `cat(vapply(commandArgs(TRUE), function(s) eval(parse(text = s)[[1]]), ""), sep = "\\n")`, ...literals], {
      encoding: 'utf8',
    });
    expect(out.trimEnd().split('\n')).toEqual(literals.map(decodeStringLiteral));
  });
});
