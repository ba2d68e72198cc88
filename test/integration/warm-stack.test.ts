/**
 * The local stack's warm start (`jube-r serve` with JUBE_R_WARM=on, the default of `npm start`):
 * one warm runner per execution slot, each call served by one and replaced, and none left once
 * the stack stops; with no variable at all, through `npm start`'s own entry, it is on, GET /health
 * says so, and an idle warm runner waits after a call.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, processesMentioning, startStack, type RunningStack } from './local-stack.ts';

// No bubblewrap: one process per runner (bwrap would add its own, which mentions the workdir too).
let stack: RunningStack;
const SLOTS = 2;

beforeAll(async () => {
  stack = await startStack({ JUBE_R_WARM: 'on', JUBE_R_MAX_INFLIGHT_EXECUTE: String(SLOTS), JUBE_R_NAMESPACES: 'none' });
});
afterAll(async () => {
  await stack.stop();
});

/** The stack's idle warm runners: its R processes started with --warm and not yet handed a call. */
const warmRunners = async () => (await processesMentioning(stack.tmpRoot)).filter((p) => p.cmdline.some((a) => a.startsWith('--warm=')));

/**
 * The pool once it has settled: SLOTS runners, the same pids on two reads a second apart. On a
 * loaded machine a runner that misses its readiness ping is being replaced while it is counted,
 * so one read can see a slot's old and new runner together.
 */
async function settledPool(ms: number): Promise<Set<number> | undefined> {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(100)) {
    const first = (await warmRunners()).map((p) => p.pid);
    if (first.length !== SLOTS) continue;
    await sleep(1_000);
    const second = (await warmRunners()).map((p) => p.pid);
    if (second.length === SLOTS && second.every((pid) => first.includes(pid))) return new Set(second);
  }
  return undefined;
}

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(100)) if (await check()) return true;
  return check();
}

describe('the local stack with the warm start', () => {
  it('keeps one warm runner per execution slot, serves calls from them, and leaves none after it stops', async () => {
    // The execute handler loads with the first call; its pool fills then.
    const first = await postJson(`${stack.url}/t/acme/execute`, { script: 'x <- c(1, 2, 3)\nmean(x)' });
    expect(first.status).toBe(200);
    const before = await settledPool(30_000);
    expect(before).toBeDefined();

    const second = await postJson(`${stack.url}/t/acme/execute`, { script: 'cat(6 * 7)' });

    expect(second.status).toBe(200);
    expect(second.json['consoleOutput']).toBe('42');
    // The runner that served it is gone and a new one took its slot. (At least one: on a loaded
    // machine a runner that misses its readiness ping is replaced too, which is the mechanism.)
    const after = await settledPool(30_000);
    expect(after?.size).toBe(SLOTS);
    expect([...(after ?? [])].filter((pid) => !before?.has(pid)).length).toBeGreaterThanOrEqual(1);
    const tmpRoot = stack.tmpRoot;
    await stack.stop('SIGTERM');
    expect(await waitFor(async () => (await processesMentioning(tmpRoot)).length === 0, 20_000)).toBe(true);
  });
});

describe("npm start's entry with no variables (scripts/jube-r.mjs serve)", () => {
  it('starts warm: GET /health says the warm start is on, and after a call an idle warm runner waits for the next', async () => {
    // '' is unset (the helper turns the warm start off unless told): the stack's own default.
    const plain = await startStack({ JUBE_R_WARM: '' });
    try {
      const health = async () => (await (await fetch(`${plain.url}/health`)).json()) as { warm: { enabled?: boolean; state: string; idleRunners?: number } };
      const runners = async () => (await processesMentioning(plain.tmpRoot)).filter((p) => p.cmdline.some((a) => a.startsWith('--warm=')));

      const before = await health();
      const call = await postJson(`${plain.url}/t/acme/execute`, { script: 'cat(1 + 1)' });

      expect(before.warm.enabled).toBe(true);
      expect(call.status).toBe(200);
      expect(call.json['consoleOutput']).toBe('2');
      // The runner that served it is replaced after the answer; /health counts the ready ones.
      expect(await waitFor(async () => (await health()).warm.state === 'ready' && (await runners()).length >= 1, 60_000)).toBe(true);
      expect((await health()).warm.idleRunners).toBeGreaterThanOrEqual(1);
    } finally {
      await plain.stop();
    }
  });
});
