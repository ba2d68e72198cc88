/**
 * The benign corpus: realistic analysis scripts (test/fixtures/corpus/benign/*.R) that must be
 * accepted with no errors. A false positive here is a bug like a missed attack. The same scripts
 * run to status ok with real R in test/runner/benign-corpus.test.ts; `npm run bench -- corpus`
 * reports the acceptance rate with and without the rules' relaxations.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findings, fullWalkValidator, validator } from './support.ts';

const dir = new URL('../../fixtures/corpus/benign/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.R'));
const read = (f: string): string => readFileSync(new URL(f, dir), 'utf8');

describe('benign corpus', () => {
  it('has the realistic scripts it promises', () => {
    expect(files.length).toBeGreaterThanOrEqual(40);
  });

  it.each(files)('accepts %s with no errors', async (file) => {
    const result = (await validator())(read(file));
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it.each(files)('judges %s identically with the full reference walk', async (file) => {
    const script = read(file);
    expect(findings((await validator())(script))).toEqual(findings((await fullWalkValidator())(script)));
  });

  it('accepts the whole corpus as one script, with CRLF line endings too', async () => {
    const all = files.map(read).join('\n');
    const validate = await validator();
    expect(validate(all).errors).toEqual([]);
    expect(validate(all.replace(/\n/g, '\r\n')).errors).toEqual([]);
  });
});
