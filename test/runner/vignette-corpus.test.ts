/**
 * The installed vignettes' code of the packages in packages.R (test/bench/vignette-corpus.ts) has
 * no false rejection: every finding of the TypeScript validator and of the runner's re-validation
 * in R is a documented security necessity (VIGNETTE_NECESSITIES) or names a package the allow-list
 * does not hold, and the two validators find the same things. Validate-only, so it takes seconds;
 * `npm run bench -- vignettes` also runs the corpus (plain R, then the execute handler).
 */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { treeSitterSymbols } from '../../layers/parser/symbol-inventory.ts';
import { getParser } from '../../layers/parser/tree-sitter.ts';
import { allowedPackages, loadRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { classify, collectVignettes, findingKey, type Finding } from '../bench/vignette-corpus.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));

// The runner's re-validation alone, loaded as runner.R loads its parts, on each vignette.
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
  errors <- runner$check_script(s$file, policy, s$symbols)$errors
  lapply(errors, function(e) list(code = e$code, symbol = if (is.null(e$symbol)) NULL else e$symbol, message = e$message))
})
cat(jsonlite::toJSON(out, auto_unbox = TRUE, null = "null"))
`;

const scratch = mkdtempSync(join(tmpdir(), 'jube-vignette-corpus-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const corpus = collectVignettes(scratch);
const rules = loadRules();
const manifest = loadManifest();
const loadable = allowedPackages(rules, manifest.declared);
const validate = await loadValidator({ rules, ...manifestPackages(manifest) });
const parser = await getParser();
const texts = corpus.scripts.map((v) => readFileSync(v.file, 'utf8'));
const tsFindings: Finding[][] = texts.map((text) => validate(text).errors.map((e) => ({ code: e.code, symbol: e.symbol, message: e.message })));

writeFileSync(join(scratch, 'revalidate.R'), REVALIDATE);
writeFileSync(
  join(scratch, 'input.json'),
  JSON.stringify({
    allowed: [...loadable].sort(),
    scripts: corpus.scripts.map((v, i) => ({ file: v.file, symbols: treeSitterSymbols(parser, texts[i]!, 5000) ?? null })),
  }),
);
const revalidated = await execa('Rscript', ['--vanilla', join(scratch, 'revalidate.R'), repo, join(scratch, 'input.json')], { reject: false, timeout: 60_000 });
const rFindings = JSON.parse(revalidated.stdout || '[]') as { code: string; symbol: string | null; message: string }[][];

const keys = (findings: readonly Finding[]): string[] => [...new Set(findings.map(findingKey))].sort();
const falseRejections = (findings: readonly Finding[]): string[] =>
  keys(findings.filter((f) => classify(f, loadable) === 'false'));

describe('the vignette corpus has no false rejection', () => {
  it('holds the vignettes with code of packages.R', () => {
    expect(revalidated.stderr).toBe('');
    expect(corpus.scripts.length).toBeGreaterThanOrEqual(60);
    expect(rFindings).toHaveLength(corpus.scripts.length);
  });

  it.each(corpus.scripts.map((v, i) => [`${v.package}/${v.vignette}`, i] as const))('%s: /validate rejects nothing but the necessities', (_, i) => {
    expect(falseRejections(tsFindings[i]!)).toEqual([]);
  });

  it.each(corpus.scripts.map((v, i) => [`${v.package}/${v.vignette}`, i] as const))('%s: the R re-validation finds the same', (_, i) => {
    const r = (rFindings[i] ?? []).map((f) => ({ code: f.code, symbol: f.symbol ?? undefined, message: f.message }));
    expect(falseRejections(r)).toEqual([]);
    expect(keys(r)).toEqual(keys(tsFindings[i]!));
  });
});
