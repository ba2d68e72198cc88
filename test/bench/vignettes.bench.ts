/**
 * The installed vignettes' R code (test/bench/vignette-corpus.ts) as a corpus of real-world R:
 * each vignette runs in plain `Rscript --vanilla` as the baseline; of those that exit 0, the share
 * the static validator accepts and the share the execute handler runs to `status: "ok"`; and
 * every rejection on the whole corpus with its cause, each classified as a documented security
 * refusal the tables mean (a capability call or a blocked package, test/bench/corpus-findings.ts), a package not installed hold, or a false rejection.
 *
 * Under CI=true only the static validator runs (no baseline, no handler): a few seconds.
 * Everything is written under one scratch dir in os.tmpdir(), removed at the end.
 */
import { execa } from 'execa';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { benchScratch, inCi } from './budget.ts';
import { classify, findingKey, verdictReason, type Finding } from './corpus-findings.ts';
import { collectVignettes, type Vignette } from './vignette-corpus.ts';

const TIMEOUT_SECONDS = 60;

interface Result extends Vignette {
  baseline?: { ok: boolean; timedOut: boolean; error?: string };
  findings: Finding[];
  execute?: { ok: boolean; cause?: string; wallMs: number };
}

const pct = (n: number, d: number): string => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}%`);
const lastLine = (text: string): string => text.trim().split('\n').filter((l) => l.trim() !== '' && !/^Execution halted/.test(l)).pop()?.trim().slice(0, 160) ?? '(no error text)';
const firstLine = (text: string | null | undefined): string => (text ?? '').split('\n').find((l) => l.trim() !== '')?.trim().slice(0, 160) ?? '(no error text)';

export async function run(): Promise<void> {
  const scratch = benchScratch('jube-bench-vignettes-');
  try {
    await measure(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function measure(scratch: string): Promise<void> {
  const corpus = collectVignettes(scratch);
  const rules = loadRules();
  const manifest = loadManifest();
  const installed = new Set(manifest.declared.concat(manifest.installed ?? []));
  const validate = await loadValidator({ rules, ...manifestPackages(manifest) });
  const results: Result[] = corpus.scripts.map((v) => {
    const checked = validate(readFileSync(v.file, 'utf8'));
    return { ...v, findings: checked.errors.map((e) => ({ code: e.code, symbol: e.symbol, message: e.message })) };
  });

  if (!inCi()) {
    // Baseline: plain R, one scratch working directory per vignette (plots land in its Rplots.pdf).
    for (const [i, r] of results.entries()) {
      const cwd = join(scratch, 'baseline', String(i));
      mkdirSync(cwd, { recursive: true });
      const run = await execa('Rscript', ['--vanilla', r.file], { cwd, reject: false, timeout: TIMEOUT_SECONDS * 1000, stdin: 'ignore' });
      const ok = run.exitCode === 0 && !run.timedOut;
      r.baseline = { ok, timedOut: run.timedOut ?? false, ...(ok ? {} : { error: run.timedOut ? `timed out after ${TIMEOUT_SECONDS} s` : lastLine(run.stderr) }) };
    }
    // Loaded only here: under CI the section is the static validator alone, and must stay quick.
    const [{ Logger }, { readServiceConfig }, { createExecuteHandler }, { readRuntimeSettings }] = await Promise.all([
      import('@aws-lambda-powertools/logger'),
      import('../../layers/config/service-config.ts'),
      import('../../functions/execute/create-handler.ts'),
      import('../../functions/execute/runtime-settings.ts'),
    ]);
    const handler = createExecuteHandler({
      config: readServiceConfig({ ...process.env, JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX: String(TIMEOUT_SECONDS) }),
      logger: new Logger({ serviceName: 'jube-r-bench', logLevel: 'SILENT' }),
      runtime: readRuntimeSettings(),
    });
    try {
      for (const r of results.filter((x) => x.baseline?.ok)) {
        const t0 = performance.now();
        const response = await handler({ script: readFileSync(r.file, 'utf8'), timeoutSeconds: TIMEOUT_SECONDS });
        const ok = response.status === 'ok';
        const cause = ok
          ? undefined
          : response.status === 'rejected'
            ? `rejected: ${[...new Set((response.validation?.errors ?? []).map((e) => findingKey({ code: e.code, symbol: e.symbol, message: e.message })))].join(', ') || firstLine(response.error)}`
            : `${response.status}: ${firstLine(response.error)}`;
        r.execute = { ok, ...(cause === undefined ? {} : { cause }), wallMs: Math.round(performance.now() - t0) };
      }
    } finally {
      await handler.close?.();
    }
  }

  const accepted = (r: Result): boolean => r.findings.length === 0;
  console.log(`vignettes of packages.R (installed doc/*.R, tangled; the knitr rendering harness dropped)`);
  console.log(`  with code                 ${results.length}   (no code to run: ${corpus.empty.length}: ${corpus.empty.join(', ')})`);
  console.log(`  accepted by the static validator (all)  ${results.filter(accepted).length}/${results.length} = ${pct(results.filter(accepted).length, results.length)}`);
  if (!inCi()) {
    const kept = results.filter((r) => r.baseline?.ok);
    const runOk = kept.filter((r) => r.execute?.ok).length;
    console.log(`  baseline ok (Rscript --vanilla, exit 0 in ${TIMEOUT_SECONDS} s)  ${kept.length}`);
    for (const r of results.filter((x) => !x.baseline?.ok)) console.log(`    baseline fails: ${r.package}/${r.vignette}: ${r.baseline?.error}`);
    console.log(`  accepted among baseline ok              ${kept.filter(accepted).length}/${kept.length} = ${pct(kept.filter(accepted).length, kept.length)}   (target >= 99%)`);
    console.log(`  run ok through the execute handler      ${runOk}/${kept.length} = ${pct(runOk, kept.length)}   (target >= 99%)`);
    for (const r of kept.filter((x) => !x.execute?.ok)) console.log(`    run fails: ${r.package}/${r.vignette}: ${r.execute?.cause}`);
  } else {
    console.log(`  (CI: static validator only; the full run adds the baseline and the execute handler)`);
  }
  console.log(`  every rejection (finding counted once per vignette; * = baseline ok):`);
  const verdicts = { capability: 0, blocked: 0, notLoadable: 0, false: 0 };
  for (const r of results) {
    const keys = new Map<string, Finding>();
    for (const f of r.findings) if (!keys.has(findingKey(f))) keys.set(findingKey(f), f);
    for (const [key, f] of keys) {
      const verdict = classify(f, rules, installed);
      verdicts[verdict]++;
      const why = verdictReason(f, verdict, rules);
      console.log(`    ${r.baseline?.ok ? '*' : ' '} ${`${r.package}/${r.vignette}`.padEnd(52)} ${key.padEnd(40)} ${verdict.padEnd(11)} ${why}`);
    }
  }
  console.log(`  rejections: ${verdicts.capability} capability call, ${verdicts.blocked} blocked package, ${verdicts.notLoadable} package not installed, ${verdicts.false} false`);
}
