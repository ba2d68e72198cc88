/**
 * The warm start with host R and the capsule armed (functions/execute/warm/): a pre-spawned
 * runner takes the call, evaluates nothing of the script before arming, carries nothing from one
 * call to the next, and one that died, wedged or got stale is replaced while the call runs cold.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptEverything, harness, type Harness } from './helpers.ts';

const outside = mkdtempSync(join(tmpdir(), 'jube-r-warm-outside-'));
afterAll(() => rmSync(outside, { recursive: true, force: true }));

const lastStart = (h: Harness) => h.reports.at(-1)?.start;

/** A harness per block, created when the block starts and closed when it ends: its runners are its own. */
function warmHarness(env: Record<string, string> = {}, validate = true): { h: () => Harness; settle: () => Promise<number[]> } {
  let h: Harness | undefined;
  beforeAll(() => {
    h = harness({ env: { JUBE_R_WARM: 'on', ...env }, ...(validate ? {} : { validator: acceptEverything }) });
  });
  afterAll(() => h?.close());
  return { h: () => h!, settle: () => h!.warmRunners() };
}

describe('a warm runner', () => {
  const w = warmHarness({}, false);
  let h: Harness;
  beforeAll(() => (h = w.h()));
  const settle = w.settle;

  it('takes the call, and the script sees the capsule armed at its first line', async () => {
    await settle();
    const target = join(outside, 'first-line');
    const response = await h.run(`cat(file.create("${target}"), "\\n")\ncat("done\\n")`);
    expect(lastStart(h)).toBe('warm');
    expect(response.status).toBe('ok');
    expect(response.consoleOutput).toContain('FALSE');
    expect(existsSync(target)).toBe(false);
    expect(h.reports.at(-1)?.capsule).toMatch(/^preload=armed/);
  });

  it('leaves the next call none of its objects, options, namespaces, files or devices', async () => {
    await settle();
    const first = await h.run([
      'leak <- 42',
      'options(jube.leak = TRUE)',
      'library(zoo)',
      'writeLines("x", "left.txt")',
      'png("left.png")',
      'plot(1)',
    ].join('\n'));
    expect(first.status, JSON.stringify([first.error, first.validation])).toBe('ok');
    expect(lastStart(h)).toBe('warm');
    await settle();
    const second = await h.run([
      'cat(exists("leak"), isTRUE(getOption("jube.leak")),',
      '  "zoo" %in% loadedNamespaces(), file.exists("left.txt"), file.exists("left.png"), length(dev.list()), "\\n")',
    ].join('\n'));
    expect(lastStart(h)).toBe('warm');
    expect(second.status, JSON.stringify(second.error)).toBe('ok');
    // No device open: the runner's plot capture opens its own only when the script draws.
    expect(second.consoleOutput.trim()).toBe('FALSE FALSE FALSE FALSE FALSE 0');
    expect(h.reports.at(-1)?.workdir).not.toBe(h.reports.at(-2)?.workdir);
  });

  it('that was killed is replaced, and the call succeeds cold', async () => {
    const [pid] = await settle();
    process.kill(pid!, 'SIGKILL');
    await sleep(100);
    const response = await h.run('cat(1 + 1)');
    expect(response.status).toBe('ok');
    expect(response.consoleOutput).toBe('2');
    expect(lastStart(h)).toBe('cold: dead');
    const [next] = await settle();
    expect(next).not.toBe(pid);
    await h.run('cat(2)');
    expect(lastStart(h)).toBe('warm');
  });

  it('that is wedged (stopped) fails the readiness check, is replaced, and the call succeeds cold', async () => {
    const [pid] = await settle();
    process.kill(pid!, 'SIGSTOP');
    const response = await h.run('cat(3)');
    expect(response.status).toBe('ok');
    expect(response.consoleOutput).toBe('3');
    expect(lastStart(h)).toBe('cold: unresponsive');
    // Discarded with its group: a stopped process still dies of SIGKILL.
    expect(existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z')).toBe(false);
  });
});

describe('a warm runner older than JUBE_R_WARM_MAX_AGE_SECONDS', () => {
  const w = warmHarness({ JUBE_R_WARM_MAX_AGE_SECONDS: '1' });

  it('is replaced, and the call runs cold', async () => {
    const h = w.h();
    await w.settle();
    await sleep(1100);
    const response = await h.run('cat(4)');
    expect(response.status).toBe('ok');
    expect(lastStart(h)).toBe('cold: stale');
  });
});

describe('the benign corpus, warm and cold', () => {
  const dir = new URL('../fixtures/corpus/benign/', import.meta.url);
  // Scripts that draw random numbers without a seed or read the clock differ between any two runs;
  // gc() reports the memory in use, which the namespaces a warm runner loaded add to (the one
  // difference the warm start makes, docs/execute-runtime.md).
  const deterministic = (script: string) =>
    !/Sys\.time|Sys\.Date|proc\.time|system\.time|\bgc\(/.test(script) &&
    (!/\b(r(norm|unif|binom|pois|exp)|sample)\(/.test(script) || /set\.seed/.test(script));
  const deterministicScripts = readdirSync(dir).filter((f) => f.endsWith('.R')).sort()
    .map((file) => ({ file, script: readFileSync(new URL(file, dir), 'utf8') }))
    .filter((s) => deterministic(s.script));
  // Every third of them, evenly over the sorted names (the corpus's areas are name prefixes):
  // each pair costs a cold and a warm run, and all forty took over a minute of CI.
  const scripts = deterministicScripts.filter((_, i) => i % 3 === 0);
  // Two slots, two scripts at a time, as the benign corpus test runs.
  const w = warmHarness({ JUBE_R_MAX_INFLIGHT_EXECUTE: '2' });
  const cold = harness({ env: { JUBE_R_WARM: 'off' } });
  // An environment prints as its address, which differs between any two processes.
  const comparable = (response: object) =>
    JSON.stringify(response, (key, value: unknown) =>
      key === 'durationMs' || key === 'timestamp' ? undefined : typeof value === 'string' ? value.replace(/<environment: 0x[0-9a-f]+>/g, '<environment>') : value);

  it('gives the same response, timing aside, for every deterministic script', { timeout: 600_000 }, async () => {
    expect(deterministicScripts.length).toBeGreaterThanOrEqual(30);
    expect(scripts.length).toBeGreaterThanOrEqual(10);
    const warm = w.h();
    const differing: string[] = [];
    const queue = [...scripts];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const timeoutSeconds = /heavy/i.test(next.script.split('\n', 1)[0] ?? '') ? 40 : 20;
        await w.settle();
        const [warmed, c] = [await warm.run(next.script, { timeoutSeconds }), await cold.run(next.script, { timeoutSeconds })];
        expect(warmed.status, next.file).toBe('ok');
        if (comparable(warmed) !== comparable(c)) differing.push(next.file);
      }
    };
    await Promise.all([worker(), worker()]);
    expect(differing).toEqual([]);
    // Every call was a warm runner's.
    expect(warm.reports.map((r) => r.start).filter((start) => start !== 'warm')).toEqual([]);
  });
});
