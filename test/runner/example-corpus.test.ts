/**
 * The installed Rd examples of the packages in packages.R (test/bench/example-corpus.ts: the
 * bench's default sample, at most 12 per package evenly spaced over the topics sorted by name,
 * each script starting with library(<its package>)) have no false rejection: every finding of the
 * TypeScript validator and of the runner's re-validation in R is a documented security necessity
 * (CORPUS_NECESSITIES, test/bench/corpus-findings.ts) or names a package the allow-list does not
 * hold, and the two validators find the same things. Validate-only: generating the examples and
 * the one Rscript of the re-validation take about 10 s on two cores, so the test keeps the
 * bench's full default sample; `npm run bench -- examples` also runs them (plain R, then the
 * execute handler).
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
import { collectExamples } from '../bench/example-corpus.ts';
import { revalidateCorpus } from '../bench/revalidate-corpus.ts';

const PER_PACKAGE = 12;

const scratch = mkdtempSync(join(tmpdir(), 'jube-example-corpus-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const corpus = collectExamples(scratch, { packages: 0, perPackage: PER_PACKAGE, mode: 'spread' });
const rules = loadRules();
const manifest = loadManifest();
const loadable = allowedPackages(rules, manifest.declared);
const validate = await loadValidator({ rules, ...manifestPackages(manifest) });
const texts = corpus.scripts.map((e) => readFileSync(e.file, 'utf8'));
const tsFindings: Finding[][] = texts.map((text) => validate(text).errors.map((e) => ({ code: e.code, symbol: e.symbol, message: e.message })));

const revalidated = await revalidateCorpus(
  scratch,
  corpus.scripts.map((e, i) => ({ file: e.file, text: texts[i]! })),
  loadable,
);
const rFindings = revalidated.findings;

const keys = (findings: readonly Finding[]): string[] => [...new Set(findings.map(findingKey))].sort();
const falseRejections = (findings: readonly Finding[]): string[] =>
  keys(findings.filter((f) => classify(f, loadable) === 'false'));
const named = corpus.scripts.map((e, i) => [`${e.package}/${e.topic}`, i] as const);

describe('the Rd-examples corpus has no false rejection', () => {
  it('holds the sampled examples of every package of packages.R', () => {
    expect(revalidated.stderr).toBe('');
    expect(new Set(corpus.scripts.map((e) => e.package)).size).toBe(manifest.declared.length);
    expect(rFindings).toHaveLength(corpus.scripts.length);
    for (const [i, e] of corpus.scripts.entries()) expect(texts[i]!.startsWith(`library(${e.package})\n`)).toBe(true);
  });

  it.each(named)('%s: /validate rejects nothing but the necessities', (_, i) => {
    expect(falseRejections(tsFindings[i]!)).toEqual([]);
  });

  it.each(named)('%s: the R re-validation finds the same', (_, i) => {
    const r = rFindings[i] ?? [];
    expect(falseRejections(r)).toEqual([]);
    expect(keys(r)).toEqual(keys(tsFindings[i]!));
  });
});
