/**
 * Below the interposition layer: native code that makes system calls with the machine instruction
 * (what a memory-corruption exploit in R would do) is never seen by the preloaded capsule. Where the
 * kernel accepts no_new_privs, arming also installs Landlock and seccomp, and those refuse it. In
 * the Lambda posture (kernel layers off) the same calls go through: this is the documented limit
 * of the capsule there (docs/threat-model.md, "What the capsule cannot do"), and the microVM is the boundary.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPSULE_LIBRARY, fixtureFields } from './armed-r.ts';

const fixture = fileURLToPath(new URL('../../fixtures/capsule/raw-syscalls.c', import.meta.url));
let bin: string;
let outside: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jube-r-raw-syscalls-'));
  bin = join(dir, 'raw-syscalls');
  await execa('cc', ['-O1', '-o', bin, fixture, '-ldl']);
  outside = mkdtempSync(join(tmpdir(), 'jube-r-raw-outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'secret');
});

afterAll(() => {
  rmSync(join(bin, '..'), { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

async function rawCalls(kernel: 'auto' | 'off'): Promise<Record<string, string>> {
  const workdir = mkdtempSync(join(tmpdir(), 'jube-r-raw-workdir-'));
  try {
    const result = await execa(bin, [join(outside, 'secret.txt'), outside], {
      cwd: workdir,
      reject: false,
      extendEnv: false,
      env: { PATH: '/usr/bin:/bin', LD_PRELOAD: CAPSULE_LIBRARY, JUBE_R_CAPSULE_WORKDIR: workdir, JUBE_R_CAPSULE_KERNEL: kernel, LD_BIND_NOW: '1' },
    });
    return fixtureFields(String(result.stdout));
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
}

describe('capsule kernel layers against raw system calls', () => {
  it('refuse every escape with Landlock and seccomp on, and still allow the workdir', async () => {
    // Act
    const calls = await rawCalls('auto');
    // Assess
    expect(calls['report']).toMatch(/^preload=armed landlock=abi\d+ seccomp=active dispatch=skipped\(not an R process\) got=sealed\(objects=\d+,slots=\d+\/\d+\)$/);
    expect(calls).toMatchObject({
      open_read_outside: 'errno=13',
      open_create_outside: 'errno=13',
      open_create_workdir: 'ok',
      socket_inet: 'errno=1',
      socket_unix: 'errno=1',
      kill_parent: 'errno=1',
      kill_self: 'ok',
      execve: 'errno=1',
      fork: 'errno=1',
      msgget: 'errno=1',
      mq_open: 'errno=1',
      rt_tgsigqueueinfo_parent: 'errno=1',
    });
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('let the same calls through in the Lambda posture: the limit the docs state', async () => {
    const calls = await rawCalls('off');
    expect(calls['report']).toMatch(/^preload=armed landlock=off seccomp=off dispatch=skipped\(not an R process\) got=sealed\(objects=\d+,slots=\d+\/\d+\)$/);
    expect(calls).toMatchObject({ open_read_outside: 'ok', open_create_outside: 'ok', socket_inet: 'ok', msgget: 'ok', mq_open: 'ok' });
  });
});
