/**
 * The validator of an earlier build, for side-by-side timing in the same run
 * (test/bench/validator.bench.ts): that commit's `layers/` extracted with `git archive` into a scratch
 * directory (the repository's node_modules linked in, this checkout's generated package manifest
 * copied in, in that build's shape) and imported from there. JUBE_R_BENCH_BASELINE_REF names the commit (default: the
 * last build before capabilities moved below R); undefined when the clone does not hold it.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const DEFAULT_BASELINE_REF = '91e89ec';

const repo = fileURLToPath(new URL('../../', import.meta.url));

export interface BaselineValidator {
  readonly ref: string;
  readonly validate: (script: string) => { valid: boolean };
  readonly close: () => void;
}

export async function loadBaselineValidator(ref = process.env['JUBE_R_BENCH_BASELINE_REF'] ?? DEFAULT_BASELINE_REF): Promise<BaselineValidator | undefined> {
  try {
    execFileSync('git', ['cat-file', '-e', `${ref}^{commit}`], { cwd: repo, stdio: 'ignore' });
  } catch {
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'jube-bench-baseline-'));
  const close = () => rmSync(dir, { recursive: true, force: true });
  try {
    execFileSync('sh', ['-c', `git archive "$1" layers | tar -x -C "$2"`, 'sh', ref, dir], { cwd: repo });
    symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
    mkdirSync(join(dir, 'layers', 'packages'), { recursive: true });
    const here = join(repo, 'layers', 'packages');
    if (existsSync(join(here, 'help.json.gz'))) copyFileSync(join(here, 'help.json.gz'), join(dir, 'layers', 'packages', 'help.json.gz'));
    // The manifest as that build wrote it: it listed only declared and base packages by source.
    const manifest = JSON.parse(readFileSync(join(here, 'manifest.json'), 'utf8')) as { packages: { source: string }[] };
    manifest.packages = manifest.packages.filter((p) => p.source === 'packages.R' || p.source === 'base');
    writeFileSync(join(dir, 'layers', 'packages', 'manifest.json'), JSON.stringify(manifest));
    const at = (path: string) => pathToFileURL(join(dir, path)).href;
    const { loadValidator } = (await import(at('layers/validator/validator.ts'))) as { loadValidator: (o: unknown) => Promise<(s: string) => { valid: boolean }> };
    const { loadRules } = (await import(at('layers/rules/rules.ts'))) as { loadRules: () => unknown };
    const { loadManifest } = (await import(at('layers/packages/manifest.ts'))) as { loadManifest: () => unknown };
    const { manifestPackages } = (await import(at('layers/validator/package-lists.ts'))) as { manifestPackages: (m: unknown) => object };
    const validate = await loadValidator({ rules: loadRules(), ...manifestPackages(loadManifest()) });
    return { ref, validate, close };
  } catch (error) {
    close();
    console.log(`  baseline ${ref}: could not be loaded (${String(error).split('\n')[0]})`);
    return undefined;
  }
}
