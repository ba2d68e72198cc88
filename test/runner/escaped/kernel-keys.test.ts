/**
 * Kernel keys, the store no process kill, file wipe or Lambda reset reaches: a key a run adds to
 * the user keyring is there for the next run of the same user (the control), even hidden from
 * /proc/keys, and the environment hygiene empties the user's key anchors so the next run finds
 * nothing. Real keys, made by a native fixture (test/runner/escaped/fixtures/kernel-key.c) as an
 * unprivileged user of this host, as a script with native code in Lambda (no seccomp of its own)
 * would; the hygiene's program (r-image/capsule/keys-clear.c) runs as that user, as the handler does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnvironment } from '../../../functions/execute/environment/environment-hygiene.ts';
import { keysHelper } from '../../../functions/execute/environment/keyring-hygiene.ts';

/** An unprivileged user of this host, standing in for the function's user; the tests run as root. */
const UID = 65534;
const AS_USER = ['setpriv', `--reuid=${UID}`, `--regid=${UID}`, '--clear-groups'];
let dir = '';
let fixture = '';

/** Runs the fixture as UID in a process of its own (each mode a separate "run"); its stdout. */
const asUser = (mode: 'plant' | 'hide' | 'read'): string => execFileSync(AS_USER[0]!, [...AS_USER.slice(1), fixture, mode], { encoding: 'utf8' }).trim();
const procKeysOfUser = (): string => execFileSync(AS_USER[0]!, [...AS_USER.slice(1), 'cat', '/proc/keys'], { encoding: 'utf8' });

const settings = { sweep: false, wipe: [], ipc: false, mqueue: undefined, listeners: false, runtimeApi: undefined };
const hygieneAsUser = () => cleanEnvironment('before-run', { ...settings, keys: [...AS_USER, keysHelper()] });

beforeAll(() => {
  expect(existsSync(keysHelper())).toBe(true);
  dir = mkdtempSync(join(tmpdir(), 'jube-r-kernel-key-'));
  fixture = join(dir, 'kernel-key');
  execFileSync('cc', ['-O1', '-o', fixture, join(import.meta.dirname, 'fixtures', 'kernel-key.c')]);
  execFileSync('chmod', ['755', dir, fixture]);
});
afterEach(async () => {
  await hygieneAsUser();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('kernel keys left by a run', () => {
  it('control: a key one process adds is read back by a later process of the same user, after the first is gone', () => {
    expect(asUser('plant')).toBe('plant: ok');
    expect(asUser('read')).toBe('read: PLANTED-BY-THE-PREVIOUS-RUN');
  });

  it('control: hidden from /proc/keys (no view permission, unlinked from the session), it is still read back', () => {
    expect(asUser('hide')).toBe('plant: ok');
    expect(procKeysOfUser()).not.toContain('jube-r-hidden');
    expect(asUser('read')).toBe('read: PLANTED-BY-THE-PREVIOUS-RUN');
  });

  it.each(['plant', 'hide'] as const)('after the hygiene (%s), the next run finds nothing and the cleaning is clean', async (mode) => {
    asUser(mode);
    const report = await hygieneAsUser();
    expect(report.keys).toEqual({ state: 'cleared' });
    expect(report.problems).toEqual([]);
    expect(asUser('read')).toBe('read: gone');
  });

  it('a cleaner that cannot run is a problem that fails the run, not a silent pass', async () => {
    const report = await cleanEnvironment('before-run', { ...settings, keys: [join(dir, 'absent')] });
    expect(report.problems).toEqual(['kernel keys could not be cleared (helper)']);
  });
});
