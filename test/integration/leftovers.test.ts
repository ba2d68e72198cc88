/**
 * A validated script's leftovers, over real HTTP with real R: 30,000 files in out/, a 1 MB
 * `<g<g<g...` page and a PNG whose header claims nothing sane, planted where plot pages go. The
 * handler reads what a run left as hostile input, so /health stays fast while that run is served,
 * the run gets its answer, and the next ten ordinary calls are answered as usual.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecuteResponseSchema } from '../../layers/contract/execute.ts';
import { postJson, request, startStack, type RunningStack } from './local-stack.ts';

let stack: RunningStack;

beforeAll(async () => {
  stack = await startStack({ JUBE_R_SCRIPT_TIMEOUT_SECONDS: '30', JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX: '30' });
  await request(`${stack.url}/health`);
  await postJson(`${stack.url}/t/acme/execute`, { script: '1' });
});
afterAll(async () => {
  await stack?.stop();
});

const ATTACK = [
  'dir.create("out", showWarnings = FALSE)',
  'for (i in seq_len(30000)) file.create(file.path("out", sprintf("f%05d.txt", i)))',
  'dir.create(".jube/plots", recursive = TRUE, showWarnings = FALSE)',
  'writeLines(strrep("<g", 500000), ".jube/plots/d001-p00001.svg")',
  'con <- file(".jube/plots/d001-p00002.png", "wb")',
  'writeBin(as.raw(c(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)), con)',
  'writeBin(as.raw(rep(0, 1e6)), con)',
  'close(con)',
  'cat("done\\n")',
].join('\n');

describe('a validated script that leaves hostile leftovers', () => {
  it('does not slow /health while it is served, gets its answer, and leaves the next ten calls unharmed', { timeout: 180_000 }, async () => {
    const healthMs: number[] = [];
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const health = await request(`${stack.url}/health`);
        expect(health.status).toBe(200);
        healthMs.push(health.ms);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const attack = await postJson(`${stack.url}/t/acme/execute`, { script: ATTACK, timeoutSeconds: 30 });
    polling = false;
    await poll;

    expect(attack.status).toBe(200);
    const response = ExecuteResponseSchema.parse(attack.json);
    expect(response).toMatchObject({ status: 'ok', consoleOutput: 'done\n' });
    // Pages the runner never drew are not returned; out/ comes back capped, with a note.
    expect(response.plots ?? []).toEqual([]);
    expect((response.files ?? []).length).toBeLessThan(30_000);
    expect(response.notes?.some((n) => /out\//.test(n))).toBe(true);
    expect(healthMs.length).toBeGreaterThan(5);
    expect(Math.max(...healthMs)).toBeLessThan(200);

    for (let i = 0; i < 10; i += 1) {
      const next = await postJson(`${stack.url}/t/acme/execute`, { script: `cat(${i} + 1)` });
      expect(ExecuteResponseSchema.parse(next.json)).toMatchObject({ status: 'ok', consoleOutput: String(i + 1) });
    }
  });
});
