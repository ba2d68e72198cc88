/**
 * The capsule's state against a script that can write its own memory. After arming, no writable
 * word of the library points into the policy, and clearing every writable word of it leaves the
 * capsule armed and refusing (a cleared cache of a real function is found again; the armed
 * decision is in the sealed policy). The control makes the policy writable again, as native code
 * could with mprotect, and the same clearing disarms it: the seal is what holds, and native code
 * is what the kernel layers (where they exist) and the microVM are for.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPSULE_LIBRARY, fixtureFields } from './armed-r.ts';

const fixture = fileURLToPath(new URL('../../fixtures/capsule/policy-memory.c', import.meta.url));
let dir: string;
let bin: string;
let outside: string;
let policy: { offset: string; size: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'jube-r-policy-memory-'));
  bin = join(dir, 'policy-memory');
  outside = join(dir, 'outside.txt');
  writeFileSync(outside, 'outside\n');
  await execa('cc', ['-O1', '-Wall', '-o', bin, fixture, '-ldl']);
  // Where the policy object is, from the library's own symbol table.
  const { stdout } = await execa('nm', ['-S', CAPSULE_LIBRARY]);
  const row = stdout.split('\n').find((line) => line.trim().endsWith(' capsule_policy'));
  const [offset, size] = (row ?? '').trim().split(/\s+/);
  policy = { offset: offset!, size: size! };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function attack(mode: 'scan' | 'zero' | 'unseal' | 'sealfail'): Promise<Record<string, string>> {
  const workdir = mkdtempSync(join(tmpdir(), 'jube-r-policy-memory-workdir-'));
  try {
    const result = await execa(bin, [mode, policy.offset, policy.size, outside], {
      cwd: workdir,
      reject: false,
      extendEnv: false,
      // The Lambda posture: the interposition layer alone, nothing below it to catch a slip. The
      // fixture reads its own /proc/self/maps to find the writable words, which the armed capsule
      // otherwise refuses (capability-chain.test.ts): that rule is turned off here, nothing else.
      env: {
        PATH: '/usr/bin:/bin',
        LD_PRELOAD: CAPSULE_LIBRARY,
        JUBE_R_CAPSULE_WORKDIR: workdir,
        JUBE_R_CAPSULE_KERNEL: 'off',
        LD_BIND_NOW: '1',
        JUBE_R_CAPSULE_OFF: 'proc',
      },
    });
    return fixtureFields(String(result.stdout));
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
}

describe('the capsule policy in memory', () => {
  it('is a whole-page object of the library', () => {
    expect(Number.parseInt(policy.offset, 16) % 65536).toBe(0);
    expect(Number.parseInt(policy.size, 16) % 65536).toBe(0);
  });

  it('is reached by the code alone: no relocation of the library (no pointer, RELRO included) targets it', async () => {
    const { stdout } = await execa('readelf', ['-rW', CAPSULE_LIBRARY]);
    const start = Number.parseInt(policy.offset, 16);
    const end = start + Number.parseInt(policy.size, 16);
    // R_*_RELATIVE rows end in their addend: the address the loader writes into the slot.
    const targets = stdout
      .split('\n')
      .filter((line) => /_RELATIVE\s/.test(line))
      .map((line) => Number.parseInt(line.trim().split(/\s+/).at(-1)!, 16));
    expect(targets.length).toBeGreaterThan(100);
    expect(targets.filter((t) => t >= start && t < end)).toEqual([]);
  });

  it('leaves no writable word pointing into it once armed', async () => {
    const out = await attack('scan');
    expect(out['status']).toBe('1');
    expect(out['report']).toMatch(/^preload=armed landlock=off seccomp=off dispatch=skipped\(not an R process\) got=sealed\(objects=\d+,slots=\d+\/\d+\) off=proc$/);
    expect(Number(out['writable_words'])).toBeGreaterThan(1000);
    expect(out['pointers_to_policy']).toBe('0');
    // The scan does see pointers: the caches of real functions point into libc.
    expect(Number(out['pointers_to_libc'])).toBeGreaterThan(0);
  });

  it('stays armed and refusing when every writable word of the library is cleared', async () => {
    const out = await attack('zero');
    expect(Number(out['nonzero_words'])).toBeGreaterThan(0);
    expect(out).toMatchObject({
      fork: 'refused',
      socket: 'refused',
      open_outside: 'refused',
      msgget: 'refused',
      rearm_status: '1',
      rearm_report: expect.stringMatching(/^preload=armed landlock=off seccomp=off dispatch=skipped\(not an R process\) got=sealed\(objects=\d+,slots=\d+\/\d+\) off=proc$/),
      exec: 'refused',
    });
  });

  it('does not report itself armed when the seal fails, and refuses all the same', async () => {
    const out = await attack('sealfail');
    expect(out['sealing_fails']).toBe('yes');
    expect(out['status']).toBe('0');
    expect(out['report']).toBe('preload=unavailable(the policy could not be sealed: Operation not permitted) landlock=off seccomp=off dispatch=skipped(not an R process)');
    expect(out).toMatchObject({ fork: 'refused', socket: 'refused', open_outside: 'refused', msgget: 'refused', rearm_status: '0', exec: 'refused' });
  });

  it('control: unsealed by native code, the same clearing disarms it', async () => {
    const out = await attack('unseal');
    expect(out['unsealed']).toBe('yes');
    expect(out).toMatchObject({ fork: 'ok', socket: 'ok', open_outside: 'ok', msgget: 'ok', rearm_status: '0' });
    // The program ran in its place: nothing printed after it.
    expect(out['exec']).toBeUndefined();
  });
});
