/**
 * The benign corpus runs: every script of test/fixtures/corpus/benign, accepted by the static
 * validator (test/unit/validator/benign-corpus.test.ts), is accepted again by the runner's
 * re-validation in R and runs to `status: "ok"` through the real execute handler with host R and
 * the capsule armed. One handler run per script, two at a time, all started before the cases are
 * declared; scripts whose header says "heavy" (forecast, glmnet) get a longer limit.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ExecuteResponse } from '../../layers/contract/execute.ts';
import { harness } from './helpers.ts';

const dir = new URL('../fixtures/corpus/benign/', import.meta.url);
const scripts = readdirSync(dir)
  .filter((f) => f.endsWith('.R'))
  .sort()
  .map((file) => ({ file, script: readFileSync(new URL(file, dir), 'utf8') }));
const heavy = (script: string): boolean => /heavy/i.test(script.split('\n', 1)[0] ?? '');

const h = harness();
const PARALLEL = 2;

async function runAll(): Promise<Map<string, { response: ExecuteResponse; ms: number }>> {
  const results = new Map<string, { response: ExecuteResponse; ms: number }>();
  const queue = [...scripts];
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const started = performance.now();
      const response = await h.run(next.script, { timeoutSeconds: heavy(next.script) ? 40 : 20 });
      results.set(next.file, { response, ms: performance.now() - started });
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return results;
}

const results = await runAll();

describe('benign corpus through the execute handler with real R', () => {
  it('holds at least 40 scripts', () => {
    expect(scripts.length).toBeGreaterThanOrEqual(40);
  });

  it.each(scripts.map((s) => s.file))('%s runs to status ok', (file) => {
    const { response } = results.get(file)!;
    const detail = JSON.stringify({ error: response.error, validation: response.validation, tail: response.consoleOutput.slice(-400) });
    expect(response.status, detail).toBe('ok');
  });
});
