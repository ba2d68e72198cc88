/**
 * The one list of findings on the real-world corpora (the installed vignettes,
 * test/bench/vignette-corpus.ts, and the installed Rd examples, test/bench/example-corpus.ts)
 * that are security necessities, and how any finding on them counts. Used by
 * `npm run bench -- vignettes` / `-- examples` and by the tests that the corpora have no false
 * rejection (test/runner/vignette-corpus.test.ts, test/runner/example-corpus.test.ts).
 */

/**
 * Findings on the corpora that are security necessities, each with the rule that makes it one
 * (docs/script-rules.md). Key: "<code> <symbol>", or "PACKAGE_NOT_ALLOWED <pkg>::<name>" for an
 * export of a blocked package. A package the allow-list does not hold (not installed, or
 * installed only as a dependency: chron, gtable, pillar, ...) is not listed here: `classify`
 * calls it `notLoadable`, as it is no rejection of the validator's making.
 */
export const CORPUS_NECESSITIES: Readonly<Record<string, string>> = {
  'PACKAGE_NOT_ALLOWED knitr': 'knitr is blocked: it evaluates code from text and runs engines that spawn processes (knitr::kable is the usual use)',
  'PACKAGE_NOT_ALLOWED rlang::eval_tidy': 'rlang is blocked and eval_tidy is not among packages.namedExports: it evaluates an expression',
  'PACKAGE_NOT_ALLOWED rlang::call2': 'rlang is blocked and call2 is not among packages.namedExports: it builds a call from a name, as base call (forbidden, indirection) does',
  'BLOCKED_OPERATOR :::': '`:::` reaches unexported internals the allow-list does not audit',
  'FORBIDDEN_SYMBOL load': 'deserialization: .RData can carry code (CVE-2024-27322)',
  'FORBIDDEN_SYMBOL readRDS': 'deserialization: an RDS can carry code (CVE-2024-27322)',
  'FORBIDDEN_SYMBOL unserialize': 'deserialization: can rebuild closures and promises (CVE-2024-27322); the capsule also fences unserialize in C',
  'FORBIDDEN_SYMBOL unserializeJSON': 'deserialization: jsonlite\'s serializeJSON format rebuilds any R object, closures and environments included (CVE-2024-27322)',
  'FORBIDDEN_SYMBOL xml_unserialize': 'deserialization: xml2\'s xml_unserialize() calls base unserialize() on the file or connection it is given, which rebuilds any R object (CVE-2024-27322)',
  'FORBIDDEN_SYMBOL url': 'network: opens a URL (jsonlite\'s stream_in example reads httpbin.org); the execute runtime has no egress and a script must not try',
  'FORBIDDEN_SYMBOL parse': 'codeFromText: turns text into code',
  'FORBIDDEN_SYMBOL parent.frame': 'environments: hands out the caller\'s frame',
  'FORBIDDEN_SYMBOL getClass': 'environments: a class definition carries its package environment',
  'FORBIDDEN_SYMBOL tracemem': 'hooksAndTracing: its answer is an object\'s heap address, and the capsule removes it: an address disclosure helps a memory-corruption exploit (data.table\'s setattr example)',
  'FORBIDDEN_SYMBOL retracemem': 'hooksAndTracing: memory tracing, removed by the capsule with tracemem (heap addresses)',
  'FORBIDDEN_SYMBOL untracemem': 'hooksAndTracing: memory tracing, removed by the capsule with tracemem (heap addresses)',
};

export type Verdict = 'necessity' | 'notLoadable' | 'false';

export interface Finding {
  readonly code: string;
  readonly symbol?: string | undefined;
  readonly message: string;
}

export function findingKey(f: Finding): string {
  const qualified = f.code === 'PACKAGE_NOT_ALLOWED' ? /^'([A-Za-z][A-Za-z0-9.]*::[^']+)' is not available/.exec(f.message) : null;
  return `${f.code} ${qualified?.[1] ?? f.symbol ?? ''}`.trim();
}

/** How a finding on a corpus counts; `loadable`: the packages a script may load. */
export function classify(finding: Finding, loadable: ReadonlySet<string>): Verdict {
  if (CORPUS_NECESSITIES[findingKey(finding)] !== undefined) return 'necessity';
  if (finding.code === 'PACKAGE_NOT_ALLOWED' && finding.symbol !== undefined && !loadable.has(finding.symbol) && /not available in jube-r[. ]/.test(finding.message)) return 'notLoadable';
  return 'false';
}

/** Why a finding counts as it does: a necessity's rule, "package not on the allow-list", or the finding's message. */
export function verdictReason(finding: Finding, verdict: Verdict): string {
  if (verdict === 'necessity') return CORPUS_NECESSITIES[findingKey(finding)] ?? '';
  if (verdict === 'notLoadable') return 'package not on the allow-list';
  return finding.message.slice(0, 140);
}
