/**
 * How a finding on the real-world corpora (the installed vignettes, test/bench/vignette-corpus.ts,
 * and the installed Rd examples, test/bench/example-corpus.ts) counts, read from the two tables
 * that own the rules: a direct call of a capability function (layers/rules/capabilities.json) and
 * a package the rules block (layers/rules/script-rules.json, packages.blocked) are refusals the
 * service means; a package that is not installed is none of the validator's making; anything else
 * is a false rejection. Used by `npm run bench -- vignettes` / `-- examples` and by the corpus
 * tests (test/runner/vignette-corpus.test.ts, test/runner/example-corpus.test.ts).
 */
import type { ScriptRules } from '../../layers/rules/rules.ts';

export type Verdict = 'capability' | 'blocked' | 'notLoadable' | 'false';

export interface Finding {
  readonly code: string;
  readonly symbol?: string | undefined;
  readonly message: string;
}

export const findingKey = (f: Finding): string => `${f.code} ${f.symbol ?? ''}`.trim();

/** How a finding counts; `installed`: the packages installed in the image (the manifest). */
export function classify(finding: Finding, rules: ScriptRules, installed: ReadonlySet<string>): Verdict {
  if (finding.code === 'CAPABILITY_NOT_AVAILABLE') return 'capability';
  if (finding.code === 'PACKAGE_NOT_ALLOWED' && finding.symbol !== undefined) {
    if (rules.packages.blocked.some((b) => b.name === finding.symbol)) return 'blocked';
    if (!installed.has(finding.symbol)) return 'notLoadable';
  }
  return 'false';
}

/** Why a finding counts as it does: the table's reason, or the finding's own message. */
export function verdictReason(finding: Finding, verdict: Verdict, rules: ScriptRules): string {
  if (verdict === 'blocked') return rules.packages.blocked.find((b) => b.name === finding.symbol)?.why ?? '';
  if (verdict === 'notLoadable') return 'package not installed';
  return finding.message.slice(0, 140);
}
