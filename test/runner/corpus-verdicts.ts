/**
 * The corpus tests' shared body (test/runner/vignette-corpus.test.ts, test/runner/example-corpus.test.ts):
 * each script of a real-world corpus is validated by /validate's validator and re-checked by the
 * runner's check in R; every finding must be a refusal the tables mean (test/bench/corpus-findings.ts),
 * and at least 99% of the scripts whose packages are installed must be accepted outright.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { classify, findingKey, type Finding } from '../bench/corpus-findings.ts';
import { revalidateCorpus } from '../bench/revalidate-corpus.ts';

export interface NamedScript {
  readonly name: string;
  readonly file: string;
}

export const MIN_ACCEPTED = 0.99;

export async function describeCorpus(title: string, scratch: string, scripts: readonly NamedScript[], minScripts: number): Promise<void> {
  const rules = loadRules();
  const manifest = loadManifest();
  const installed = new Set(manifest.declared.concat(manifest.installed ?? []));
  const validate = await loadValidator({ rules, ...manifestPackages(manifest) });
  const texts = scripts.map((s) => readFileSync(s.file, 'utf8'));
  const tsFindings: Finding[][] = texts.map((text) => validate(text).errors.map((e) => ({ code: e.code, symbol: e.symbol, message: e.message })));
  const revalidated = await revalidateCorpus(scratch, scripts.map((s, i) => ({ file: s.file, text: texts[i]! })));
  const falseFindings = (findings: readonly Finding[]): string[] =>
    [...new Set(findings.filter((f) => classify(f, rules, installed) === 'false').map(findingKey))].sort();
  const loadable = tsFindings.map((fs) => fs.every((f) => classify(f, rules, installed) !== 'notLoadable'));

  describe(title, () => {
    it(`holds at least ${minScripts} scripts, each re-checked in R`, () => {
      expect(revalidated.stderr).toBe('');
      expect(scripts.length).toBeGreaterThanOrEqual(minScripts);
      expect(revalidated.findings).toHaveLength(scripts.length);
    });

    it(`accepts at least ${MIN_ACCEPTED * 100}% of the scripts whose packages are installed`, () => {
      const considered = tsFindings.filter((_, i) => loadable[i]);
      const refused = scripts.flatMap((s, i) => (loadable[i] && tsFindings[i]!.length > 0 ? [`${s.name}: ${tsFindings[i]!.map(findingKey).join(', ')}`] : []));
      const accepted = considered.filter((fs) => fs.length === 0).length;
      expect(accepted / considered.length, refused.join('\n')).toBeGreaterThanOrEqual(MIN_ACCEPTED);
    });

    it.each(scripts.map((s, i) => [s.name, i] as const))('%s: every finding is a refusal the tables mean', (_, i) => {
      expect(falseFindings(tsFindings[i]!)).toEqual([]);
      expect(falseFindings(revalidated.findings[i] ?? [])).toEqual([]);
    });
  });
}
