/**
 * The R code passes lintr (lintr's own `expect_lint_free()`, from Node): the runner, its tests,
 * the scripts R runs at build time and the R client (clients/r), with the repository's .lintr.
 * There object_usage_linter is off: the runner's tests and scripts use names their harness or
 * caller defines. The runner itself is an R package (r-image/runner), so it is linted as one with
 * object_usage_linter on: loaded with pkgload::load_all(), every part sees the names the others
 * define, and a function no part defines or a local variable never used is a lint.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const LINTED = ['r-image/runner', 'test/runner/r', 'scripts/write-manifest.R', 'scripts/write-help.R', 'clients/r/R', 'clients/r/tests', 'packages.R', 'docs/examples/summary.R'];

const LINT = `
paths <- commandArgs(trailingOnly = TRUE)
lints <- do.call(c, lapply(paths, function(p) if (dir.exists(p)) lintr::lint_dir(p) else lintr::lint(p)))
for (l in lints) cat(sprintf("%s:%d:%d: %s [%s]", l$filename, l$line_number, l$column_number, l$message, l$linter), sep = "\\n")
`;

it('the R code is lint-free', async () => {
  const run = await execa('Rscript', ['--vanilla', '-e', LINT, ...LINTED], { cwd: root, reject: false, timeout: 240_000 });
  expect(run.exitCode, run.stderr).toBe(0);
  expect(run.stdout.split('\n').filter(Boolean)).toEqual([]);
  // lintr over every R file takes tens of seconds on a loaded two-core machine; the test waits as
  // long as the process may run.
}, 250_000);

const LINT_PACKAGE = `
package <- commandArgs(trailingOnly = TRUE)[[1L]]
pkgload::load_all(package, quiet = TRUE, export_all = TRUE)
lints <- lintr::lint_package(package, linters = lintr::object_usage_linter())
for (l in lints) cat(sprintf("%s:%d:%d: %s", basename(l$filename), l$line_number, l$column_number, l$message), sep = "\\n")
`;
const lintPackage = (dir: string) => execa('Rscript', ['--vanilla', '-e', LINT_PACKAGE, dir], { cwd: root, reject: false, timeout: 120_000 });

it('the runner package passes object_usage_linter', async () => {
  const run = await lintPackage('r-image/runner');
  expect(run.exitCode, run.stderr).toBe(0);
  expect(run.stdout.split('\n').filter(Boolean)).toEqual([]);
}, 130_000);

// The control: in a copy of the package, the same lint finds a function no part defines and a
// local variable never used. (lintr leaves out codetools' "no visible binding for global
// variable", so an undefined plain name is the runner tests' to catch: test-runner.R loads every part.)
const copy = mkdtempSync(join(tmpdir(), 'jube-r-lint-'));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

it('a part that calls a function no part defines, or leaves a local variable unused, is a lint', async () => {
  const pkg = join(copy, 'runner');
  cpSync(join(root, 'r-image/runner'), pkg, { recursive: true });
  const main = join(pkg, 'R', 'main.R');
  writeFileSync(main, `${readFileSync(main, 'utf8')}\nlint_control <- function(x) {\n  unused <- 1\n  defined_by_no_part(x)\n}\n`);
  const run = await lintPackage(pkg);
  expect(run.exitCode, run.stderr).toBe(0);
  const lines = run.stdout.split('\n').filter(Boolean);
  expect(lines).toContainEqual(expect.stringMatching(/^main\.R:\d+:\d+: local variable .unused. assigned but may not be used$/));
  expect(lines).toContainEqual(expect.stringMatching(/^main\.R:\d+:\d+: no visible global function definition for .defined_by_no_part.$/));
}, 130_000);
