/**
 * The handler's cleaning phases with host R: at init (awaited by the first call), before and after
 * every run, each reported with its cost. On a shared host only the directory wipe is safe to turn
 * on (the sweep and the IPC removal would reach the host's own processes and objects; the image
 * tier runs those, test/image/escaped-native.test.ts), so a wiped scratch directory stands in.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { harness } from '../helpers.ts';
import { generous } from '../../load-tolerant.ts';

const scratch = mkdtempSync(join(tmpdir(), 'jube-r-phases-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('execute handler: cleaning at init, before and after every run', () => {
  it('removes at init what a predecessor left, before a run what appeared since the last, and reports each phase in ms', async () => {
    // Prepare: left before the handler existed (a crashed predecessor's), then between two calls.
    writeFileSync(join(scratch, 'left-by-a-crash'), 'x');
    const h = generous(harness({ containment: { capsule: undefined, wipeAfterRun: [scratch] } }));
    // Act
    const first = await h.run('cat("one")');
    writeFileSync(join(scratch, 'left-between-calls'), 'x');
    const second = await h.run(`cat(file.exists("${join(scratch, 'left-between-calls')}"))`);
    // Assess
    expect(first).toMatchObject({ status: 'ok', consoleOutput: 'one' });
    expect(second).toMatchObject({ status: 'ok', consoleOutput: 'FALSE' });
    expect(existsSync(join(scratch, 'left-by-a-crash'))).toBe(false);
    const [one, two] = h.reports;
    expect(one?.hygiene?.init?.wipe?.removed).toEqual([join(scratch, 'left-by-a-crash')]);
    expect(one?.hygiene?.before?.problems).toEqual([]);
    expect(two?.hygiene?.init).toBeUndefined();
    expect(two?.hygiene?.before?.wipe?.removed).toEqual([join(scratch, 'left-between-calls')]);
    for (const phase of [one?.hygiene?.init, one?.hygiene?.before, one?.hygiene?.after, two?.hygiene?.before, two?.hygiene?.after]) {
      expect(Number.isFinite(phase?.ms)).toBe(true);
      expect(phase?.ms).toBeGreaterThanOrEqual(0);
    }
  });
});
