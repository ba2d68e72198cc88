/**
 * One table (r-image/capsule/rules.c) drives the seccomp filter, the syscall() wrapper and the
 * names dlsym refuses. The emitter's program is run in a BPF interpreter against the table for
 * every row; then, in a process with the capsule preloaded and armed, every IN_WRAPPER row is
 * refused by the wrapper, every symbol of the table is unresolvable, and the kernel objects that
 * outlive a run (System V IPC, POSIX message queues) cannot be created, in both postures. Before
 * arming, the same process creates and removes each of them: the control.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPSULE_LIBRARY, fixtureFields } from './armed-r.ts';

const fixture = fileURLToPath(new URL('../../fixtures/capsule/rule-table.c', import.meta.url));
const capsuleDir = fileURLToPath(new URL('../../../r-image/capsule/', import.meta.url));
let dir: string;
let bin: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'jube-r-rule-table-'));
  bin = join(dir, 'rule-table');
  await execa('cc', ['-O1', '-Wall', '-o', bin, fixture, join(capsuleDir, 'rules.c'), join(capsuleDir, 'seccomp-program.c'), '-ldl']);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the capsule rule table', () => {
  it('emits a seccomp program that answers exactly what the table says, for every row and argument', async () => {
    // Act
    const result = await execa(bin, ['program'], { reject: false });
    const out = fixtureFields(String(result.stdout));
    // Assess
    expect(String(result.stdout)).not.toContain('mismatch=');
    expect(String(result.stdout)).not.toContain('duplicate');
    expect(out['failures']).toBe('0');
    expect(Number(out['checked'])).toBeGreaterThan(1000);
    expect(Number(out['kernel_rows'])).toBeGreaterThan(90);
    // The interpreter does catch a wrong program: the same one with its refusals turned to "allow".
    expect(Number(out['corrupted_mismatches'])).toBeGreaterThan(100);
    expect(result.exitCode).toBe(0);
  });

  it.each<{ kernel: 'off' | 'auto'; report: RegExp }>([
    { kernel: 'off', report: /^preload=armed landlock=off seccomp=off dispatch=skipped\(not an R process\) got=sealed\(objects=\d+,slots=\d+\/\d+\)$/ },
    { kernel: 'auto', report: /^preload=armed landlock=abi\d+ seccomp=active dispatch=skipped\(not an R process\) got=sealed\(objects=\d+,slots=\d+\/\d+\)$/ },
  ])('refuses every row in the wrapper, every symbol, and every IPC object once armed (kernel $kernel)', async ({ kernel, report }) => {
    const workdir = mkdtempSync(join(tmpdir(), 'jube-r-rule-table-workdir-'));
    try {
      // Act: without seccomp behind the wrapper, the rows that would create a process are skipped.
      const result = await execa(bin, kernel === 'off' ? ['armed', 'nospawn'] : ['armed'], {
        cwd: workdir,
        reject: false,
        extendEnv: false,
        env: {
          PATH: '/usr/bin:/bin',
          LD_PRELOAD: CAPSULE_LIBRARY,
          JUBE_R_CAPSULE_WORKDIR: workdir,
          JUBE_R_CAPSULE_KERNEL: kernel,
          JUBE_R_CAPSULE_LOG: '1',
          LD_BIND_NOW: '1',
        },
      });
      const out = fixtureFields(String(result.stdout));
      const stderr = String(result.stderr);
      const called = [...stderr.matchAll(/^calling (\S+)$/gm)].map((m) => m[1]);
      const refusedByWrapper = new Set([...stderr.matchAll(/^jube-r capsule: refused syscall (\S+)/gm)].map((m) => m[1]));
      // Assess
      expect(out['report']).toMatch(report);
      for (const kind of ['msgget', 'semget', 'shmget', 'mq_open']) {
        expect(out[`before_${kind}`], `control: ${kind} works before arming`).toBe('0');
        expect(out[`after_${kind}`], kind).toBe('1'); // EPERM
      }
      expect(called.length).toBe(Number(out['wrapper_rows']));
      expect(called.length).toBeGreaterThan(100);
      expect(called.filter((name) => !refusedByWrapper.has(name))).toEqual([]);
      expect(Number(out['symbols_resolvable_before'])).toBeGreaterThan(100);
      expect(out['symbols_resolvable_after']).toBe('0');
    } finally {
      rmSync(workdir, { recursive: true, force: true });
    }
  });
});
