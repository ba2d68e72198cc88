/** `jube-r validate [--format json|text] FILE|-` through the real entry point: JSON or text on stdout, exit 0 / 1 / 2. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ValidationResultSchema } from '../../../../layers/contract/validation.ts';
import { formatText, parseValidateArguments } from '../../../../functions/tools/cli/validate-command.ts';

const root = new URL('../../../../', import.meta.url).pathname;
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

/** FILE:LINE:COL: HEAD message, as compilers print a finding; HEAD is an error code or "severity rule". */
const COMPILER_LINE = /^(.+):(\d+):(\d+): ([A-Z_]+|(?:warning|info) [A-Za-z-]+) (.+)$/;

describe('jube-r validate', () => {
  it('prints the result and exits 0 for a valid file', () => {
    const { status, stdout } = cli([file('ok.R', 'x <- mean(1:10)\n')]);
    expect(status).toBe(0);
    expect(ValidationResultSchema.parse(JSON.parse(stdout))).toMatchObject({ valid: true, errors: [] });
  });

  it('exits 1 and prints the errors for an invalid file', () => {
    const { status, stdout } = cli([file('bad.R', 'system("id")\n')]);
    expect(status).toBe(1);
    expect(JSON.parse(stdout).errors[0]).toMatchObject({ code: 'CAPABILITY_NOT_AVAILABLE', symbol: 'system', line: 1, column: 1 });
  });

  it('reads the script from stdin with -', () => {
    expect(cli(['-'], 'library(dplyr)\n').status).toBe(0);
    expect(cli(['-'], 'library(notapkg)\n').status).toBe(1);
  });

  describe('--format text', () => {
    it('prints one compiler-style line per finding, in document order, and exits 1 when invalid', () => {
      const path = file('mixed.R', 'x <- 1:length(y)\nsystem("id")\nlibrary(dplr)\n');
      const { status, stdout } = cli(['--format', 'text', path]);
      expect(status).toBe(1);
      const lines = stdout.trimEnd().split('\n');
      expect(lines.every((l) => COMPILER_LINE.test(l))).toBe(true);
      expect(lines.map((l) => l.match(COMPILER_LINE)!.slice(1, 5))).toEqual([
        [path, '1', '6', 'warning seq-linter'],
        [path, '2', '1', 'CAPABILITY_NOT_AVAILABLE'],
        [path, '3', '9', 'PACKAGE_NOT_ALLOWED'],
      ]);
      expect(lines[2]).toMatch(/Did you mean 'dplyr'\? GET \/packages/);
    });

    it('says "valid" for a valid script and exits 0', () => {
      const path = file('clean.R', 'x <- mean(1:10)\n');
      expect(cli(['--format=text', path])).toMatchObject({ status: 0, stdout: `${path}: valid\n` });
    });

    it('names stdin <stdin>', () => {
      expect(cli(['--format', 'text', '-'], 'system("x")\n').stdout).toMatch(/^<stdin>:1:1: CAPABILITY_NOT_AVAILABLE /);
    });
  });

  it.each([['--help'], ['-h'], ['x.R', '--help']])('prints its usage on stdout and exits 0 for %j', (...args) => {
    const { status, stdout, stderr } = cli(args);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^usage: jube-r validate \[--format json\|text\] FILE\|-/);
    expect(stdout).toMatch(/FILE:LINE:COL: CODE message/);
    expect(stderr).toBe('');
  });

  it.each([
    ['no file', []],
    ['extra arguments', ['a.R', 'b.R']],
    ['a missing file', [join(dir, 'does-not-exist.R')]],
    ['a directory', [dir]],
    ['an unknown format', ['--format', 'xml', 'a.R']],
    ['a format without a value', ['a.R', '--format']],
    ['an unknown option', ['--verbose', 'a.R']],
  ])('exits 2 with usage on stderr for %s', (_, args) => {
    const { status, stdout, stderr } = cli(args);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/jube-r validate/);
  });
});

describe('the text format', () => {
  it('folds a multi-line message onto its line and puts an error before lint at the same place', () => {
    const text = formatText('s.R', {
      valid: false,
      errors: [{ code: 'SYNTAX_ERROR', message: 'unexpected end\n  of input', line: 2, column: 1 }],
      lint: [{ rule: 'absolute-path', message: 'absolute', line: 2, column: 1, severity: 'info' }],
      durationMs: 1,
    });
    expect(text).toBe('s.R:2:1: SYNTAX_ERROR unexpected end of input\ns.R:2:1: info absolute-path absolute\n');
  });

  it('says "valid" after the lint of a script that may run', () => {
    const lint = [{ rule: 'absolute-path', message: 'absolute', line: 3, column: 2, severity: 'info' as const }];
    expect(formatText('s.R', { valid: true, errors: [], lint, durationMs: 1 })).toBe('s.R:3:2: info absolute-path absolute\ns.R: valid\n');
    expect(formatText('s.R', { valid: true, errors: [], lint: [], durationMs: 1 })).toBe('s.R: valid\n');
  });

  it('parses --format in both spellings and defaults to json', () => {
    expect(parseValidateArguments(['a.R'])).toEqual({ help: false, format: 'json', source: 'a.R' });
    expect(parseValidateArguments(['--format=text', '-'])).toEqual({ help: false, format: 'text', source: '-' });
    expect(parseValidateArguments(['--format', 'yaml', 'a.R'])).toBe('--format takes json or text');
  });
});
