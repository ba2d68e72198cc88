/**
 * The warm start (functions/execute/warm/), side by side in this one run: per call, the handler
 * with a warm runner vs the handler cold (JUBE_R_WARM=off) vs bare `Rscript -e` vs `callr::r()`
 * (timed inside one R process), for four scripts; the cost of replacing the runner after a call
 * (time until the next is ready, its resident memory); the same two target scripts through the
 * local stack over HTTP (`POST /t/{tenant}/execute` as `npm start` serves it, its own defaults: warm, bubblewrap
 * where it works), warm vs cold vs bare `Rscript -e`, side by side; and 50 sequential calls through
 * the local stack, warm vs cold, in calls per second. Targets: warm dplyr summary <= 0.25x bare
 * Rscript, warm `1 + 1` <= 0.3x bare, cold no slower than before; over HTTP, warm `1 + 1` and dplyr
 * summary <= 0.5x bare where bubblewrap is active. Under CI=true it stays within about 40 s: the two
 * target scripts only, 3 rounds, no callr row, 5 sequential calls.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readServiceConfig } from '../../layers/config/service-config.ts';
import { createExecuteHandler, type ExecuteHandler } from '../../functions/execute/create-handler.ts';
import { readRuntimeSettings } from '../../functions/execute/runtime-settings.ts';
import { startLocalStack } from '../../functions/tools/local/stack.ts';
import { median } from './median.ts';
import { callrMedian, timed } from './timing.ts';

const CI = process.env['CI'] === 'true';
const ROUNDS = Number(process.env['JUBE_R_BENCH_ROUNDS'] ?? (CI ? 3 : 9));
const SEQUENTIAL = CI ? 5 : 50;
const CASES = [
  { name: '1 + 1', code: '1 + 1' },
  { name: 'dplyr group summary', code: 'library(dplyr); mtcars |> group_by(cyl) |> summarise(m = mean(mpg))' },
  { name: 'ggplot to PNG', code: 'library(ggplot2); png("p.png"); print(ggplot(mtcars, aes(wt, mpg)) + geom_point()); invisible(dev.off())' },
  { name: 'fread + group by', code: 'library(data.table); fwrite(mtcars, "m.csv"); fread("m.csv")[, .(m = mean(mpg)), by = cyl]' },
];



function rssMb(pid: number): number | undefined {
  const kb = /^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb === undefined ? undefined : Number(kb) / 1024;
}

export async function run(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'jube-bench-warm-'));
  try {
    await perCall(scratch);
    await overHttp(scratch);
    await sequential();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function perCall(scratch: string): Promise<void> {
  const logger = new Logger({ serviceName: 'jube-r-bench', logLevel: 'SILENT' });
  const base = readRuntimeSettings();
  // The Lambda posture: the capsule's interposition layer, no kernel layers, no bubblewrap.
  const runtime = { ...base, namespaces: 'none' as const, containment: { ...base.containment, capsule: base.containment.capsule && { ...base.containment.capsule, kernel: 'off' as const } } };
  const handler = (warm: 'on' | 'off') =>
    createExecuteHandler({ config: readServiceConfig({ ...process.env, JUBE_R_WARM: warm, JUBE_R_MAX_INFLIGHT_EXECUTE: '1' }), logger, runtime });
  const warm = handler('on');
  const cold = handler('off');
  const call = async (h: ExecuteHandler, code: string) => {
    const response = await h({ script: code, timeoutSeconds: 30 });
    if (response.status !== 'ok') throw new Error(`bench script failed: ${JSON.stringify(response.error)}`);
  };
  const replace: number[] = [];
  const memory: number[] = [];
  try {
    for (const { name, code } of CI ? CASES.slice(0, 2) : CASES) {
      const samples = new Map<string, number[]>();
      const add = (k: string, ms: number) => samples.set(k, [...(samples.get(k) ?? []), ms]);
      await warm.warmRunners?.();
      await call(warm, code);
      await call(cold, code);
      await execa('Rscript', ['--vanilla', '-e', code], { cwd: scratch });
      for (let i = 0; i < ROUNDS; i += 1) {
        // The refill after a call is off the caller's path: waited for here, outside the timing.
        const readyFrom = performance.now();
        const [pid] = (await warm.warmRunners?.()) ?? [];
        replace.push(performance.now() - readyFrom);
        if (pid !== undefined) memory.push(rssMb(pid) ?? 0);
        add('handler, warm', await timed(() => call(warm, code)));
        add('handler, cold', await timed(() => call(cold, code)));
        add('bare Rscript -e', await timed(() => execa('Rscript', ['--vanilla', '-e', code], { cwd: scratch })));
      }
      const callr = CI ? undefined : await callrMedian(code, scratch, ROUNDS);
      const bare = median(samples.get('bare Rscript -e')!);
      console.log(`\n${name}  (median of ${ROUNDS}, ms; ratio to bare Rscript)`);
      for (const [label, xs] of samples) console.log(`  ${label.padEnd(22)} ${median(xs).toFixed(0).padStart(6)}  ${(median(xs) / bare).toFixed(2)}x`);
      console.log(`  ${'callr::r() in one R'.padEnd(22)} ${callr === undefined ? '   n/a' : callr.toFixed(0).padStart(6)}  ${callr === undefined ? '' : `${(callr / bare).toFixed(2)}x`}`);
    }
    // Measured from the end of the previous call's cold and bare runs, so a lower bound of the full start.
    console.log(`\nreplacing the warm runner after a call: ready ${median(replace).toFixed(0)} ms after the next turn at the latest; resident memory ${median(memory).toFixed(0)} MB`);
  } finally {
    await warm.close?.();
  }
}

/** A local stack as `npm start` runs it (its defaults, JUBE_R_WARM as given), its stderr logs quiet. */
async function quietStack(warm: 'on' | 'off', tmpRoot: string) {
  return startLocalStack({ host: '127.0.0.1', port: 0, lambdaPort: 0, env: { ...process.env, JUBE_R_WARM: warm, JUBE_R_TMP_ROOT: tmpRoot, POWERTOOLS_LOG_LEVEL: 'ERROR' } });
}

async function postScript(url: string, script: string): Promise<void> {
  const response = await fetch(`${url}/t/bench/execute`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ script }) });
  const body = (await response.json()) as { status?: string; error?: unknown };
  if (response.status !== 200 || body.status !== 'ok') throw new Error(`bench call failed: ${response.status} ${JSON.stringify(body)}`);
}

/** Until GET /health says a warm runner is ready (the refill after the previous call is off the caller's path). */
async function warmReady(url: string): Promise<void> {
  for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 20))) {
    const health = (await (await fetch(`${url}/health`)).json()) as { warm?: { state?: string } };
    if (health.warm?.state === 'ready') return;
  }
  throw new Error('no warm runner got ready within 60 s');
}

/**
 * The two target scripts through the local stack over HTTP, each call a full `POST /t/{tenant}/execute`
 * (validation, the invoke, the run, the response), warm and cold stacks side by side with bare
 * `Rscript -e`, interleaved per round so a load change hits all three alike.
 */
async function overHttp(scratch: string): Promise<void> {
  const level = process.env['POWERTOOLS_LOG_LEVEL'];
  process.env['POWERTOOLS_LOG_LEVEL'] = 'ERROR';
  const roots = [mkdtempSync(join(tmpdir(), 'jube-bench-http-')), mkdtempSync(join(tmpdir(), 'jube-bench-http-'))];
  const warm = await quietStack('on', roots[0]!);
  const cold = await quietStack('off', roots[1]!);
  try {
    await Promise.all([warm.warm(), cold.warm()]);
    const sandbox = ((await (await fetch(`${warm.url}/health`)).json()) as { sandbox: { layers: string[] } }).sandbox.layers;
    for (const { name, code } of CASES.slice(0, 2)) {
      const samples = { 'HTTP, warm': [] as number[], 'HTTP, cold': [] as number[], 'bare Rscript -e': [] as number[] };
      await postScript(warm.url, code);
      await postScript(cold.url, code);
      for (let i = 0; i < ROUNDS; i += 1) {
        await warmReady(warm.url);
        samples['HTTP, warm'].push(await timed(() => postScript(warm.url, code)));
        samples['HTTP, cold'].push(await timed(() => postScript(cold.url, code)));
        samples['bare Rscript -e'].push(await timed(() => execa('Rscript', ['--vanilla', '-e', code], { cwd: scratch })));
      }
      const bare = median(samples['bare Rscript -e']);
      console.log(`
${name} through the local stack over HTTP  (median of ${ROUNDS}, ms; ratio to bare Rscript; layers: ${sandbox.join(', ')})`);
      for (const [label, xs] of Object.entries(samples)) console.log(`  ${label.padEnd(22)} ${median(xs).toFixed(0).padStart(6)}  ${(median(xs) / bare).toFixed(2)}x`);
    }
  } finally {
    await Promise.all([warm.close(), cold.close()]);
    for (const root of roots) rmSync(root, { recursive: true, force: true });
    if (level === undefined) delete process.env['POWERTOOLS_LOG_LEVEL'];
    else process.env['POWERTOOLS_LOG_LEVEL'] = level;
  }
}

/** SEQUENTIAL calls one after another through the local stack's HTTP API, warm vs cold. */
async function sequential(): Promise<void> {
  const rates: string[] = [];
  // The stack's handlers log every call at INFO; the table is what this prints.
  const level = process.env['POWERTOOLS_LOG_LEVEL'];
  process.env['POWERTOOLS_LOG_LEVEL'] = 'ERROR';
  for (const warm of ['on', 'off'] as const) {
    const tmpRoot = mkdtempSync(join(tmpdir(), 'jube-bench-stack-'));
    const stack = await startLocalStack({ host: '127.0.0.1', port: 0, lambdaPort: 0, env: { ...process.env, JUBE_R_WARM: warm, JUBE_R_TMP_ROOT: tmpRoot, POWERTOOLS_LOG_LEVEL: 'ERROR' } });
    try {
      await stack.warm();
      const post = async () => {
        const response = await fetch(`${stack.url}/t/bench/execute`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ script: 'x <- c(1, 2, 3)\nmean(x)' }) });
        if (response.status !== 200) throw new Error(`bench call failed: ${response.status} ${await response.text()}`);
      };
      await post();
      // Both slots' runners ready before the clock starts.
      await new Promise((resolve) => setTimeout(resolve, warm === 'on' ? 3000 : 0));
      const ms = await timed(async () => {
        for (let i = 0; i < SEQUENTIAL; i += 1) await post();
      });
      rates.push(`${warm === 'on' ? 'warm' : 'cold'} ${((SEQUENTIAL * 1000) / ms).toFixed(1)} calls/s`);
    } finally {
      await stack.close();
      rmSync(tmpRoot, { recursive: true, force: true });
    }
  }
  if (level === undefined) delete process.env['POWERTOOLS_LOG_LEVEL'];
  else process.env['POWERTOOLS_LOG_LEVEL'] = level;
  console.log(`\n${SEQUENTIAL} sequential calls through the local stack: ${rates.join(', ')}`);
}
