/**
 * The reserved-concurrency cap over real HTTP with real R: /health stays fast while the cap is
 * full, a flood beyond the cap is refused at once with 503 + Retry-After (never queued, never run
 * twice), every accepted execution completes, and SIGTERM leaves no R process behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecuteResponseSchema } from '../../layers/contract/execute.ts';
import { liveWorkdirs, postJson, processesMentioning, request, startStack, type RunningStack } from './local-stack.ts';

const CAP = 2;
let stack: RunningStack;

beforeAll(async () => {
  stack = await startStack({ JUBE_R_MAX_INFLIGHT_EXECUTE: String(CAP), JUBE_R_SCRIPT_TIMEOUT_SECONDS: '20' });
  // Warm: the validator, the execute handler and the sandbox probe, so timings measure serving only.
  await request(`${stack.url}/health`);
  await postJson(`${stack.url}/t/acme/execute`, { script: '1' });
});
afterAll(async () => {
  await stack?.stop();
});

/** Polls /proc until stopped, collecting every R workdir seen meanwhile. */
function watchWorkdirs(tmpRoot: string) {
  const seen = new Set<string>();
  let running = true;
  const done = (async () => {
    while (running) {
      for (const dir of await liveWorkdirs(tmpRoot)) seen.add(dir);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    seen,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

describe('the reserved-concurrency cap', () => {
  it('answers /health while two slow scripts occupy the cap, without waiting for either', async () => {
    let settled = 0;
    const slow = [1, 2].map(() => postJson(`${stack.url}/t/acme/execute`, { script: 'Sys.sleep(10)\ncat("slept")' }).finally(() => (settled += 1)));
    expect(await waitFor(async () => (await liveWorkdirs(stack.tmpRoot)).size === CAP, 15_000)).toBe(true);

    const health = await request(`${stack.url}/health`);

    expect(health.status).toBe(200);
    // Answered while both runs still held their slots (each sleeps 10 s): not behind the cap.
    expect(settled).toBe(0);
    const done = await Promise.all(slow);
    expect(done.map((a) => a.json['status'])).toEqual(['ok', 'ok']);
  });

  it('refuses a flood beyond the cap at once with 503 + Retry-After; nothing queued or run twice', async () => {
    const FLOOD = 8;
    const watcher = watchWorkdirs(stack.tmpRoot);
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: FLOOD }, async (_, i) => {
        const answer = await postJson(`${stack.url}/t/acme/execute`, { script: `cat("run-${i}\\n")\nSys.sleep(3)` });
        return { i, answer, at: performance.now() - started };
      }),
    );
    await watcher.stop();

    const accepted = answers.filter((a) => a.answer.status === 200);
    const throttled = answers.filter((a) => a.answer.status === 503);
    expect(accepted.length + throttled.length).toBe(FLOOD);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(accepted.length).toBeLessThanOrEqual(CAP);
    for (const { answer, at } of throttled) {
      expect(answer.json).toMatchObject({ code: 'THROTTLED' });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Refused while the accepted scripts (3 s of sleep each) were still running: not queued.
      expect(at).toBeLessThan(Math.min(...accepted.map((a) => a.at)));
    }
    for (const { i, answer } of accepted) {
      const response = ExecuteResponseSchema.parse(answer.json);
      expect(response.status).toBe('ok');
      expect(response.consoleOutput.match(new RegExp(`run-${i}\\b`, 'g'))).toHaveLength(1);
    }
    // One R process tree per accepted call, none for a refused one, none twice.
    expect(watcher.seen.size).toBe(accepted.length);
  });
});

describe('shutdown', () => {
  it('exits cleanly on SIGTERM with a script running and leaves no R process behind', async () => {
    const running = postJson(`${stack.url}/t/acme/execute`, { script: 'Sys.sleep(30)' }).catch((error: unknown) => error);
    expect(await waitFor(async () => (await liveWorkdirs(stack.tmpRoot)).size === 1, 15_000)).toBe(true);
    const tmpRoot = stack.tmpRoot;

    const exit = await stack.stop('SIGTERM');

    expect(exit).toEqual({ code: 0, signal: null });
    expect(await processesMentioning(tmpRoot)).toEqual([]);
    await running;
  });

  it('exits cleanly on SIGINT (Ctrl-C) too', async () => {
    const idle = await startStack();
    expect((await request(`${idle.url}/health`)).status).toBe(200);

    expect(await idle.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect(idle.output()).toContain('jube-r: stopped');
  });
});
