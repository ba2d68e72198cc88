/**
 * Every libc entry point that looks at a path without opening it (the stat family with its
 * versioned and 64-bit names, statx, access, realpath and its fortified and GNU names) and the
 * opens for reading, called
 * directly by native code in a process with the capsule preloaded. Before arming they answer for
 * every path: the control. Once armed, a path outside the readable roots answers EACCES whether
 * it exists or not (or its directory does), and inside the workdir they answer as before (ENOENT
 * for a missing file).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPSULE_LIBRARY, fixtureFields } from './armed-r.ts';

const fixture = fileURLToPath(new URL('../../fixtures/capsule/lookups.c', import.meta.url));
const ENTRIES = [
  'stat',
  'lstat',
  'stat64',
  'fstatat',
  'fstatat_nofollow',
  'statx',
  '__xstat',
  '__xstat64',
  '__lxstat',
  '__fxstatat',
  'access',
  'faccessat',
  'euidaccess',
  'realpath',
  'canonicalize_file_name',
  '__realpath_chk',
  'chdir',
  'open',
  'fopen',
];
let dir: string;
let bin: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'jube-r-lookups-'));
  bin = join(dir, 'lookups');
  writeFileSync(join(dir, 'secret.txt'), 'secret\n');
  await execa('cc', ['-O1', '-Wall', '-o', bin, fixture]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lookups without opening', () => {
  it.each(['off', 'auto'] as const)('follow the read rules once armed (kernel %s)', async (kernel) => {
    const workdir = mkdtempSync(join(tmpdir(), 'jube-r-lookups-workdir-'));
    try {
      writeFileSync(join(workdir, 'inside.txt'), 'inside\n');
      const result = await execa(
        bin,
        [join(dir, 'secret.txt'), join(dir, 'no-such-file'), join(dir, 'no-such-dir', 'file'), join(workdir, 'inside.txt'), join(workdir, 'no-such-dir', 'file')],
        {
          cwd: workdir,
          reject: false,
          extendEnv: false,
          env: { PATH: '/usr/bin:/bin', LD_PRELOAD: CAPSULE_LIBRARY, JUBE_R_CAPSULE_WORKDIR: workdir, JUBE_R_CAPSULE_KERNEL: kernel, LD_BIND_NOW: '1' },
        },
      );
      const out = fixtureFields(String(result.stdout));
      expect(out['report']).toMatch(/^preload=armed /);
      for (const entry of ENTRIES) {
        // The control: unarmed, the outside file is there and the missing one is not.
        expect(out[`${entry}:outside`], entry).toBe('ok');
        expect(out[`${entry}:missing`], entry).toBe('errno=2');
        expect(out[`${entry}:missing_nested`], entry).toBe('errno=2');
        // Armed: the same answer for both, and nothing changes inside the workdir.
        expect(out[`armed ${entry}:outside`], entry).toBe('errno=13');
        expect(out[`armed ${entry}:missing`], entry).toBe('errno=13');
        expect(out[`armed ${entry}:missing_nested`], entry).toBe('errno=13');
        expect(out[`armed ${entry}:inside`], entry).toBe('ok');
        expect(out[`armed ${entry}:missing_inside`], entry).toBe('errno=2');
      }
    } finally {
      rmSync(workdir, { recursive: true, force: true });
    }
  });
});
