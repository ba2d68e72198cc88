/**
 * Every refused or absent package names a working alternative (script-rules.json
 * packages.alternatives): /validate's refusal of library() of a package the image does not hold
 * says what to write instead, and each alternative's example passes /validate and runs to
 * status "ok" through the execute handler with real R.
 */
import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { generous } from '../load-tolerant.ts';
import { harness } from './helpers.ts';

const rules = loadRules();
const manifest = loadManifest();
const installed = new Set([...(manifest.installed ?? []), ...manifest.packages.map((p) => p.name)]);
const validator = await loadValidator({ rules, ...manifestPackages(manifest) });
const h = generous(harness({ validator }));

describe('an absent package names a working alternative', () => {
  it('lists alternatives', () => {
    expect(rules.packages.alternatives.map((a) => a.name)).toEqual(expect.arrayContaining(['caret', 'lme4', 'knitr']));
  });

  it.each(rules.packages.alternatives.filter((a) => !installed.has(a.name)).map((a) => [a.name, a] as const))(
    'library(%s) is refused with the alternative',
    (name, alternative) => {
      const verdict = validator(`library(${name})\n`);
      expect(verdict.errors).toEqual([expect.objectContaining({ code: 'PACKAGE_NOT_ALLOWED', symbol: name, message: expect.stringContaining(`Instead: ${alternative.instead}`) })]);
    },
  );

  it.each(rules.packages.alternatives.map((a) => [a.name, a] as const))('the alternative to %s passes /validate and runs', async (_, alternative) => {
    expect(validator(alternative.example).errors).toEqual([]);
    const response = await h.run(alternative.example, { timeoutSeconds: 60 });
    expect(response.error).toBeNull();
    expect(response.status).toBe('ok');
    expect(response.consoleOutput.length).toBeGreaterThan(0);
  }, 120_000);
});
