/**
 * The symbol inventory R's parser-agreement check compares with its own: the validator hands on the
 * inventory of its own parse, which is the inventory a separate budgeted parse finds
 * (symbol-inventory.ts). A called name is listed with "(" after it, so the two parsers must also
 * agree on what is a call.
 */
import { describe, expect, it } from 'vitest';
import { getParser } from '../../../layers/parser/tree-sitter.ts';
import { treeSitterSymbols } from '../../../layers/parser/symbol-inventory.ts';
import { validator } from '../validator/support.ts';

const script = 'f <- function(x, ...) `my var` + x@slot + stats::median(..1)\nprint(f(1))';

describe('the symbol inventory', () => {
  it('is handed on from the validator\'s parse, equal to a separate parse\'s', async () => {
    // Arrange
    const validate = await validator();
    let handed: string[] | undefined;
    // Act
    const result = validate(script, (names) => (handed = names));
    // Assess
    expect(result.valid).toBe(true);
    expect(handed).toEqual(['f', 'f(', 'median(', 'my var', 'print(', 'slot', 'stats', 'x', 'x']);
    expect(treeSitterSymbols(await getParser(), script, 5_000)).toEqual(handed);
  });

  it('is not handed on for a script with a syntax error, and a separate parse finds none', async () => {
    let handed: string[] | undefined;
    const result = (await validator())('f(', (names) => (handed = names));
    expect(result.errors.map((e) => e.code)).toEqual(['SYNTAX_ERROR']);
    expect(handed).toBeUndefined();
    expect(treeSitterSymbols(await getParser(), 'f(', 5_000)).toBeUndefined();
  });

  it('gives none when the separate parse runs out of its budget', async () => {
    const long = 'x <- 1\n'.repeat(200_000);
    expect(treeSitterSymbols(await getParser(), long, 0)).toBeUndefined();
    expect(treeSitterSymbols(await getParser(), long, 60_000)).toHaveLength(200_000);
  });
});
