/**
 * After-run hygiene, the parts that are safe on a shared host: the process chain a sweep spares,
 * emptying directories (a script's unreadable leftovers included). The environment-wide sweep
 * itself kills every other process, so it runs only in the image tier (test/image/escaped.test.ts).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ancestry, forceRemove, processUid, WIPE_REPORT_NAMES, wipeDirectories, wipeProblem } from '../../../functions/execute/environment/hygiene.ts';

const dirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'jube-r-hygiene-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) {
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('ancestry', () => {
  it('is this process and every parent up to the kernel\'s', async () => {
    const chain = await ancestry();
    expect(chain.has(process.pid)).toBe(true);
    expect(chain.has(process.ppid)).toBe(true);
    expect(chain.has(1)).toBe(true);
  });
});

describe('wipeDirectories', () => {
  it('empties each directory but keeps it, whatever a run left', async () => {
    // Prepare: files, a nested tree, a symlink out, and a directory its owner cannot enter.
    const tmp = scratch();
    const outside = scratch();
    writeFileSync(join(outside, 'keep.txt'), 'x');
    writeFileSync(join(tmp, 'left.txt'), 'x');
    mkdirSync(join(tmp, 'a', 'b'), { recursive: true });
    writeFileSync(join(tmp, 'a', 'b', 'c.txt'), 'x');
    symlinkSync(outside, join(tmp, 'link'));
    mkdirSync(join(tmp, 'locked'));
    writeFileSync(join(tmp, 'locked', 'inside'), 'x');
    chmodSync(join(tmp, 'locked'), 0o000);
    // Act
    const report = await wipeDirectories([tmp, join(tmp, 'missing')]);
    // Assess
    expect(readdirSync(tmp)).toEqual([]);
    expect(report.failures).toEqual([]);
    expect(report.removed.map((p) => p.slice(tmp.length + 1)).sort()).toEqual(['a', 'left.txt', 'link', 'locked']);
    expect(existsSync(join(outside, 'keep.txt'))).toBe(true);
  });
});

describe('wipeDirectories with an idle warm runner', () => {
  it("leaves exactly the spared workdir, and empties everything around it, its siblings included", async () => {
    // Prepare: the temp root holds the warm runner's workdir and a stale one a crashed run left.
    const tmp = scratch();
    const warm = join(tmp, 'jube-r-runs', 'jube-r-warm');
    mkdirSync(join(warm, 'home'), { recursive: true });
    writeFileSync(join(warm, 'empty'), '');
    mkdirSync(join(tmp, 'jube-r-runs', 'jube-r-stale'));
    writeFileSync(join(tmp, 'jube-r-runs', 'left.txt'), 'x');
    writeFileSync(join(tmp, 'other.txt'), 'x');
    // Act
    const report = await wipeDirectories([tmp], undefined, [warm]);
    // Assess
    expect(readdirSync(tmp)).toEqual(['jube-r-runs']);
    expect(readdirSync(join(tmp, 'jube-r-runs'))).toEqual(['jube-r-warm']);
    expect(readdirSync(warm).sort()).toEqual(['empty', 'home']);
    expect(report.failures).toEqual([]);
  });
});

describe('wipeDirectories on what a hostile run left', () => {
  it('removes 20,000 entries, keeping only a few names and the count in its report', async () => {
    const tmp = scratch();
    for (let i = 0; i < 20_000; i += 1) writeFileSync(join(tmp, `f${i}`), '');
    mkdirSync(join(tmp, 'deep', 'er'), { recursive: true });
    const report = await wipeDirectories([tmp]);
    expect(readdirSync(tmp)).toEqual([]);
    expect(report.removedCount).toBe(20_001);
    expect(report.removed.length).toBe(WIPE_REPORT_NAMES);
    expect(report.failureCount).toBe(0);
    expect(wipeProblem(report)).toBeUndefined();
  });

  it('stops at its deadline and says what is left, in a bounded line', async () => {
    const tmp = scratch();
    for (let i = 0; i < 2_000; i += 1) writeFileSync(join(tmp, `f${i}`), '');
    const report = await wipeDirectories([tmp], Date.now() - 1);
    expect(report.deadline).toBe(true);
    expect(readdirSync(tmp).length).toBe(2_000);
    expect(wipeProblem(report)).toMatch(/^entries are left: the wipe stopped at its deadline/);
  });
});

describe('forceRemove', () => {
  it('removes a tree whose directories were made unwritable to their owner, and says so', async () => {
    const root = scratch();
    const tree = join(root, 'workdir');
    mkdirSync(join(tree, 'x', 'y'), { recursive: true });
    writeFileSync(join(tree, 'x', 'y', 'z'), 'x');
    chmodSync(join(tree, 'x', 'y'), 0o500);
    chmodSync(join(tree, 'x'), 0o000);
    expect(await forceRemove(tree)).toBe(true);
    expect(existsSync(tree)).toBe(false);
    expect(await forceRemove(join(root, 'never-there'))).toBe(true);
  });
});

describe('processUid', () => {
  it("reads a process's real uid from its status", async () => {
    expect(await processUid(process.pid)).toBe(process.getuid?.());
    expect(await processUid(2 ** 22 + 1)).toBeUndefined();
  });
});
