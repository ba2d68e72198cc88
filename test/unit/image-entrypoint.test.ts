/**
 * The image's entrypoint and reaping, as docs/image.md states them: tini runs without `-s` (and no
 * TINI_SUBREAPER is set), because Lambda refuses PR_SET_CHILD_SUBREAPER and tini `-s` then exits at
 * start (krallin/tini#218): a subreaper flag here would fail every init in Lambda while only helping
 * where tini is already PID 1. Credentials are removed before tini starts, and Node is tini's child.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../infra/lib/app.ts';

const dockerfile = readFileSync(join(REPOSITORY_ROOT, 'r-image/Dockerfile'), 'utf8');

/** The ENTRYPOINT's exec-form array, continuations joined. */
function entrypoint(text: string): string[] {
  const joined = text.replace(/\\\n\s*/g, ' ');
  const line = joined.split('\n').find((l) => l.startsWith('ENTRYPOINT '));
  if (!line) throw new Error('the Dockerfile has no ENTRYPOINT');
  return JSON.parse(line.slice('ENTRYPOINT '.length)) as string[];
}

describe('r-image ENTRYPOINT', () => {
  const argv = entrypoint(dockerfile);
  const tini = argv.indexOf('/usr/bin/tini');

  it('removes the credentials with env before tini, which starts Node directly', () => {
    expect(argv[0]).toBe('/usr/bin/env');
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']) expect(argv.slice(0, tini)).toContain(name);
    expect(argv.slice(tini + 1, tini + 3)).toEqual(['--', '/usr/local/bin/node']);
  });

  it('does not ask tini to be a child subreaper, which Lambda refuses (tini would exit at init)', () => {
    expect(tini).toBeGreaterThan(0);
    expect(argv.slice(tini + 1, argv.indexOf('--'))).toEqual([]);
    // The variable has the same effect as the flag; only comments may name it.
    expect(dockerfile.split('\n').filter((l) => !l.trimStart().startsWith('#')).join('\n')).not.toMatch(/TINI_SUBREAPER/);
    const doc = readFileSync(join(REPOSITORY_ROOT, 'docs/image.md'), 'utf8');
    expect(doc).toContain('krallin/tini/issues/218');
  });
});
