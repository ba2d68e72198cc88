/**
 * The hostile corpus: every forbidden symbol (one attack seed each, in
 * test/fixtures/corpus/hostile/seeds.json) crossed with every wrapping shape an attacker could
 * hide it in. Every combination must be rejected naming the symbol, and every combination must
 * be R that R itself parses, so the rejection is the walk's doing, not a syntax error.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forbiddenSymbolIndex, loadRules } from '../../../layers/rules/rules.ts';
import { REPLACEMENT_SHAPES, SHAPES, seeds } from './hostile-shapes.ts';
import { findings, fullWalkValidator, validator } from './support.ts';

const forbidden = [...forbiddenSymbolIndex(loadRules()).keys()];

const cases = forbidden.flatMap((symbol) =>
  [...SHAPES, ...(symbol.endsWith('<-') ? REPLACEMENT_SHAPES : [])].map((shape) => ({
    symbol,
    shape: shape.name,
    script: shape.build(symbol, seeds[symbol] ?? '"x"'),
  })),
);

describe('hostile corpus', () => {
  it('has an attack seed for every forbidden symbol, and none for anything else', () => {
    expect(forbidden.filter((s) => !(s in seeds))).toEqual([]);
    expect(Object.keys(seeds).filter((s) => !forbidden.includes(s))).toEqual([]);
  });

  it('is R that R itself parses (the rejections are not syntax errors)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'jube-hostile-'));
    try {
      const file = join(dir, 'cases.json');
      writeFileSync(file, JSON.stringify(cases.map((c) => c.script)));
      const failed = execFileSync(
        'Rscript',
        [
          '-e',
          `scripts <- jsonlite::fromJSON(commandArgs(TRUE)[1]); bad <- which(vapply(scripts, function(s) inherits(try(parse(text = s, keep.source = FALSE), silent = TRUE), "try-error"), logical(1))); cat(bad, sep = "\\n")`,
          file,
        ],
        { encoding: 'utf8' },
      )
        .split('\n')
        .filter(Boolean)
        .map((i) => cases[Number(i) - 1]);
      expect(failed).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(`rejects all ${cases.length} combinations, naming the forbidden symbol`, async () => {
    const validate = await validator();
    const missed = cases.filter(({ symbol, script }) => {
      const result = validate(script);
      return (
        result.valid ||
        !result.errors.some(
          (e) => e.symbol === symbol && (e.code === 'FORBIDDEN_SYMBOL' || e.code === 'FORBIDDEN_STRING_FUNCTION'),
        )
      );
    });
    expect(missed.map((c) => `${c.symbol} / ${c.shape}: ${c.script}`)).toEqual([]);
  });

  it('is judged identically by the fast walk and the full reference walk', async () => {
    const [fast, full] = [await validator(), await fullWalkValidator()];
    const differing = cases.filter(({ script }) => JSON.stringify(findings(fast(script))) !== JSON.stringify(findings(full(script))));
    expect(differing.map((c) => c.script)).toEqual([]);
  });
});

