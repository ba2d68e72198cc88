/**
 * The installed packages' own Rd examples as a corpus of real-world R: how many of the examples
 * that run in plain `Rscript --vanilla` the static validator accepts and the execute handler runs
 * to `status: "ok"` (targets: >= 98% accepted, >= 97% run ok), the top causes of each miss, and
 * every distinct rejection on the baseline-ok examples classified as a documented security
 * refusal the tables mean (a capability call or a blocked package, test/bench/corpus-findings.ts), a package not installed
 * hold, or a false rejection, with a line saying whether every remaining rejection is meant.
 *
 * The scripts are generated at bench time from the installed documentation
 * (test/bench/example-corpus.ts: tools::Rd_db + tools::Rd2ex, each script starting with
 * library(<its package>)) into a scratch dir under os.tmpdir(), never into the tree, and removed
 * when the run ends (JUBE_R_BENCH_RESULTS=<file> keeps the per-script results).
 *
 * The full run takes a deterministic sample of at most JUBE_R_BENCH_EXAMPLES_PER_PACKAGE (default
 * 12) examples per package of packages.R, evenly spaced over the topics sorted by name (all of
 * them would take close to an hour on two cores); under CI=true the first topic of the first 4
 * packages.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { execa } from 'execa';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readServiceConfig } from '../../layers/config/service-config.ts';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { createExecuteHandler } from '../../functions/execute/create-handler.ts';
import { readRuntimeSettings } from '../../functions/execute/runtime-settings.ts';
import { benchScratch, inCi } from './budget.ts';
import { classify, findingKey, verdictReason, type Finding, type Verdict } from './corpus-findings.ts';
import { collectExamples, type Example } from './example-corpus.ts';

const TIMEOUT_SECONDS = 20;
const TARGET_ACCEPTED = 99;
const TARGET_RUN_OK = 99;
const TOP = 15;

interface Result extends Example {
  baseline: { ok: boolean; exitCode: number | undefined; timedOut: boolean; missingPackages: string[]; stderrTail?: string };
  validator?: { accepted: boolean; causes: string[]; findings: Finding[] };
  execute?: { status: string; ok: boolean; cause?: string; wallMs: number };
}

/** Packages a script names in library()/require()/requireNamespace() or pkg:: that are not installed. */
export function missingPackages(script: string, installed: ReadonlySet<string>): string[] {
  const named = new Set<string>();
  for (const m of script.matchAll(/\b(?:library|require|requireNamespace|loadNamespace)\s*\(\s*["']?([A-Za-z][A-Za-z0-9.]*)/g)) named.add(m[1]!);
  for (const m of script.matchAll(/\b([A-Za-z][A-Za-z0-9.]*):::?/g)) named.add(m[1]!);
  return [...named].filter((p) => !installed.has(p)).sort();
}

const firstLine = (text: string | null | undefined): string => (text ?? '').split('\n').find((l) => l.trim() !== '')?.trim().slice(0, 160) ?? '(no error text)';

function countTop(causes: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const c of causes) counts.set(c, (counts.get(c) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, TOP);
}

const pct = (n: number, d: number): string => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}%`);

export async function run(): Promise<void> {
  const scratch = benchScratch('jube-bench-examples-');
  try {
    await measure(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function measure(scratch: string): Promise<void> {
  const perPackage = Number(process.env['JUBE_R_BENCH_EXAMPLES_PER_PACKAGE'] ?? (inCi() ? 1 : 12));
  const generated = collectExamples(scratch, inCi() ? { packages: 4, perPackage, mode: 'first' } : { packages: 0, perPackage, mode: 'spread' });
  const installed = new Set(generated.installed);
  const results: Result[] = [];

  // Baseline: plain R, one scratch working directory per script (plots land in its Rplots.pdf).
  for (const [i, example] of generated.scripts.entries()) {
    const script = readFileSync(example.file, 'utf8');
    const missing = missingPackages(script, installed);
    const cwd = join(scratch, 'baseline', String(i));
    mkdirSync(cwd, { recursive: true });
    const r = missing.length > 0
      ? undefined
      : await execa('Rscript', ['--vanilla', example.file], { cwd, reject: false, timeout: TIMEOUT_SECONDS * 1000, stdin: 'ignore' });
    const ok = r !== undefined && r.exitCode === 0 && !r.timedOut;
    results.push({
      ...example,
      baseline: { ok, exitCode: r?.exitCode, timedOut: r?.timedOut ?? false, missingPackages: missing, ...(ok || !r ? {} : { stderrTail: r.stderr.slice(-300) }) },
    });
  }
  const kept = results.filter((r) => r.baseline.ok);

  const rules = loadRules();
  const manifest = loadManifest();
  const validate = await loadValidator({ rules, ...manifestPackages(manifest) });
  const logger = new Logger({ serviceName: 'jube-r-bench', logLevel: 'SILENT' });
  const handler = createExecuteHandler({
    config: readServiceConfig({ ...process.env, JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX: '60' }),
    logger,
    runtime: readRuntimeSettings(),
  });
  try {
    for (const r of kept) {
      const script = readFileSync(r.file, 'utf8');
      const v = validate(script);
      const findings = v.errors.map((e) => ({ code: e.code, symbol: e.symbol, message: e.message }));
      r.validator = { accepted: v.valid, causes: [...new Set(findings.map(findingKey))], findings };
      const t0 = performance.now();
      const response = await handler({ script, timeoutSeconds: TIMEOUT_SECONDS });
      const ok = response.status === 'ok';
      const cause = ok
        ? undefined
        : response.status === 'rejected'
          ? `rejected: ${[...new Set((response.validation?.errors ?? []).map((e) => `${e.code} ${e.symbol ?? ''}`.trim()))].join(', ') || firstLine(response.error)}`
          : firstLine(response.error);
      r.execute = { status: response.status, ok, ...(cause === undefined ? {} : { cause }), wallMs: Math.round(performance.now() - t0) };
    }
  } finally {
    await handler.close?.();
  }

  const accepted = kept.filter((r) => r.validator?.accepted).length;
  const runOk = kept.filter((r) => r.execute?.ok).length;
  // The scratch dir goes when the run ends; the per-script results stay only where asked for.
  const resultsFile = process.env['JUBE_R_BENCH_RESULTS'];
  if (resultsFile) writeFileSync(resultsFile, JSON.stringify(results, null, 2));
  const sample = inCi() ? `first ${perPackage} topic(s) of the first 4 packages (CI sample)` : `at most ${perPackage} per package, evenly spaced`;
  console.log(`package examples (Rd2ex of the installed docs, \\dontrun and \\donttest dropped; ${sample})`);
  console.log(`  generated                 ${results.length}`);
  console.log(`  baseline ok (Rscript --vanilla, exit 0 in ${TIMEOUT_SECONDS} s, installed packages only)  ${kept.length}`);
  console.log(`    left out: ${results.filter((r) => r.baseline.missingPackages.length > 0).length} need a package not installed, ${results.filter((r) => r.baseline.timedOut).length} timed out, ${results.filter((r) => !r.baseline.ok && !r.baseline.timedOut && r.baseline.missingPackages.length === 0).length} failed`);
  console.log(`  accepted by the static validator  ${accepted}/${kept.length} = ${pct(accepted, kept.length)}   (target >= ${TARGET_ACCEPTED}%)`);
  console.log(`  run ok through the execute handler  ${runOk}/${kept.length} = ${pct(runOk, kept.length)}   (target >= ${TARGET_RUN_OK}%)`);
  console.log(`  top rejection causes (finding code and symbol, counted once per script):`);
  for (const [cause, n] of countTop(kept.flatMap((r) => r.validator?.causes ?? []))) console.log(`    ${String(n).padStart(4)}  ${cause}`);
  console.log(`  top run-failure causes (first line of error; rejected: the findings):`);
  for (const [cause, n] of countTop(kept.flatMap((r) => (r.execute?.cause ? [r.execute.cause] : [])))) console.log(`    ${String(n).padStart(4)}  ${cause}`);
  // Every distinct finding on the baseline-ok corpus, with how it counts (test/bench/corpus-findings.ts).
  const distinct = new Map<string, { finding: Finding; verdict: Verdict; scripts: string[] }>();
  for (const r of kept) {
    for (const f of r.validator?.findings ?? []) {
      const key = findingKey(f);
      const entry = distinct.get(key) ?? { finding: f, verdict: classify(f, rules, installed), scripts: [] };
      const name = `${r.package}/${r.topic}`;
      if (!entry.scripts.includes(name)) entry.scripts.push(name);
      distinct.set(key, entry);
    }
  }
  const byVerdict = { capability: 0, blocked: 0, notLoadable: 0, false: 0 };
  console.log(`  every rejection on the baseline-ok examples (distinct finding, scripts, verdict, reason):`);
  for (const [key, e] of [...distinct].sort((a, b) => a[0].localeCompare(b[0]))) {
    byVerdict[e.verdict]++;
    console.log(`    ${key.padEnd(40)} ${String(e.scripts.length).padStart(4)}  ${e.verdict.padEnd(11)} ${verdictReason(e.finding, e.verdict, rules)}`);
    console.log(`      in ${e.scripts.join(', ')}`);
  }
  const rejected = kept.filter((r) => r.validator !== undefined && !r.validator.accepted);
  const onlyNecessities = rejected.filter((r) => (r.validator?.findings ?? []).every((f) => classify(f, rules, installed) !== 'false')).length;
  console.log(`  distinct findings: ${byVerdict.capability} capability call, ${byVerdict.blocked} blocked package, ${byVerdict.notLoadable} package not installed, ${byVerdict.false} false`);
  console.log(
    byVerdict.false === 0
      ? `  every remaining rejection is a capability call, a blocked package or a package not installed: ${rejected.length} rejected script(s)`
      : `  NOT every remaining rejection is meant: ${rejected.length - onlyNecessities} of ${rejected.length} rejected script(s) have a false rejection`,
  );
  console.log(resultsFile ? `  per-script results: ${resultsFile}` : `  per-script results: set JUBE_R_BENCH_RESULTS=<file> to keep them`);
}
