/**
 * r-image/runner is an R package (DESCRIPTION, NAMESPACE, R/): runner.R loads its parts from the
 * files, never from an installed copy, so installing it is how its own coherence is checked. R's
 * installer collates the DESCRIPTION's Collate list against R/ (a file missing from either side
 * stops it) and byte-compiles every part; loading the installed namespace checks NAMESPACE's
 * exports against what the parts define.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const library = mkdtempSync(join(tmpdir(), 'jube-r-runner-lib-'));
afterAll(() => rmSync(library, { recursive: true, force: true }));

it('R CMD INSTALL installs the runner package, and its namespace loads with the exports NAMESPACE names', async () => {
  const install = await execa('R', ['CMD', 'INSTALL', '--no-test-load', `--library=${library}`, 'r-image/runner'], { cwd: root, reject: false });
  expect(install.exitCode, `${install.stdout}\n${install.stderr}`).toBe(0);
  expect(`${install.stdout}\n${install.stderr}`).toContain('* DONE (juberunner)');

  const exports = await execa(
    'Rscript',
    ['--vanilla', '-e', 'cat(sort(getNamespaceExports(loadNamespace("juberunner", lib.loc = commandArgs(TRUE)))), sep = "\\n")', library],
    { reject: false },
  );
  expect(exports.exitCode, exports.stderr).toBe(0);
  expect(exports.stdout.split('\n').filter(Boolean)).toEqual(['load_seam', 'main']);
}, 120_000);
