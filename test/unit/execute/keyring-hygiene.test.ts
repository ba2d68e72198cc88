/**
 * Which kernel keys of the function's user count as left by a run: the rule, on /proc/keys lines in
 * the kernel's format (test/runner/escaped/kernel-keys.test.ts makes real ones).
 */
import { describe, expect, it } from 'vitest';
import { isLeftover, parseProcKeys } from '../../../functions/execute/keyring-hygiene.ts';

const PROC_KEYS = [
  '29b57306 I--Q---     3 perm 1f3f0000   999   999 keyring   _uid.999: empty',
  '1b999b1b I--Q---     1 perm 1f3f0000   999   999 keyring   _uid_ses.999: 1',
  '023b8ab0 I--Q---     1 perm 0c030000     0 65534 keyring   .user_reg: 2',
  '2364db24 I--Q---     1 perm 3f010000   999   999 user      jube-r-left: 27',
  '3364db24 I--Q---     1 perm 3f010000   999   999 keyring   named with spaces: empty',
  '4364db24 I--Q---     1 perm 1f3f0000   999   999 keyring   _uid.999: 1',
].join('\n');

describe('kernel keys left by a run', () => {
  it('parses the kernel format: serial, owner, type, name, a keyring\'s link count', () => {
    expect(parseProcKeys(PROC_KEYS)[0]).toEqual({ serial: '29b57306', uid: 999, type: 'keyring', name: '_uid.999', links: 0 });
    expect(parseProcKeys(PROC_KEYS)[4]).toMatchObject({ name: 'named with spaces', links: 0 });
    expect(parseProcKeys('garbage\n\n')).toEqual([]);
  });

  it('spares the kernel\'s own keyrings while they hold only what the kernel put there, and other users\' keys', () => {
    const left = parseProcKeys(PROC_KEYS).filter(isLeftover(999)).map((k) => k.serial);
    // A user key, a named keyring (its name alone carries data) and a user keyring that holds a link.
    expect(left).toEqual(['2364db24', '3364db24', '4364db24']);
  });
});
