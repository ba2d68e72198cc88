/** bounded-remove.ts on real trees: what a script can leave (locked directories, odd names, many files) goes, within a deadline. */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeTree } from '../../../functions/execute/output/bounded-remove.ts';
import { PostRunBudget, withBudgetNote, withinBudget } from '../../../functions/execute/output/post-run-budget.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jube-r-remove-'));
});
afterEach(() => {
  execFileSync('chmod', ['-R', 'u+rwx', root]);
  rmSync(root, { recursive: true, force: true });
});

const far = () => Date.now() + 60_000;

describe('removeTree', () => {
  it('removes a tree with nested, unreadable and unwritable directories and a name that is not UTF-8', async () => {
    const tree = join(root, 'w');
    mkdirSync(join(tree, 'a', 'b', 'c'), { recursive: true });
    writeFileSync(join(tree, 'a', 'b', 'c', 'f'), 'x');
    writeFileSync(Buffer.from(`${tree}/caf\xe9`, 'latin1'), 'x');
    mkdirSync(join(tree, 'locked'));
    writeFileSync(join(tree, 'locked', 'f'), 'x');
    chmodSync(join(tree, 'locked'), 0o000);
    mkdirSync(join(tree, 'readonly'));
    writeFileSync(join(tree, 'readonly', 'f'), 'x');
    chmodSync(join(tree, 'readonly'), 0o500);
    expect(await removeTree(tree, far())).toBe('removed');
    expect(existsSync(tree)).toBe(false);
  });

  it('a missing tree is removed already', async () => expect(await removeTree(join(root, 'never'), far())).toBe('removed'));

  it('100,000 files made by R: stopped at its deadline, checked between batches, and said so; given the time, removed', { timeout: 120_000 }, async () => {
    const tree = join(root, 'many');
    mkdirSync(tree);
    execFileSync('Rscript', ['--vanilla', '-e', `invisible(file.create(file.path("${tree}", sprintf("f%06d", 1:100000))))`]);
    const before = process.memoryUsage().rss;
    // A clock that passes the deadline once the first batch is done: the removal stops right there,
    // however fast or loaded the machine is.
    let reads = 0;
    const clock = () => (reads++ < 1 ? 0 : 1);
    const cut = await removeTree(tree, 1, clock);
    expect(cut).toBe('deadline');
    expect(readdirSync(tree).length).toBeGreaterThanOrEqual(100_000 - 256);
    expect(process.memoryUsage().rss - before).toBeLessThan(32 << 20);
    // Given the time, the rest goes.
    expect(await removeTree(tree, far())).toBe('removed');
    expect(existsSync(tree)).toBe(false);
  });
});

describe('PostRunBudget', () => {
  it('takes the smaller of its maximum and the remaining time less the reserve', () => {
    const now = () => 1_000;
    expect(PostRunBudget.after(() => 10_000, { maxMs: 5_000, reserveMs: 500 }, now).deadline).toBe(6_000);
    expect(PostRunBudget.after(() => 2_000, { maxMs: 5_000, reserveMs: 500 }, now).deadline).toBe(2_500);
    expect(PostRunBudget.after(() => 100, { maxMs: 5_000, reserveMs: 500 }, now).deadline).toBe(1_000);
    expect(PostRunBudget.after(() => Number.POSITIVE_INFINITY, { maxMs: 5_000, reserveMs: 500 }, now).deadline).toBe(6_000);
  });

  it('says what it cut short, once each', () => {
    const budget = new PostRunBudget(0);
    expect(budget.note()).toBeUndefined();
    budget.stop('plots');
    budget.stop('plots');
    expect(budget.note()).toBe("the handler's post-run time budget ran out (plots); what was collected is returned");
  });

  it('withinBudget waits for work only until the deadline, and records what it stopped', async () => {
    const budget = new PostRunBudget(Date.now() + 50);
    const never = new Promise<string>(() => undefined);
    // Work that never settles: that it returns at all is the deadline's doing.
    expect(await withinBudget(never, budget, 'the wipe')).toBe('deadline');
    expect(budget.cutShort).toEqual(['the wipe']);
    expect(await withinBudget(Promise.resolve('done'), new PostRunBudget(Date.now() + 1000), 'x')).toBe('done');
  });

  it('withBudgetNote adds the note and truncated only when something was cut', () => {
    const response = { status: 'ok' as const, consoleOutput: '', error: null, warnings: [], durationMs: 1, timedOut: false, rVersion: 'x', timestamp: 't' };
    expect(withBudgetNote(response, new PostRunBudget(0))).toBe(response);
    const cut = new PostRunBudget(0);
    cut.stop('plots');
    expect(withBudgetNote(response, cut)).toMatchObject({ truncated: true, notes: [cut.note()] });
    // Built with the note already (under the notes cap): it is not added a second time.
    expect(withBudgetNote({ ...response, notes: ['a', cut.note()!] }, cut)).toMatchObject({ truncated: true, notes: ['a', cut.note()] });
  });
});
