/**
 * The validator against the previous build's validator (test/bench/baseline-validator.ts: "none may
 * get slower") and R's own tools on the same text, in one run: p50/p99 per call for a ~5 KB
 * realistic script and for a script at the size limit. R is timed inside one Rscript process
 * (its own loop), so process start-up is excluded on that side too. Prints ratios and the targets
 * (p50 < 3 ms at 5 KB; the size-limit script decided in < 100 ms); nothing here passes or fails.
 */
import { samples } from './budget.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { getParser } from '../../layers/parser/tree-sitter.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { loadBaselineValidator } from './baseline-validator.ts';

interface Stats {
  p50: number;
  p99: number;
  n: number;
  /** Set when the candidate was cut off: the true time is at least p50. */
  capped?: boolean;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99), n: samples.length };
}

function timeLoop(iterations: number, fn: () => void): Stats {
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  return stats(samples);
}

/** The same text measured by R: parse() + getParseData(), and lintr::lint() (bounded by a time limit). */
const R_PROGRAM = String.raw`
args <- commandArgs(TRUE)
text <- paste(readLines(args[1], warn = FALSE, encoding = "UTF-8"), collapse = "\n")
iterations <- as.integer(args[2]); lint_iterations <- as.integer(args[3]); lint_cap <- as.numeric(args[4])
q <- function(x) { x <- sort(x); c(p50 = x[max(1, floor(0.5 * length(x)) + 1)], p99 = x[max(1, min(length(x), floor(0.99 * length(x)) + 1))]) }
clock <- function() proc.time()[["elapsed"]]
parse_ms <- vapply(seq_len(iterations), function(i) {
  t0 <- clock(); pd <- getParseData(parse(text = text, keep.source = TRUE)); (clock() - t0) * 1000
}, numeric(1))
lint_ms <- numeric(0); capped <- FALSE
if (lint_iterations > 0 && requireNamespace("lintr", quietly = TRUE)) {
  for (i in seq_len(lint_iterations)) {
    t0 <- clock()
    ok <- tryCatch({ setTimeLimit(elapsed = lint_cap, transient = TRUE); lintr::lint(text = text); TRUE },
                   error = function(e) FALSE, finally = setTimeLimit(elapsed = Inf))
    lint_ms <- c(lint_ms, (clock() - t0) * 1000)
    if (!ok) { capped <- TRUE; break }
  }
}
out <- list(parse = c(as.list(q(parse_ms)), n = length(parse_ms)))
if (length(lint_ms)) out$lintr <- c(as.list(q(lint_ms)), n = length(lint_ms), capped = capped)
cat(jsonlite::toJSON(out, auto_unbox = TRUE, digits = 6))
`;

/**
 * R's parse() in one Rscript, then lintr in another that is killed at `lintCapSeconds`: lintr at the
 * size limit takes many minutes and R's own time limit does not interrupt its C code, so only a
 * process deadline bounds it. A killed lint is reported at the cap, marked `+`.
 */
function measureInR(dir: string, name: string, text: string, iterations: number, lintIterations: number, lintCapSeconds: number): {
  parse: Stats;
  lintr?: Stats;
} {
  const file = join(dir, `${name}.R`);
  writeFileSync(file, text);
  const program = join(dir, 'bench.R');
  writeFileSync(program, R_PROGRAM);
  const rscript = (n: number, lints: number, timeoutMs?: number) =>
    JSON.parse(
      execFileSync('Rscript', [program, file, String(n), String(lints), String(lintCapSeconds)], {
        encoding: 'utf8',
        maxBuffer: 16 * 1024 * 1024,
        ...(timeoutMs === undefined ? {} : { timeout: timeoutMs, killSignal: 'SIGKILL' as const }),
      }),
    ) as { parse: Stats; lintr?: Stats };
  const { parse } = rscript(iterations, 0);
  if (lintIterations === 0) return { parse };
  try {
    const { lintr } = rscript(1, lintIterations, lintCapSeconds * 1000);
    return lintr === undefined ? { parse } : { parse, lintr };
  } catch {
    const capMs = lintCapSeconds * 1000;
    return { parse, lintr: { p50: capMs, p99: capMs, n: 1, capped: true } };
  }
}

const fmt = (s: Stats | undefined): string =>
  s === undefined ? 'n/a' : `p50 ${s.p50.toFixed(2)} ms${s.capped ? '+' : ''}  p99 ${s.p99.toFixed(2)} ms${s.capped ? '+' : ''}  (n=${s.n})`;
const ratio = (other: Stats | undefined, ours: Stats): string =>
  other === undefined ? '' : `  = ${(other.p50 / ours.p50).toFixed(1)}x${other.capped ? '+' : ''} the validator's p50`;

export async function run(): Promise<void> {
  const rules = loadRules();
  const corpusDir = new URL('../fixtures/corpus/benign/', import.meta.url);
  const files = readdirSync(corpusDir)
    .filter((f) => f.endsWith('.R'))
    .map((f) => readFileSync(new URL(f, corpusDir), 'utf8'));
  let small = '';
  for (const f of files) if (Buffer.byteLength(small + f) <= 5_300) small += `${f}\n`;
  const all = files.join('\n');
  let large = '';
  while (Buffer.byteLength(large) + Buffer.byteLength(all) + 1 <= rules.script.maxBytes) large += `${all}\n`;

  const validate = await loadValidator({ rules: loadRules(), ...manifestPackages(loadManifest()) });
  const parser = await getParser();
  const baseline = await loadBaselineValidator();
  if (!baseline) console.log('  previous build: not measured (JUBE_R_BENCH_BASELINE_REF is not in this clone, or did not load)');
  for (let i = 0; i < 50; i += 1) {
    validate(small);
    baseline?.validate(small);
  }
  const dir = mkdtempSync(join(tmpdir(), 'jube-bench-'));
  try {
    for (const [label, text, iterations, rIterations, lintIterations, lintCapSeconds, target] of [
      // lintr is compared at ~5 KB only (one sample in CI): at the size limit it takes minutes for one number.
      ['~5 KB script', small, samples(500, 100), samples(200, 20), samples(5, 1), 30, 'target p50 < 3 ms'],
      ['size-limit script', large, samples(10, 3), samples(5, 2), 0, 0, 'target: decided < 100 ms'],
    ] as const) {
      const bytes = Buffer.byteLength(text);
      const verdict = validate(text);
      const ours = timeLoop(iterations, () => validate(text));
      const before = baseline ? timeLoop(iterations, () => baseline.validate(text)) : undefined;
      const treeSitter = timeLoop(Math.max(3, Math.floor(iterations / 2)), () => parser.parse(text)?.delete());
      const r = measureInR(dir, label.replace(/\W+/g, '-'), text, rIterations, lintIterations, lintCapSeconds);
      console.log(`\n${label}: ${bytes} bytes, valid=${verdict.valid}, ${verdict.lint.length} lint findings`);
      console.log(`  validator (jube-r)          ${fmt(ours)}   [${target}: ${ours.p50 < (bytes > 10_000 ? 100 : 3) ? 'met' : 'NOT met'}]`);
      if (before) console.log(`  ${`previous build (${baseline!.ref})`.padEnd(28)}${fmt(before)}${ratio(before, ours)}  [none may get slower: ${ours.p50 <= before.p50 ? 'met' : 'NOT met'}]`);
      console.log(`  tree-sitter-r parse alone   ${fmt(treeSitter)}${ratio(treeSitter, ours)}`);
      console.log(`  R parse() + getParseData()  ${fmt(r.parse)}${ratio(r.parse, ours)}`);
      console.log(`  lintr::lint()               ${lintIterations === 0 ? 'not measured (compared at ~5 KB only)' : `${fmt(r.lintr)}${ratio(r.lintr, ours)}`}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    baseline?.close();
  }
}
