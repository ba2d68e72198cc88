/**
 * The R code passes lintr with the repository's .lintr (lintr's own `expect_lint_free()`, from
 * Node): the runner, its tests, the scripts R runs at build time and the R client (clients/r).
 * object_usage_linter is off there because the runner's parts share one environment, so each file uses names another defines;
 * test/runner/r/test-runner.R loads them all, which catches a name no part defines.
 */
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { expect, it } from 'vitest';

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
