/**
 * The installed vignettes' code of the packages in packages.R (test/bench/vignette-corpus.ts) has
 * no false rejection: every finding of the TypeScript validator and of the runner's re-validation
 * in R is a documented security necessity (CORPUS_NECESSITIES) or names a package the allow-list
 * does not hold, and the two validators find the same things (test/runner/example-corpus.test.ts
 * does the same for the Rd examples). Validate-only, so it takes seconds;
 * `npm run bench -- vignettes` also runs the corpus (plain R, then the execute handler).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { allowedPackages, loadRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { classify, findingKey, type Finding } from '../bench/corpus-findings.ts';
import { revalidateCorpus } from '../bench/revalidate-corpus.ts';
import { collectVignettes } from '../bench/vignette-corpus.ts';

const scratch = mkdtempSync(join(tmpdir(), 'jube-vignette-corpus-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const corpus = collectVignettes(scratch);
const rules = loadRules();
const manifest = loadManifest();
const loadable = allowedPackages(rules, manifest.declared);
const validate = await loadValidator({ rules, ...manifestPackages(manifest) });
const texts = corpus.scripts.map((v) => readFileSync(v.file, 'utf8'));
const tsFindings: Finding[][] = texts.map((text) => validate(text).errors.map((e) => ({ code: e.code, symbol: e.symbol, message: e.message })));

const revalidated = await revalidateCorpus(
  scratch,
  corpus.scripts.map((v, i) => ({ file: v.file, text: texts[i]! })),
  loadable,
);
const rFindings = revalidated.findings;

const keys = (findings: readonly Finding[]): string[] => [...new Set(findings.map(findingKey))].sort();
const falseRejections = (findings: readonly Finding[]): string[] =>
  keys(findings.filter((f) => classify(f, loadable) === 'false'));

describe('the vignette corpus has no false rejection', () => {
  it('holds the vignettes with code of packages.R', () => {
    expect(revalidated.stderr).toBe('');
    expect(corpus.scripts.length).toBeGreaterThanOrEqual(60);
    expect(rFindings).toHaveLength(corpus.scripts.length);
  });

  it.each(corpus.scripts.map((v, i) => [`${v.package}/${v.vignette}`, i] as const))('%s: /validate rejects nothing but the necessities', (_, i) => {
    expect(falseRejections(tsFindings[i]!)).toEqual([]);
  });

  it.each(corpus.scripts.map((v, i) => [`${v.package}/${v.vignette}`, i] as const))('%s: the R re-validation finds the same', (_, i) => {
    const r = rFindings[i] ?? [];
    expect(falseRejections(r)).toEqual([]);
    expect(keys(r)).toEqual(keys(tsFindings[i]!));
  });
});
