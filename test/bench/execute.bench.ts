/**
 * The execute runtime's overhead: median wall time of the handler (one fresh Rscript per call,
 * with and without bubblewrap) next to bare `Rscript -e` of the same code and next to
 * `callr::r()` (the approach of R's own code-runner packages, timed inside one R process so its
 * own start-up is not counted), measured interleaved in this one run. Target: handler <= 1.25x
 * bare Rscript. The handler runs in three containment postures side by side: without the capsule
 * (JUBE_R_CAPSULE=off), with its interposition layer alone (the Lambda posture) and with its
 * kernel layers, so the capsule's cost is the ratio between adjacent rows.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { execa } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readServiceConfig } from '../../layers/config/service-config.ts';
import { createExecuteHandler, type ExecuteHandler } from '../../functions/execute/create-handler.ts';
import { readRuntimeSettings } from '../../functions/execute/runtime-settings.ts';
import { resolveNamespaces } from '../../functions/execute/run/bwrap.ts';
import { median } from './median.ts';
import { callrMedian, timed } from './timing.ts';
import { samples } from './budget.ts';

const ROUNDS = Number(process.env['JUBE_R_BENCH_ROUNDS'] ?? samples(9, 3));
const CASES = [
  { name: '1 + 1', code: '1 + 1' },
  { name: 'library(dplyr)', code: 'library(dplyr)' },
  // File I/O through the capsule's checks: every open resolves and checks its path.
  { name: 'fread + group by', code: 'd <- data.table::as.data.table(mtcars); data.table::fwrite(d, "m.csv"); x <- data.table::fread("m.csv")[, .(m = mean(mpg)), by = cyl]' },
];



export async function run(): Promise<void> {
  // Bare Rscript runs with no workdir of its own: a scratch one keeps what a case writes out of the tree.
  const scratch = mkdtempSync(join(tmpdir(), 'jube-bench-execute-'));
  try {
    await measure(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function measure(scratch: string): Promise<void> {
  const config = readServiceConfig({ ...process.env, JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX: '60' });
  const base = readRuntimeSettings();
  // The bench prints its own table; the handlers' invocation lines would only interleave with it.
  const logger = new Logger({ serviceName: 'jube-r-bench', logLevel: 'SILENT' });
  const capsule = base.containment.capsule;
  const posture = (namespaces: 'none' | 'bwrap', capsuleKernel: 'auto' | 'off' | undefined) => ({
    ...base,
    namespaces,
    containment: { ...base.containment, capsule: capsule && capsuleKernel ? { ...capsule, kernel: capsuleKernel } : undefined },
  });
  const handlers: [string, ExecuteHandler][] = [
    ['handler, no capsule', createExecuteHandler({ config, logger, runtime: posture('none', undefined) })],
  ];
  if (capsule) {
    handlers.push(['handler, capsule (Lambda)', createExecuteHandler({ config, logger, runtime: posture('none', 'off') })]);
    handlers.push(['handler, capsule + kernel', createExecuteHandler({ config, logger, runtime: posture('none', 'auto') })]);
  }
  if ((await resolveNamespaces('auto')).kind === 'bwrap') {
    handlers.push(['handler, bwrap + capsule', createExecuteHandler({ config, logger, runtime: posture('bwrap', capsule ? 'auto' : undefined) })]);
  }
  for (const { name, code } of CASES) {
    const samples = new Map<string, number[]>();
    const add = (k: string, ms: number) => samples.set(k, [...(samples.get(k) ?? []), ms]);
    // One warm-up of each so the page cache and the grammar load are not measured.
    for (const [, h] of handlers) await h({ script: code, timeoutSeconds: 30 });
    await execa('Rscript', ['--vanilla', '-e', code], { cwd: scratch });
    for (let i = 0; i < ROUNDS; i += 1) {
      add('bare Rscript -e', await timed(() => execa('Rscript', ['--vanilla', '-e', code], { cwd: scratch })));
      for (const [label, h] of handlers) {
        add(label, await timed(async () => {
          const response = await h({ script: code, timeoutSeconds: 30 });
          if (response.status !== 'ok') throw new Error(`bench script failed: ${JSON.stringify(response)}`);
        }));
      }
    }
    const callr = await callrMedian(code, scratch, ROUNDS);
    const bare = median(samples.get('bare Rscript -e')!);
    console.log(`\n${name}  (median of ${ROUNDS}, ms; ratio to bare Rscript)`);
    for (const [label, xs] of samples) console.log(`  ${label.padEnd(28)} ${median(xs).toFixed(0).padStart(6)}  ${(median(xs) / bare).toFixed(2)}x`);
    console.log(`  ${'callr::r() in one R'.padEnd(28)} ${callr === undefined ? '   n/a' : callr.toFixed(0).padStart(6)}  ${callr === undefined ? '' : `${(callr / bare).toFixed(2)}x`}`);
  }
}
