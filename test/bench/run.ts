/**
 * npm run bench: every benchmark section, each measuring its candidates side by side in this one
 * run and printing ratios. Not a test: nothing here passes or fails on a number.
 * `npm run bench -- validator execute` runs only the named sections.
 */
const SECTIONS: Record<string, () => Promise<{ run: () => Promise<void> }>> = {
  validator: () => import('./validator.bench.ts'),
  corpus: () => import('./corpus.bench.ts'),
  execute: () => import('./execute.bench.ts'),
  plots: () => import('./plots.bench.ts'),
  image: () => import('./image.bench.ts'),
  jit: () => import('./jit.bench.ts'),
  warm: () => import('./warm.bench.ts'),
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
for (const [name, load] of Object.entries(SECTIONS)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`\n== ${name} ==`);
  await (await load()).run();
}
