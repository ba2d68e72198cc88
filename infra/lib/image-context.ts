/**
 * Stages the r-image build context, a build step (infra/bin/app.ts at synth, scripts/image-stage.mts
 * for `npm run image:stage`): the Dockerfile sits plainly at r-image/ (so `sam build` and CDK's
 * image asset find it), and everything else the image needs from the repository (bundled execute
 * handler, rules, grammar, packages.R, runner) is copied into r-image/staged/.
 * Synchronous because the CDK app calls it while synthesizing.
 *
 * staged/
 *   packages.R, write-manifest.R   build-time inputs (R packages to install, manifest writer,
 *   write-help.R                   help-page writer)
 *   app/                           copied to /app as is
 *     handler.mjs                  functions/execute/handler.ts bundled (export `handler`)
 *     rules/script-rules.json     the script rules (JUBE_R_RULES_FILE)
 *     capabilities.json            the capability table (read beside handler.mjs)
 *     wasm/*.wasm                  tree-sitter runtime and R grammar (JUBE_R_*_WASM)
 *     runner/                      the R runner (JUBE_R_RUNNER_SCRIPT)
 */
import { buildSync } from 'esbuild';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TREE_SITTER_WASM_FILES } from '../../layers/parser/wasm-files.ts';
import { ESM_REQUIRE_BANNER } from './esm-bundle.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
/** The image's directory (the only thing infra/ knows of r-image/ is where its Dockerfile is). */
const imageDir = fileURLToPath(new URL('../../r-image/', import.meta.url));

/** Repository file -> path under staged/. */
const COPIES: ReadonlyArray<readonly [string, string]> = [
  ['packages.R', 'packages.R'],
  ['scripts/write-manifest.R', 'write-manifest.R'],
  ['scripts/write-help.R', 'write-help.R'],
  ['layers/rules/script-rules.json', 'app/rules/script-rules.json'],
  // Beside the bundled handler, where layers/rules/capabilities.ts looks (the validator's advice).
  ['layers/rules/capabilities.json', 'app/capabilities.json'],
  ...TREE_SITTER_WASM_FILES.map((file) => [file, `app/wasm/${basename(file)}`] as const),
  ['r-image/runner', 'app/runner'],
];

/** Returns the asset directory (r-image/) after staging. */
export function stageImageContext(): string {
  // Built aside, then synced: a build reading staged/ while `cdk synth` or another build stages
  // again (the test tiers run in parallel) only ever sees complete files of identical content.
  const fresh = mkdtempSync(join(imageDir, '.staging-'));
  try {
    stageInto(fresh);
    syncTree(fresh, join(imageDir, 'staged'));
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
  return imageDir;
}

function stageInto(staged: string): void {
  mkdirSync(join(staged, 'app'), { recursive: true });

  for (const [from, to] of COPIES) {
    const source = join(repoRoot, from);
    if (!existsSync(source)) throw new Error(`image staging: ${from} is missing`);
    mkdirSync(dirname(join(staged, to)), { recursive: true });
    cpSync(source, join(staged, to), { recursive: true });
  }

  buildSync({
    entryPoints: [join(repoRoot, 'functions/execute/handler.ts')],
    outfile: join(staged, 'app/handler.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: { js: ESM_REQUIRE_BANNER },
    legalComments: 'none',
    logLevel: 'warning',
  });

  normalizeModes(staged);
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((entry) => join(dir, entry))
    .filter((path) => statSync(path).isFile())
    .map((path) => relative(dir, path));
}

/** Makes `to` hold exactly `from`'s files, rewriting (atomically, by rename) only those that differ. */
function syncTree(from: string, to: string): void {
  const wanted = new Set(filesUnder(from));
  for (const file of filesUnder(to)) if (!wanted.has(file)) rmSync(join(to, file), { force: true });
  for (const file of wanted) {
    const content = readFileSync(join(from, file));
    const target = join(to, file);
    if (existsSync(target) && readFileSync(target).equals(content)) continue;
    mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, content, { mode: 0o644 });
    chmodSync(temporary, 0o644);
    renameSync(temporary, target);
  }
  normalizeModes(to);
}

/**
 * COPY keeps the context's modes; a checkout's umask must not decide what the image's user may
 * write. Everything becomes 0644 (files) / 0755 (directories); the image makes it root-owned.
 */
function normalizeModes(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) normalizeModes(path);
    else chmodSync(path, 0o644);
  }
}
