/**
 * A descriptor the parent leaked without close-on-exec never reaches R: the capsule closes every
 * descriptor but 0-2 when it loads, before any R code runs. The control runs the same parent and
 * script without the capsule, and R reads the secret through the leaked descriptor.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPSULE_LIBRARY } from './armed-r.ts';

const fixture = fileURLToPath(new URL('../../fixtures/capsule/leak-fd.c', import.meta.url));
const LEAKED_FD = 251;
let dir: string;
let bin: string;
let secret: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'jube-r-leak-fd-'));
  bin = join(dir, 'leak-fd');
  secret = join(dir, 'secret.txt');
  writeFileSync(secret, 'parent-secret-0815\n');
  await execa('cc', ['-O1', '-Wall', '-o', bin, fixture]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCRIPT = [
  'fds <- list.files("/proc/self/fd")',
  `cat("@@leaked", "${LEAKED_FD}" %in% fds, "\\n")`,
  `cat("@@read", tryCatch(readLines("/proc/self/fd/${LEAKED_FD}", warn = FALSE), error = function(e) "refused", warning = function(w) "refused"), "\\n")`,
].join('\n');

async function run(preload: boolean): Promise<string> {
  const workdir = mkdtempSync(join(tmpdir(), 'jube-r-leak-fd-workdir-'));
  try {
    writeFileSync(join(workdir, 'script.R'), SCRIPT);
    const env: Record<string, string> = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: workdir, TMPDIR: workdir };
    if (preload) Object.assign(env, { LD_PRELOAD: CAPSULE_LIBRARY, JUBE_R_CAPSULE_WORKDIR: workdir, JUBE_R_CAPSULE_KERNEL: 'off', LD_BIND_NOW: '1' });
    const result = await execa(bin, [secret, String(LEAKED_FD), 'Rscript', '--vanilla', 'script.R'], {
      cwd: workdir,
      reject: false,
      extendEnv: false,
      env,
    });
    return String(result.stdout) + String(result.stderr);
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
}

describe('descriptors inherited from the parent', () => {
  it('are closed before R starts when the capsule is preloaded', async () => {
    const out = await run(true);
    expect(out).toContain('@@leaked FALSE');
    expect(out).not.toContain('parent-secret-0815');
  });

  it('control: without the capsule, R reads the parent\'s file through the leaked descriptor', async () => {
    const out = await run(false);
    expect(out).toContain('@@leaked TRUE');
    expect(out).toContain('@@read parent-secret-0815');
  });
});
