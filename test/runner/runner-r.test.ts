/**
 * The R runner's own tests (test/runner/r/test-<part>.R), run with Rscript and no Node in between:
 * a regression in one rule of the re-validation, the mask or the hardening shows up here as the
 * case that names it. Each R case is reported as one test.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

interface RCase {
  readonly name: string;
  readonly ok: boolean;
  readonly message?: string;
}

const dir = fileURLToPath(new URL('./r/', import.meta.url));
const files = readdirSync(dir).filter((file) => /^test-.+\.R$/.test(file)).sort();

// Every file at once, before the cases are declared (vitest needs the list up front).
const runs = await Promise.all(
  files.map(async (file) => {
    const run = await execa('Rscript', ['--vanilla', 'harness.R', file], { cwd: dir, reject: false, timeout: 60_000 });
    const cases = run.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as RCase);
    return { file, exitCode: run.exitCode, stderr: run.stderr, cases };
  }),
);

describe.each(runs)('$file', ({ exitCode, stderr, cases }) => {
  it('runs to the end', () => {
    expect(exitCode, stderr).toBe(0);
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(cases)('$name', ({ ok, message }) => {
    expect(message).toBeUndefined();
    expect(ok).toBe(true);
  });
});
