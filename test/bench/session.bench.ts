/**
 * Sessions (docs/sessions.md), side by side in this one run through the local stack over HTTP
 * (warm): call 1 loads dplyr and makes a 100k-row data frame; then the second call of the session
 * (its workspace restored from the snapshot) vs a session-less call that redoes call 1 first. Also
 * call 1 with and without a session (the difference is writing the snapshot, gzip and store
 * included), the snapshot's bytes (its JSON, and gzipped as stored), and what restoring costs a
 * call whose workspace is small. There is no `continued`
 * row: no session's R process outlives its call (docs/sessions.md, "Not built").
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { startLocalStack } from '../../functions/tools/local/stack.ts';
import { samples } from './budget.ts';
import { median } from './median.ts';
import { timed } from './timing.ts';

const ROUNDS = samples(7, 3);
const MAKE = 'library(dplyr)\nset.seed(1)\nbig <- data.frame(x = runif(1e5), g = sample(letters, 1e5, TRUE))';
const USE = 'big |> group_by(g) |> summarise(m = mean(x)) |> nrow()';

export async function run(): Promise<void> {
  const level = process.env['POWERTOOLS_LOG_LEVEL'];
  process.env['POWERTOOLS_LOG_LEVEL'] = 'ERROR';
  const tmpRoot = mkdtempSync(join(tmpdir(), 'jube-bench-session-'));
  const sessionDir = mkdtempSync(join(tmpdir(), 'jube-bench-session-store-'));
  const stack = await startLocalStack({
    host: '127.0.0.1', port: 0, lambdaPort: 0,
    env: { ...process.env, JUBE_R_WARM: 'on', JUBE_R_TMP_ROOT: tmpRoot, JUBE_R_SESSION_DIR: sessionDir, POWERTOOLS_LOG_LEVEL: 'ERROR' },
  });
  const post = async (script: string, session?: string) => {
    const response = await fetch(`${stack.url}/t/bench/execute`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(session ? { 'X-Jube-Session': session } : {}) },
      body: JSON.stringify({ script, timeoutSeconds: 20 }),
    });
    const body = (await response.json()) as { status?: string; session?: { state?: string } };
    if (response.status !== 200 || body.status !== 'ok') throw new Error(`bench call failed: ${response.status} ${JSON.stringify(body).slice(0, 500)}`);
    return body;
  };
  // The refill after a call is off the caller's path: waited for, outside the timing.
  const ready = async () => {
    for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 20))) {
      const health = (await (await fetch(`${stack.url}/health`)).json()) as { warm?: { state?: string } };
      if (health.warm?.state === 'ready') return;
    }
    throw new Error('no warm runner got ready within 60 s');
  };
  const timedWarm = async (call: () => Promise<unknown>) => {
    await ready();
    return timed(call);
  };
  try {
    await stack.warm();
    await post('1');
    const rows = { 'a small workspace: call 2, restored': [] as number[], 'a small workspace: the same call, no session': [] as number[], 'call 1, no session': [] as number[], 'call 1, in a session (+ snapshot write)': [] as number[], 'call 2, restored': [] as number[], 'call 2 without a session (redoes call 1)': [] as number[] };
    let bytes = { json: 0, stored: 0 };
    for (let i = 0; i < ROUNDS; i += 1) {
      const session = `bench-${i}`;
      await post('x <- 1:10\ny <- "a"', `${session}-small`);
      rows['a small workspace: call 2, restored'].push(await timedWarm(() => post('sum(x)', `${session}-small`)));
      rows['a small workspace: the same call, no session'].push(await timedWarm(() => post('x <- 1:10\nsum(x)')));
      rows['call 1, no session'].push(await timedWarm(() => post(MAKE)));
      rows['call 1, in a session (+ snapshot write)'].push(await timedWarm(() => post(MAKE, session)));
      rows['call 2, restored'].push(await timedWarm(async () => {
        const answer = await post(USE, session);
        if (answer.session?.state !== 'restored') throw new Error(`the session was not restored: ${JSON.stringify(answer.session)}`);
      }));
      rows['call 2 without a session (redoes call 1)'].push(await timedWarm(() => post(`${MAKE}\n${USE}`)));
      const stored = JSON.parse(readFileSync(join(sessionDir, 'bench', `${session}.json`), 'utf8')) as { snapshot: string };
      bytes = { json: gunzipSync(Buffer.from(stored.snapshot, 'base64')).length, stored: Buffer.byteLength(stored.snapshot) };
    }
    const redo = median(rows['call 2 without a session (redoes call 1)']);
    console.log(`\nthe second call of a session after library(dplyr) + a 100k-row data frame, over HTTP, warm  (median of ${ROUNDS}, ms; ratio to redoing call 1)`);
    for (const [label, xs] of Object.entries(rows)) console.log(`  ${label.padEnd(42)} ${median(xs).toFixed(0).padStart(6)}  ${(median(xs) / redo).toFixed(2)}x`);
    console.log(`  snapshot: ${(bytes.json / 1024).toFixed(0)} KiB of JSON, ${(bytes.stored / 1024).toFixed(0)} KiB stored (base64 of its gzip)`);
  } finally {
    await stack.close();
    rmSync(tmpRoot, { recursive: true, force: true });
    rmSync(sessionDir, { recursive: true, force: true });
    if (level === undefined) delete process.env['POWERTOOLS_LOG_LEVEL'];
    else process.env['POWERTOOLS_LOG_LEVEL'] = level;
  }
}
