/**
 * The runner's re-validation in R alone (r-image/runner's check_script, loaded as runner.R loads
 * its parts), over every file of a corpus in one Rscript: what the runner would find on each
 * script after the TypeScript validator (a script the check itself fails on gets one finding,
 * R_CHECK_ERROR). Used by the corpus tests (test/runner/vignette-corpus.test.ts,
 * test/runner/example-corpus.test.ts) and the differential test (test/runner/validator-differential.test.ts)
 * to assert that both validators find the same.
 */
import { execa } from 'execa';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { treeSitterSymbols } from '../../layers/parser/symbol-inventory.ts';
import { getParser } from '../../layers/parser/tree-sitter.ts';
import type { Finding } from './corpus-findings.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));

const REVALIDATE = String.raw`
args <- commandArgs(TRUE)
repo <- args[1]
input <- jsonlite::fromJSON(args[2], simplifyVector = FALSE)
runner_dir <- file.path(repo, "r-image", "runner")
pd <- utils::getParseData(parse(file.path(runner_dir, "runner.R"), keep.source = TRUE))
strings <- pd$text[pd$token == "STR_CONST"]
parts <- sub("^\"(.*)\"$", "\\1", strings[grepl("^\"[a-z-]+[.]R\"$", strings)])
runner <- new.env(parent = baseenv())
runner$runner_dir <- runner_dir
for (part in parts) for (expr in parse(file.path(runner_dir, part), keep.source = FALSE, encoding = "UTF-8")) eval(expr, runner)
rules <- jsonlite::fromJSON(file.path(repo, "layers", "rules", "script-rules.json"), simplifyVector = FALSE)
policy <- runner$compile_policy(rules, input$allowed)
out <- lapply(input$scripts, function(s) {
  errors <- tryCatch(runner$check_script(s$file, policy, s$symbols)$errors,
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

/**
 * Writes the program and its input into `scratch`, runs Rscript once over all `scripts` with
 * `allowed` the packages a script may load, and returns each script's findings.
 */
export async function revalidateCorpus(scratch: string, scripts: readonly CorpusScript[], allowed: ReadonlySet<string>, timeoutMs = 120_000): Promise<Revalidation> {
  const parser = await getParser();
  const program = join(scratch, 'revalidate.R');
  const input = join(scratch, 'revalidate-input.json');
  writeFileSync(program, REVALIDATE);
  writeFileSync(
    input,
    JSON.stringify({
      allowed: [...allowed].sort(),
      scripts: scripts.map((s) => ({ file: s.file, symbols: treeSitterSymbols(parser, s.text, 5000) ?? null })),
    }),
  );
  const run = await execa('Rscript', ['--vanilla', program, repo, input], { reject: false, timeout: timeoutMs, cwd: scratch, maxBuffer: 64 * 1024 * 1024 });
  const parsed = JSON.parse(run.stdout || '[]') as { code: string; symbol: string | null; message: string }[][];
  return {
    findings: parsed.map((fs) => fs.map((f) => ({ code: f.code, symbol: f.symbol ?? undefined, message: f.message }))),
    stderr: run.stderr + (run.timedOut ? `\n(re-validation timed out after ${timeoutMs} ms)` : ''),
  };
}
