/** `jube-r run` end to end: a real process, host R, the response JSON on stdout. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'jube-r-cli-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const cli = (args: string[], input?: string) =>
  execa('node', ['scripts/jube-r.mjs', 'run', ...args], { reject: false, input, env: { JUBE_R_NAMESPACES: 'none' } });

describe('jube-r run', () => {
  it('runs a file with variables and a dataframe and exits 0', async () => {
    const script = file('ok.R', 'cat(n * 2, label, flags, nrow(d), "\\n")');
    const csv = file('d.csv', 'a,b\n1,2\n3,4\n');
    const result = await cli([script, '--var', 'n=21', '--var', 'label=plain text', '--var', 'flags=[true,false]', '--data', `d=${csv}`, '--timeout', '5']);
    expect(result.exitCode, result.stdout).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'ok', consoleOutput: '42 plain text TRUE FALSE 2 \n' });
  });

  it('reads the script from stdin and exits 1 on a script error', async () => {
    const result = await cli(['-'], 'stop("nope")');
    expect(result.exitCode).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'error', error: 'Error: nope\nAt line 1: stop("nope")' });
  });

  it('prints a failure\'s cause, line and hints on stderr, the text MCP shows first', async () => {
    const result = await cli(['-'], 'd <- data.frame(mpg = 1:3)\ndplyr::select(d, mpgg)');
    expect(result.exitCode).toBe(1);
    const response = JSON.parse(result.stdout) as { error: string };
    expect(response.error).toMatch(/\nHint: /);
    expect(result.stderr).toContain(response.error);
  });

  it.each([[['--help']], [['-h']], [['x.R', '--var', 'n=1', '--help']]])('prints its usage and runs nothing for %j', async (args) => {
    const result = await cli(args);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^usage: jube-r run FILE\|-/);
    expect(result.stdout).toMatch(/--var name=value/);
  });

  it('reads --help as a value where an option takes one', async () => {
    const result = await cli(['-', '--var', 'note=--help'], 'cat(note)');
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'ok', consoleOutput: '--help' });
  });

  it.each([[[]], [['--bogus']], [['x.R', '--var', 'novalue']], [['x.R', '--timeout', 'soon']]])('exits 2 on usage errors: %j', async (args) => {
    const result = await cli(args);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/usage: jube-r run/);
  });
});
