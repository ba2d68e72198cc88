/**
 * The benign corpus's acceptance rate ("fewer false rejections"): how many of the
 * realistic analysis scripts in test/fixtures/corpus/benign each validator accepts, with the rules
 * as shipped and, in the same run, without their relaxations (every relaxation list emptied,
 * as.formula/reformulate forbidden again: the rules as they were before them). The static
 * validator is timed per script too; the R re-validation runs once over the whole corpus in one
 * Rscript. Whether the accepted scripts also run to `status: "ok"` is test/runner/benign-corpus.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { allowedPackages, loadRules, type ScriptRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { median } from './median.ts';

const corpusDir = fileURLToPath(new URL('../fixtures/corpus/benign/', import.meta.url));
const repo = fileURLToPath(new URL('../../', import.meta.url));

/** The shipped rules with every relaxation switched off. */
export function withoutRelaxations(rules: ScriptRules): ScriptRules {
  const strict = structuredClone(rules);
  const relax = strict.relaxations;
  relax.columnNames.operators = [];
  relax.columnNames.columnFunctions = [];
  relax.columnNames.columnSets.functions = [];
  relax.literalFunctionNames.functions = {};
  relax.localBlocks.functions = [];
  relax.savedOptions.functions = [];
  strict.forbiddenSymbols['codeFromText']!.symbols.push('as.formula', 'reformulate');
  return strict;
}

/** The files the R re-validation rejects (check_script with every rule but the parser cross-check). */
const R_PROGRAM = String.raw`
args <- commandArgs(TRUE)
runner <- new.env(parent = baseenv())
runner$runner_dir <- file.path(args[1], "r-image", "runner")
pd <- utils::getParseData(parse(file.path(args[1], "r-image", "runner", "runner.R"), keep.source = TRUE))
parts <- sub('^"(.*)"$', "\\1", grep('^"[a-z-]+[.]R"$', pd$text[pd$token == "STR_CONST"], value = TRUE))
for (part in parts) for (e in parse(file.path(args[1], "r-image", "runner", part), keep.source = FALSE)) eval(e, runner)
input <- jsonlite::fromJSON(args[2], simplifyVector = FALSE)
policy <- runner$compile_policy(input$rules, input$allowed)
only <- c(names(runner$token_rules), names(runner$call_rules))
rejected <- Filter(function(f) length(runner$check_script(f, policy, NULL, only = only)$errors) > 0L, unlist(input$files))
cat(jsonlite::toJSON(basename(unlist(rejected))))
`;

function rejectedInR(rules: ScriptRules, allowed: readonly string[], files: readonly string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'jube-bench-corpus-'));
  try {
    const input = join(dir, 'input.json');
    writeFileSync(input, JSON.stringify({ rules, allowed, files }));
    writeFileSync(join(dir, 'check.R'), R_PROGRAM);
    return JSON.parse(execFileSync('Rscript', ['--vanilla', join(dir, 'check.R'), repo, input], { encoding: 'utf8' })) as string[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rate = (accepted: number, total: number): string => `${accepted}/${total} accepted (${((100 * accepted) / total).toFixed(1)}%)`;

export async function run(): Promise<void> {
  const files = readdirSync(corpusDir).filter((f) => f.endsWith('.R')).sort();
  const texts = files.map((f) => readFileSync(join(corpusDir, f), 'utf8'));
  const shipped = loadRules();
  const strict = withoutRelaxations(shipped);
  const packages = manifestPackages(loadManifest());
  console.log(`benign corpus: ${files.length} scripts (test/fixtures/corpus/benign)`);
  let strictRejected: string[] = [];
  for (const [label, rules] of [['rules as shipped', shipped], ['without the relaxations', strict]] as const) {
    const validate = await loadValidator({ rules, ...packages });
    const ms: number[] = [];
    const rejected = files.filter((_, i) => {
      const t0 = performance.now();
      const valid = validate(texts[i]!).valid;
      ms.push(performance.now() - t0);
      return !valid;
    });
    if (rules === strict) strictRejected = rejected;
    console.log(`  static validator, ${label.padEnd(24)} ${rate(files.length - rejected.length, files.length)}  median ${median(ms).toFixed(2)} ms/script`);
    if (rules === shipped && rejected.length > 0) console.log(`    rejected: ${rejected.join(', ')}`);
  }
  const allowed = [...allowedPackages(shipped, packages.declaredPackages)];
  const paths = files.map((f) => join(corpusDir, f));
  for (const [label, rules] of [['rules as shipped', shipped], ['without the relaxations', strict]] as const) {
    const rejected = rejectedInR(rules, allowed, paths);
    console.log(`  R re-validation, ${label.padEnd(25)} ${rate(files.length - rejected.length, files.length)}`);
    if (rules === shipped && rejected.length > 0) console.log(`    rejected: ${rejected.join(', ')}`);
  }
  console.log(`  accepted only thanks to the relaxations: ${strictRejected.join(', ') || 'none'}`);
}
