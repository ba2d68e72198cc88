/**
 * Fuzzing: thousands of seeded random and mutated inputs. The validator must never throw, never
 * hang, return a well-formed result for each within a bound, and the fast walk must agree with
 * the full reference walk on every one (the lexical pre-scan may never miss a finding).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ValidationResultSchema } from '../../../layers/contract/validation.ts';
import { loadRules } from '../../../layers/rules/rules.ts';
import { findings, fullWalkValidator, validator } from './support.ts';

/** mulberry32: a tiny seeded PRNG, so a failure reproduces. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const limits = loadRules().script;
const dir = new URL('../../fixtures/corpus/benign/', import.meta.url);
const corpus = readdirSync(dir).map((f) => readFileSync(new URL(f, dir), 'utf8'));
const ATOMS = [
  '(', ')', '[', ']', '{', '}', '[[', ']]', '"', "'", '`', 'r"(', ')"', 'r"-[', ']-"', '#', '\n', '\r\n', '\\', '\0',
  ' ', 'x', '<-', '<<-', '->>', '=', '::', ':::', '$', '@', '|>', '%>%', '%in%', '\\(x)', 'function', 'if', 'else',
  'system', 'library', 'options', 'get', 'T', 'F', '1:length(x)', '"system"', "'/home/a'", 'é', '😀', '\u202e', ',', ';',
  'UseMethod', 'class', 'structure', '~', '-', '!', '?', '1e5', '0x1F', '.5', '1L', '\\x73', '\\u{73}',
  '2system', '0x1Fget', '1e5eval', '.5T', '1Lsystem', '\u200bsystem', 'x.system', '_system',
];

function generate(rand: () => number, i: number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const base = pick(corpus);
  switch (i % 10) {
    case 0: // random code points, including controls, surrogate halves and NULs
      return Array.from({ length: Math.floor(rand() * 400) }, () => String.fromCharCode(Math.floor(rand() * 0xffff))).join('');
    case 1: // random ASCII bytes
      return Array.from({ length: Math.floor(rand() * 800) }, () => String.fromCharCode(Math.floor(rand() * 128))).join('');
    case 2: // token soup
      return Array.from({ length: Math.floor(rand() * 300) }, () => pick(ATOMS)).join(rand() < 0.5 ? ' ' : '');
    case 3: // truncation of a real script
      return base.slice(0, Math.floor(rand() * base.length));
    case 4: {
      // point mutations of a real script
      const chars = [...base];
      for (let k = 0; k < 1 + Math.floor(rand() * 8); k += 1) {
        const at = Math.floor(rand() * chars.length);
        const op = rand();
        if (op < 0.33) chars.splice(at, 1);
        else if (op < 0.66) chars.splice(at, 0, pick(ATOMS));
        else chars[at] = pick(ATOMS);
      }
      return chars.join('');
    }
    case 5: {
      // nesting around the limit, balanced or not
      const depth = limits.maxNestingDepth - 3 + Math.floor(rand() * 6);
      const open = pick(['(', '{', '[', 'f(']);
      const close = open === '{' ? '}' : open === '[' ? ']' : ')';
      return `${open.repeat(depth)}x${rand() < 0.7 ? close.repeat(depth) : ''}`;
    }
    case 6: // unbalanced quotes and raw strings
      return `x <- ${pick(['"', "'", '`', 'r"(', 'r"--{', 'R\'['])}${base.slice(0, 200)}`;
    case 7: // a long line
      return `x <- c(${Array.from({ length: 200 + Math.floor(rand() * 800) }, (_, k) => (k % 7 === 0 ? 'system' : k)).join(', ')})`;
    case 8: // CRLF, CR-only and mixed line endings
      return rand() < 0.5 ? base.replace(/\n/g, '\r\n') : base.replace(/\n/g, '\r');
    default: // valid scripts with attack tokens spliced between statements
      return base
        .split('\n')
        .map((line) => (rand() < 0.1 ? `${line}\n${pick(['system("id")', 'f <- get', '"eval"(1)', 'x <<- 1', 'tools::x()', 'options(op)'])}` : line))
        .join('\n');
  }
}

const COUNT = 3000;
const PER_INPUT_MS = 250;

describe('fuzz', () => {
  it(`decides ${COUNT} seeded random and mutated inputs without throwing, each within ${PER_INPUT_MS} ms`, async () => {
    const [fast, full] = [await validator(), await fullWalkValidator()];
    const rand = prng(0x5eed);
    const slow: string[] = [];
    const disagreements: string[] = [];
    const started = performance.now();
    for (let i = 0; i < COUNT; i += 1) {
      const input = generate(rand, i);
      const t0 = performance.now();
      const result = fast(input);
      const took = performance.now() - t0;
      if (took > PER_INPUT_MS) slow.push(`#${i} ${took.toFixed(0)} ms`);
      expect(ValidationResultSchema.safeParse(result).success).toBe(true);
      if (JSON.stringify(findings(result)) !== JSON.stringify(findings(full(input)))) disagreements.push(`#${i}: ${JSON.stringify(input.slice(0, 200))}`);
    }
    expect(slow).toEqual([]);
    expect(disagreements).toEqual([]);
    expect(performance.now() - started).toBeLessThan(60_000);
  }, 90_000);

  it('decides a script of random bytes at the size limit within a bound', async () => {
    const rand = prng(7);
    const bytes = Array.from({ length: limits.maxBytes }, () => String.fromCharCode(32 + Math.floor(rand() * 95))).join('');
    const validate = await validator();
    const t0 = performance.now();
    const result = validate(bytes);
    expect(ValidationResultSchema.safeParse(result).success).toBe(true);
    expect(performance.now() - t0).toBeLessThan(15_000);
  }, 30_000);

  it('decides a single 200 KB line within a bound', async () => {
    const line = `x <- c(${Array.from({ length: 40_000 }, (_, k) => (k % 2 ? '"a"' : 'T')).join(', ')})`;
    const validate = await validator();
    const t0 = performance.now();
    const result = validate(line);
    expect(result.valid).toBe(true);
    expect(result.lint).toHaveLength(100);
    expect(performance.now() - t0).toBeLessThan(15_000);
  }, 30_000);

  it('never throws on non-string input from untyped callers', async () => {
    const validate = await validator();
    for (const input of [undefined, null, 42, {}, ['x']]) {
      expect(validate(input as unknown as string).valid).toBe(false);
    }
  });
});
