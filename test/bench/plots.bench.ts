/**
 * The plot capture's cost: median wall time of the execute handler running one ggplot with
 * capture (ragg PNG, the default; and svglite SVG) next to the same script with `plots: false`
 * (R's own default device, a PDF in the workdir that is thrown away), interleaved in this one run.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { readServiceConfig } from '../../layers/config/service-config.ts';
import type { PlotsRequest } from '../../layers/contract/execute.ts';
import { createExecuteHandler } from '../../functions/execute/create-handler.ts';
import { readRuntimeSettings } from '../../functions/execute/runtime-settings.ts';
import { median } from './median.ts';
import { samples } from './budget.ts';

const ROUNDS = Number(process.env['JUBE_R_BENCH_ROUNDS'] ?? samples(9, 3));
const SCRIPT = 'library(ggplot2)\nggplot(mtcars, aes(wt, mpg, colour = factor(cyl))) + geom_point() + geom_smooth(method = "lm", formula = y ~ x) + ggtitle("mtcars")';
const VARIANTS: [string, PlotsRequest][] = [
  ['without capture', false],
  ['capture, PNG (ragg)', true],
  ['capture, SVG (svglite)', { format: 'svg' }],
];

export async function run(): Promise<void> {
  const config = readServiceConfig({ ...process.env, JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX: '60' });
  const logger = new Logger({ serviceName: 'jube-r-bench', logLevel: 'SILENT' });
  const handler = createExecuteHandler({ config, logger, runtime: { ...readRuntimeSettings(), namespaces: 'none' } });
  const samples = new Map<string, number[]>();
  const bytes = new Map<string, number>();
  const once = async (label: string, plots: PlotsRequest) => {
    const started = performance.now();
    const response = await handler({ script: SCRIPT, timeoutSeconds: 30, plots });
    const ms = performance.now() - started;
    if (response.status !== 'ok') throw new Error(`bench script failed: ${JSON.stringify(response)}`);
    bytes.set(label, response.plots?.[0]?.bytes ?? 0);
    return ms;
  };
  for (const [label, plots] of VARIANTS) await once(label, plots);
  for (let i = 0; i < ROUNDS; i += 1) {
    for (const [label, plots] of VARIANTS) samples.set(label, [...(samples.get(label) ?? []), await once(label, plots)]);
  }
  const without = median(samples.get('without capture')!);
  console.log(`\none ggplot  (median of ${ROUNDS}, ms; ratio to the same script without capture; plot size)`);
  for (const [label, xs] of samples) {
    const size = bytes.get(label) ? `${(bytes.get(label)! / 1024).toFixed(1)} KiB` : '-';
    console.log(`  ${label.padEnd(24)} ${median(xs).toFixed(0).padStart(6)}  ${(median(xs) / without).toFixed(2)}x  ${size}`);
  }
}
