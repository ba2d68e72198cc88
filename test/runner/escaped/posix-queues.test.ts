/**
 * POSIX message queues live as long as the IPC namespace (in Lambda, the microVM) and can only be
 * removed by name, which only their maker knows, unless /dev/mqueue is mounted to list them. So the
 * Rscript's rlimits give it no queue memory at all (RLIMIT_MSGQUEUE 0, hard): a kernel limit, which
 * holds after the capsule is disarmed, since an unprivileged process cannot raise a hard limit.
 * A native fixture (test/runner/escaped/fixtures/posix-queue.c) under the handler's own prlimit
 * arguments; the control runs it without them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../../layers/config/service-config.ts';
import { prlimitArgs } from '../../../functions/execute/run/spawn-rscript.ts';

let dir = '';
let fixture = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'jube-r-posix-queue-'));
  fixture = join(dir, 'posix-queue');
  execFileSync('cc', ['-O1', '-o', fixture, join(import.meta.dirname, 'fixtures', 'posix-queue.c'), '-lrt']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('POSIX message queues under the Rscript rlimits', () => {
  it('control: without the rlimits, a process creates a queue and leaves a message in it', () => {
    expect(execFileSync(fixture, { encoding: 'utf8' }).trim()).toBe('created');
  });

  it('under the handler\'s prlimit arguments, creating one is refused by the kernel', () => {
    const args = prlimitArgs(readServiceConfig({}).rlimits);
    expect(args).toContain('--msgqueue=0');
    expect(execFileSync('prlimit', [...args, '--', fixture], { encoding: 'utf8' }).trim()).toBe('Too many open files');
  });
});
