/**
 * The installed packages' own Rd examples as a corpus of real-world R: how many of the examples
 * that run in plain `Rscript --vanilla` the static validator accepts and the execute handler runs
 * to `status: "ok"` (targets: >= 98% accepted, >= 97% run ok), and the top causes of each miss.
 *
 * The scripts are generated at bench time from the installed documentation (tools::Rd_db +
 * tools::Rd2ex with \dontrun and \donttest commented out, as R CMD check runs them, see
 * https://stat.ethz.ch/R-manual/R-devel/library/tools/html/Rdutils.html) into a scratch dir under
 * os.tmpdir(), never into the tree, and removed when the run ends (JUBE_R_BENCH_RESULTS=<file>
 * keeps the per-script results). Each script starts with library(<its package>), which is what
 * R CMD check does before running a package's examples.
 *
 * The full run takes a deterministic sample of at most JUBE_R_BENCH_EXAMPLES_PER_PACKAGE (default
 * 12) examples per package of packages.R, evenly spaced over the topics sorted by name (all of
 * them would take close to an hour on two cores); under CI=true the first topic of the first 4
 * packages.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { execa } from 'execa';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readServiceConfig } from '../../layers/config/service-config.ts';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { createExecuteHandler } from '../../functions/execute/create-handler.ts';
import { readRuntimeSettings } from '../../functions/execute/runtime-settings.ts';
import { benchScratch, inCi } from './budget.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const TIMEOUT_SECONDS = 20;
const TARGET_ACCEPTED = 98;
const TARGET_RUN_OK = 97;
const TOP = 15;

/** Writes <pkg>__<n>.R per chosen example; prints [{package, topic, file}] and the installed packages. */
const GENERATOR = String.raw`
args <- commandArgs(TRUE)
env <- new.env()
sys.source(file.path(args[1], "packages.R"), envir = env)
declared <- get("jube_r_packages", envir = env)
out <- args[2]
packages <- as.integer(args[3])
per_package <- as.integer(args[4])
mode <- args[5]
if (packages > 0L) declared <- utils::head(declared, packages)
pick <- function(n) {
  if (n <= per_package) return(seq_len(n))
  if (mode == "first") return(seq_len(per_package))
  unique(round(seq(1, n, length.out = per_package)))
}
scripts <- list()
for (pkg in declared) {
  db <- tools::Rd_db(pkg)
  db <- db[order(names(db))]
  has <- vapply(db, function(rd) any(tools:::RdTags(rd) == "\\examples"), logical(1))
  db <- db[has]
  for (i in pick(length(db))) {
    tmp <- tempfile()
    tools::Rd2ex(db[[i]], tmp, commentDontrun = TRUE, commentDonttest = TRUE)
    if (!file.exists(tmp)) next
    file <- file.path(out, sprintf("%s__%03d.R", pkg, i))
    writeLines(c(sprintf("library(%s)", pkg), readLines(tmp, warn = FALSE)), file)
    scripts[[length(scripts) + 1L]] <- list(package = pkg, topic = sub("[.]Rd$", "", names(db)[i]), file = file)
  }
}
cat(jsonlite::toJSON(list(scripts = scripts, installed = rownames(utils::installed.packages())), auto_unbox = TRUE))
`;

interface Example {
  readonly package: string;
  readonly topic: string;
  readonly file: string;
}

interface Result extends Example {
  baseline: { ok: boolean; exitCode: number | undefined; timedOut: boolean; missingPackages: string[]; stderrTail?: string };
  validator?: { accepted: boolean; causes: string[] };
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
  const scriptsDir = join(scratch, 'scripts');
  mkdirSync(scriptsDir);
  writeFileSync(join(scratch, 'generate.R'), GENERATOR);
  const perPackage = Number(process.env['JUBE_R_BENCH_EXAMPLES_PER_PACKAGE'] ?? (inCi() ? 1 : 12));
  const generatorArgs = inCi() ? ['4', String(perPackage), 'first'] : ['0', String(perPackage), 'spread'];
  const generated = JSON.parse(
    execFileSync('Rscript', ['--vanilla', join(scratch, 'generate.R'), repo, scriptsDir, ...generatorArgs], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }),
  ) as { scripts: Example[]; installed: string[] };
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
  const validate = await loadValidator({ rules, ...manifestPackages(loadManifest()) });
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
      r.validator = { accepted: v.valid, causes: [...new Set(v.errors.map((e) => `${e.code} ${e.symbol ?? ''}`.trim()))] };
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
  console.log(resultsFile ? `  per-script results: ${resultsFile}` : `  per-script results: set JUBE_R_BENCH_RESULTS=<file> to keep them`);
}
