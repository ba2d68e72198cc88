/**
 * npm run bench: every benchmark section, each measuring its candidates side by side in this one
 * run and printing ratios. Not a test: nothing here passes or fails on a number.
 * `npm run bench -- validator execute` runs only the named sections; an unknown name is an error.
 *
 * Under CI=true every section runs in its own process, killed at its time budget (a section that
 * runs over prints what it had and "over budget"), and the sections measure fewer samples
 * (`inCi`): CI reports the numbers in about three minutes; the full run stays `npm run bench`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inCi } from './budget.ts';

// The AWS SDK's notice about Node versions to come is not a benchmark's output (`npm start` sets the same).
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

const SECTIONS = {
  validator: () => import('./validator.bench.ts'),
  execute: () => import('./execute.bench.ts'),
  plots: () => import('./plots.bench.ts'),
  image: () => import('./image.bench.ts'),
  jit: () => import('./jit.bench.ts'),
  help: () => import('./help.bench.ts'),
  warm: () => import('./warm.bench.ts'),
  session: () => import('./session.bench.ts'),
  examples: () => import('./examples.bench.ts'),
  vignettes: () => import('./vignettes.bench.ts'),
} satisfies Record<string, () => Promise<{ run: () => Promise<void> }>>;
type SectionName = keyof typeof SECTIONS;

/** Seconds each section may take under CI (every section has one); together about three minutes (208 s). */
export const CI_SECTION_BUDGET_SECONDS: Readonly<Record<SectionName, number>> = {
  validator: 30,
  execute: 40,
  plots: 25,
  image: 20,
  jit: 15,
  help: 5,
  warm: 35,
  session: 20,
  examples: 12,
  vignettes: 6,
};

const CHILD = '--section-child';
const args = process.argv.slice(2);
const wanted = args.filter((a) => !a.startsWith('-'));
const isSection = (name: string): name is SectionName => Object.hasOwn(SECTIONS, name);
const unknown = wanted.filter((name) => !isSection(name));
if (unknown.length > 0) {
  console.error(`npm run bench: unknown section ${unknown.map((n) => `'${n}'`).join(', ')}; the sections are: ${Object.keys(SECTIONS).join(', ')}`);
  process.exit(2);
}

if (args.includes(CHILD)) {
  await (await SECTIONS[wanted[0] as SectionName]()).run(); // checked by isSection above
} else {
  for (const [name, load] of Object.entries(SECTIONS) as [SectionName, (typeof SECTIONS)[SectionName]][]) {
    if (wanted.length > 0 && !wanted.includes(name)) continue;
    console.log(`\n== ${name} ==`);
    const started = Date.now();
    if (inCi()) {
      const budgetMs = CI_SECTION_BUDGET_SECONDS[name] * 1000;
      // A section stopped at its budget never reaches its own clean-up: its scratch dirs go here.
      const scratch = mkdtempSync(join(tmpdir(), `jube-bench-${name}-section-`));
      const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), name, CHILD], {
        stdio: 'inherit',
        timeout: budgetMs,
        killSignal: 'SIGKILL',
        env: { ...process.env, JUBE_R_BENCH_SCRATCH: scratch },
      });
      rmSync(scratch, { recursive: true, force: true });
      if (child.error && (child.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') console.log(`  ${name}: over its CI budget of ${budgetMs / 1000} s, stopped`);
      else if (child.status !== 0) process.exitCode = 1;
    } else {
      await load().then((section) => section.run());
    }
    console.log(`  (${name}: ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
}
