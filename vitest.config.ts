import { defineConfig } from 'vitest/config';

// One project per test tier (DESIGN.md section 7); scripts/test.sh decides which run.
export default defineConfig({
  test: {
    // Vitest's default is one worker less than the cores, one on a two-core CI machine; the unit
    // and runner files spend most of their time waiting on an Rscript, so two keep both cores busy.
    // The integration and image tiers stay one file at a time (fileParallelism: false).
    maxWorkers: 2,
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 20_000 } },
      { test: { name: 'runner', include: ['test/runner/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'image',
          include: ['test/image/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 1_800_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
