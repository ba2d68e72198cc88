/**
 * The R runner's own tests (test/runner/r/test-<part>.R, one per part of the r-image/runner
 * package), run with Rscript and no Node in between: a regression in one part (the parser
 * agreement, the capability advice, the evaluation loop, the value, the envelope...) shows up here
 * as the case that names it. Each R case is reported as one test.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { getParser } from '../../layers/parser/tree-sitter.ts';
import { treeSitterSymbols } from '../../layers/parser/symbol-inventory.ts';

interface RCase {
  readonly name: string;
  readonly ok: boolean;
  readonly message?: string;
}

const dir = fileURLToPath(new URL('./r/', import.meta.url));
const files = readdirSync(dir).filter((file) => /^test-.+\.R$/.test(file)).sort();

// Every file at once, before the cases are declared (vitest needs the list up front).
const runs = await Promise.all(
  files.map(async (file) => {
    const run = await execa('Rscript', ['--vanilla', 'harness.R', file], { cwd: dir, reject: false, timeout: 60_000 });
    const cases = run.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as RCase);
    return { file, exitCode: run.exitCode, stderr: run.stderr, cases };
  }),
);

describe.each(runs)('$file', ({ exitCode, stderr, cases }) => {
  it('runs to the end', () => {
    expect(exitCode, stderr).toBe(0);
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(cases)('$name', ({ ok, message }) => {
    expect(message).toBeUndefined();
    expect(ok).toBe(true);
  });
});

// test-parse.R hands check_script() a tree-sitter list for each script of its table; these are
// tree-sitter's own lists (the validator's inventory), so R agreeing with them is R agreeing with
// tree-sitter.
interface ParseCase {
  readonly script: string;
  readonly symbols: readonly string[];
}
const parseCases = JSON.parse(readFileSync(`${dir}parse-cases.json`, 'utf8')) as { inventories: ParseCase[]; capabilityCalls: ParseCase[] };
const byCodeUnit = (names: readonly string[]) => [...names].sort();

it.each([...parseCases.inventories, ...parseCases.capabilityCalls])('tree-sitter lists $script as parse-cases.json says', async ({ script, symbols }) => {
  expect(treeSitterSymbols(await getParser(), script, 5_000)).toEqual(byCodeUnit(symbols));
});
