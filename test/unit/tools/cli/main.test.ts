/** `jube-r` itself: help for the command line and for each command, and usage errors, through the real entry point. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../../', import.meta.url).pathname;
const cli = (args: string[]) => spawnSync('node', ['scripts/jube-r.mjs', ...args], { cwd: root, encoding: 'utf8', timeout: 30_000 });

describe('jube-r', () => {
  it.each([['--help'], ['-h'], ['help']])('prints the commands on stdout and exits 0 for %s', (flag) => {
    const run = cli([flag]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^usage: jube-r <command> \[options\]/);
    for (const command of ['validate', 'run', 'serve']) expect(run.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect(run.stderr).toBe('');
  });

  it.each([
    ['validate', /^usage: jube-r validate/],
    ['run', /^usage: jube-r run FILE\|-/],
    ['serve', /^usage: jube-r serve\n/],
  ])('%s --help prints that command\'s usage, runs nothing and exits 0', (command, usage) => {
    for (const args of [[command, '--help'], ['help', command]]) {
      const run = cli(args);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(usage);
    }
  });

  it('exits 2 with the usage on stderr without a command, with an unknown one, or help for an unknown one', () => {
    for (const args of [[], ['bogus'], ['help', 'bogus']]) {
      const run = cli(args);
      expect(run.status).toBe(2);
      expect(run.stdout + run.stderr).toMatch(/usage: jube-r <command>/);
    }
    expect(cli(['bogus']).stderr).toMatch(/unknown command bogus/);
  });

  it('serve with an argument other than --help is a usage error', () => {
    const run = cli(['serve', '--port', '9']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^usage: jube-r serve/);
  });
});
