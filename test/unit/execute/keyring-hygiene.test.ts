/**
 * The key-store cleaner's answer, read (test/runner/escaped/kernel-keys.test.ts runs the program on
 * real keys): only `cleared` with status 0, or the kernel refusing keyctl altogether, are clean.
 */
import { describe, expect, it } from 'vitest';
import { keysOutcome } from '../../../functions/execute/environment/keyring-hygiene.ts';

describe('keysOutcome', () => {
  it('reads the three answers', () => {
    expect(keysOutcome('cleared\n', 0)).toEqual({ state: 'cleared' });
    expect(keysOutcome('unavailable ENOSYS\n', 0)).toEqual({ state: 'unavailable', reason: 'ENOSYS' });
    expect(keysOutcome('failed user-keyring EACCES\n', 1)).toEqual({ state: 'failed', step: 'user-keyring' });
  });

  it('counts anything else (no output, a crash, `cleared` with a failing status) as a failure', () => {
    expect(keysOutcome('', undefined)).toEqual({ state: 'failed', step: 'helper' });
    expect(keysOutcome('cleared', 139)).toEqual({ state: 'failed', step: 'helper' });
    expect(keysOutcome('something else', 0)).toEqual({ state: 'failed', step: 'helper' });
  });
});
