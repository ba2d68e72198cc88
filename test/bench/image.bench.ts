/**
 * The image: its size, and the cold start (container start to the first response through the
 * Runtime API emulator) beside a warm invocation in the same environment, median of a few runs;
 * then what a new isolation key costs (`isolation: run`, or any first call of a tenant or session):
 * consecutive calls that each carry a new TenantId (each a new container, a cold start) beside the
 * same calls with one key (one warm container). Needs the image (`npm run image:build`) and rootful podman; says so and returns otherwise.
 */
import { randomUUID } from 'node:crypto';
import { execa } from 'execa';
import { DEFAULT_IMAGE, PODMAN, startContainerRuntime } from '../../functions/tools/local/container-runtime.ts';
import { median } from './median.ts';
import { samples } from './budget.ts';

const RUNS = samples(3, 2);
const EVENT = { script: 'cat(1 + 1)', timeoutSeconds: 10 };

export async function run(): Promise<void> {
  const image = process.env['JUBE_R_IMAGE'] ?? DEFAULT_IMAGE;
  const exists = await execa(PODMAN[0], [...PODMAN.slice(1), 'image', 'exists', image], { reject: false });
  if (exists.exitCode !== 0) {
    console.log(`image: skipped, ${image} is not built here (npm run image:build builds it)`);
    return;
  }
  const { stdout: size } = await execa(PODMAN[0], [...PODMAN.slice(1), 'image', 'inspect', '--format', '{{.Size}}', image]);
  console.log(`image size: ${(Number(size) / 1024 / 1024).toFixed(0)} MiB (${image})`);

  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const started = performance.now();
    const runtime = await startContainerRuntime({ image });
    try {
      const first = await runtime.invoke(EVENT, { requestId: randomUUID(), timeoutMs: 60_000 });
      cold.push(performance.now() - started);
      const warmStart = performance.now();
      const second = await runtime.invoke(EVENT, { requestId: randomUUID(), timeoutMs: 60_000 });
      warm.push(performance.now() - warmStart);
      if (!first.ok || !second.ok) throw new Error(`invocation failed: ${JSON.stringify(first.ok ? second : first)}`);
    } finally {
      await runtime.close();
    }
  }
  const c = median(cold);
  const w = median(warm);
  console.log(`cold start (container start -> first response), median of ${RUNS}: ${c.toFixed(0)} ms`);
  console.log(`warm invocation (same container), median of ${RUNS}: ${w.toFixed(0)} ms`);
  console.log(`cold / warm: ${(c / w).toFixed(2)}x`);

  /** Median per-call time over RUNS calls, after one warm-up call; `keyOf(i)` is call i's TenantId. */
  const perCall = async (keyOf: (i: number) => string): Promise<number> => {
    const runtime = await startContainerRuntime({ image, eager: false });
    try {
      await runtime.invoke(EVENT, { requestId: randomUUID(), timeoutMs: 60_000, tenantId: keyOf(-1) });
      const times: number[] = [];
      for (let i = 0; i < RUNS; i += 1) {
        const started = performance.now();
        const outcome = await runtime.invoke(EVENT, { requestId: randomUUID(), timeoutMs: 60_000, tenantId: keyOf(i) });
        if (!outcome.ok) throw new Error(`invocation failed: ${JSON.stringify(outcome)}`);
        times.push(performance.now() - started);
      }
      return median(times);
    } finally {
      await runtime.close();
    }
  };
  const sameKey = await perCall(() => 'acme_s1');
  const newKey = await perCall((i) => `acme__run${i + 1}`);
  console.log(`per call, one isolation key (warm environment): ${sameKey.toFixed(0)} ms; a new key per call (isolation: run): ${newKey.toFixed(0)} ms (${(newKey / sameKey).toFixed(2)}x)`);
}
