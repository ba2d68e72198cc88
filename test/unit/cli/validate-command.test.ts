/** `jube-r validate FILE|-` through the real entry point: JSON on stdout, exit 0 / 1 / 2. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ValidationResultSchema } from '../../../layers/contract/validation.ts';

const root = new URL('../../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'jube-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync('node', ['scripts/jube-r.mjs', 'validate', ...args], { cwd: root, input, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('jube-r validate', () => {
  it('prints the result and exits 0 for a valid file', () => {
    const { status, stdout } = cli([file('ok.R', 'x <- mean(1:10)\n')]);
    expect(status).toBe(0);
    expect(ValidationResultSchema.parse(JSON.parse(stdout))).toMatchObject({ valid: true, errors: [] });
  });

  it('exits 1 and prints the errors for an invalid file', () => {
    const { status, stdout } = cli([file('bad.R', 'system("id")\n')]);
    expect(status).toBe(1);
    expect(JSON.parse(stdout).errors[0]).toMatchObject({ code: 'FORBIDDEN_SYMBOL', symbol: 'system', line: 1, column: 1 });
  });

  it('reads the script from stdin with -', () => {
    expect(cli(['-'], 'library(dplyr)\n').status).toBe(0);
    expect(cli(['-'], 'x <<- 1\n').status).toBe(1);
  });

  it.each([
    ['no file', []],
    ['extra arguments', ['a.R', 'b.R']],
    ['a missing file', [join(dir, 'does-not-exist.R')]],
    ['a directory', [dir]],
  ])('exits 2 with usage on stderr for %s', (_, args) => {
    const { status, stdout, stderr } = cli(args);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/jube-r validate/);
  });
});
