/**
 * Kernel keys, the store no process kill, file wipe or Lambda reset reaches: a key a run adds to
 * the user keyring is there for the next run of the same user (the control), and the environment
 * hygiene names it as left, so the handler refuses to run the next script there. Real keys, made by
 * a native fixture (test/runner/escaped/fixtures/kernel-key.c) as an unprivileged user of this host,
 * as a script with native code in Lambda (no seccomp of its own) would.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnvironment } from '../../../functions/execute/environment-hygiene.ts';
import { leftoverKeys } from '../../../functions/execute/keyring-hygiene.ts';

/** An unprivileged user of this host, standing in for the function's user; the tests run as root. */
const UID = 65534;
let dir = '';
let fixture = '';

/** Runs the fixture as UID in a process of its own (each mode a separate "run"); its stdout. */
const asUser = (mode: 'plant' | 'read' | 'clear'): string =>
  execFileSync('setpriv', [`--reuid=${UID}`, `--regid=${UID}`, '--clear-groups', fixture, mode], { encoding: 'utf8' }).trim();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'jube-r-kernel-key-'));
  fixture = join(dir, 'kernel-key');
  execFileSync('cc', ['-O1', '-o', fixture, join(import.meta.dirname, 'fixtures', 'kernel-key.c')]);
  execFileSync('chmod', ['755', dir, fixture]);
});
afterEach(() => {
  asUser('clear');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const settings = { sweep: false, wipe: [], ipc: false, mqueue: undefined, listeners: false, runtimeApi: undefined };

describe('kernel keys left by a run', () => {
  it('control: a key one process adds is read back by a later process of the same user, after the first is gone', () => {
    expect(asUser('plant')).toBe('plant: ok');
    expect(asUser('read')).toBe('read: PLANTED-BY-THE-PREVIOUS-RUN');
  });

  it('are named as left by the hygiene (by serial, never content), so the next run is refused', async () => {
    asUser('plant');
    const left = await leftoverKeys({ uid: UID });
    expect(left.map((k) => k.type)).toContain('user');
    const report = await cleanEnvironment('before-run', { ...settings, keysOf: UID });
    expect(report.problems.join('\n')).toMatch(/^kernel keys [0-9a-f]+(, [0-9a-f]+)* are left$/m);
    expect(report.problems.join('\n')).not.toContain('PLANTED');
  });

  it('a user with only the kernel\'s own keyrings is clean', async () => {
    asUser('plant');
    asUser('clear');
    expect(asUser('read')).toBe('read: gone');
    // An unlinked key is freed by the kernel's key collector, asynchronously: give it a moment.
    for (let i = 0; i < 50 && (await leftoverKeys({ uid: UID })).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await leftoverKeys({ uid: UID })).toEqual([]);
    expect((await cleanEnvironment('before-run', { ...settings, keysOf: UID })).problems).toEqual([]);
  });
});
