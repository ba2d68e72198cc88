/**
 * The hostile corpus, statically: every capability function crossed with every wrapping shape
 * (hostile-shapes.ts). A shape that still writes a call of the name is advised against, naming the
 * function, with its category's message; a shape that reaches it by a value or a string passes
 * /validate (names are advice: the capsule refuses the capability at run time, as
 * test/runner/escaped/hostile-corpus.test.ts shows in R). Every combination is R that R parses, so
 * a finding is the check's, not a syntax error's; and the fast walk judges each as the full one.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capabilityCallRows } from '../../../layers/rules/capabilities.ts';
import { SHAPES } from './hostile-shapes.ts';
import { findings, fullWalkValidator, validator } from './support.ts';

const rows = capabilityCallRows().filter((r) => r.bare);
const qualified = capabilityCallRows().filter((r) => !r.bare);
const cases = [
  ...rows.flatMap((row) => SHAPES.map((shape) => ({ name: row.name, shape: shape.name, direct: shape.direct === true, script: shape.build(row.name, '"x"') }))),
  // A function only a package exports is a direct call when written with its package.
  ...qualified.map((row) => ({ name: row.name, shape: `${row.packages[0]}:: qualified`, direct: true, script: `${row.packages[0]}::${row.name}("x")` })),
];

describe('hostile corpus, statically', () => {
  it('is R that R itself parses (a finding is never a syntax error)', () => {
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

  it('advises against every direct call, naming the function with its category\'s message', async () => {
    const validate = await validator();
    const row = new Map(capabilityCallRows().map((r) => [r.name, r]));
    const missed = cases
      .filter((c) => c.direct)
      .filter(({ name, script }) => !validate(script).errors.some((e) => e.code === 'CAPABILITY_NOT_AVAILABLE' && e.symbol === name && e.message.endsWith(row.get(name)!.message.split(': ').slice(1).join(': '))));
    expect(missed.map((c) => `${c.name} / ${c.shape}: ${c.script}`)).toEqual([]);
  });

  it('raises no capability finding for a value or a string (the capsule\'s to refuse)', async () => {
    const validate = await validator();
    const flagged = cases.filter((c) => !c.direct).filter(({ script }) => validate(script).errors.some((e) => e.code === 'CAPABILITY_NOT_AVAILABLE'));
    expect(flagged.map((c) => `${c.name} / ${c.shape}: ${c.script}`)).toEqual([]);
  });

  it('is judged identically by the fast walk and the full reference walk', async () => {
    const [fast, full] = [await validator(), await fullWalkValidator()];
    const differing = cases.filter(({ script }) => JSON.stringify(findings(fast(script))) !== JSON.stringify(findings(full(script))));
    expect(differing.map((c) => c.script)).toEqual([]);
  });
});
