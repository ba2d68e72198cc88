/**
 * The runner's own check in R (r-image/runner's check_script: R's parser against tree-sitter's
 * symbol inventory, and direct capability calls), over every file of a corpus in one Rscript:
 * what the runner would find on each script after /validate accepted it (a script the check itself
 * fails on gets one finding, R_CHECK_ERROR). Used by the corpus tests
 * (test/runner/vignette-corpus.test.ts, test/runner/example-corpus.test.ts).
 */
import { execa } from 'execa';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { treeSitterSymbols } from '../../layers/parser/symbol-inventory.ts';
import { getParser } from '../../layers/parser/tree-sitter.ts';
import type { Finding } from './corpus-findings.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));

// Loads the runner's parts as runner.R does (the DESCRIPTION's Collate order, one environment).
const REVALIDATE = String.raw`
args <- commandArgs(TRUE)
here <- file.path(args[1], "r-image", "runner")
input <- jsonlite::fromJSON(args[2], simplifyVector = FALSE)
runner <- new.env(parent = baseenv())
collate <- read.dcf(file.path(here, "DESCRIPTION"), fields = "Collate")[1L, 1L]
for (part in gsub("['\"]", "", strsplit(trimws(collate), "[[:space:]]+")[[1L]])) {
  for (expr in parse(file.path(here, "R", part), keep.source = FALSE, encoding = "UTF-8")) eval(expr, runner)
}
runner$load_seam(file.path(here, "seam.json"))
out <- lapply(input$scripts, function(s) {
  errors <- tryCatch(runner$check_script(s$file, s$symbols)$errors,
    error = function(e) list(list(code = "R_CHECK_ERROR", message = conditionMessage(e))))
  lapply(errors, function(e) list(code = e$code, symbol = if (is.null(e$symbol)) NULL else e$symbol, message = e$message))
})
cat(jsonlite::toJSON(out, auto_unbox = TRUE, null = "null"))
`;

export interface CorpusScript {
  readonly file: string;
  /** The file's text, for the tree-sitter symbol inventory the handler hands the runner. */
  readonly text: string;
}

export interface Revalidation {
  /** Each script's findings, in the order given. */
  readonly findings: Finding[][];
  /** Rscript's stderr: empty when the re-validation ran cleanly. */
  readonly stderr: string;
}

/** Writes the program and its input into `scratch`, runs Rscript once over all `scripts`, returns each script's findings. */
export async function revalidateCorpus(scratch: string, scripts: readonly CorpusScript[], timeoutMs = 120_000): Promise<Revalidation> {
  const parser = await getParser();
  const program = join(scratch, 'revalidate.R');
  const input = join(scratch, 'revalidate-input.json');
  writeFileSync(program, REVALIDATE);
  writeFileSync(input, JSON.stringify({ scripts: scripts.map((s) => ({ file: s.file, symbols: treeSitterSymbols(parser, s.text, 5000) ?? null })) }));
  const run = await execa('Rscript', ['--vanilla', program, repo, input], { reject: false, timeout: timeoutMs, cwd: scratch, maxBuffer: 64 * 1024 * 1024 });
  const parsed = JSON.parse(run.stdout || '[]') as { code: string; symbol: string | null; message: string }[][];
  return {
    findings: parsed.map((fs) => fs.map((f) => ({ code: f.code, symbol: f.symbol ?? undefined, message: f.message }))),
    stderr: run.stderr + (run.timedOut ? `\n(re-validation timed out after ${timeoutMs} ms)` : ''),
  };
}
