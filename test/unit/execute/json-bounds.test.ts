/** json-bounds.ts: nesting and size without recursion, exact against JSON.stringify where it can run. */
import { describe, expect, it } from 'vitest';
import { jsonBytes, jsonDepth, valueDepth } from '../../../functions/execute/output/json-bounds.ts';

describe('jsonDepth', () => {
  it.each([
    ['1', 0], ['[]', 1], ['[[1],{"a":[2]}]', 3], ['"[[[["', 0], ['["\\"[[["]', 1], ['{"a":"\\\\"}', 1],
  ])('%s nests %i deep', (text, depth) => expect(jsonDepth(text, 100)).toBe(depth));

  it('stops counting past the limit, on text JSON.parse would take but JSON.stringify could not give back', () => {
    expect(jsonDepth('['.repeat(5_000_000), 64)).toBe(65);
  });
});

describe('jsonBytes', () => {
  it.each<[string, unknown]>([
    ['a number', 3.25], ['null', null], ['a string with escapes and non-ASCII', 'a"\\\n\u0001é\u{1F600}\ud800'],
    ['nested', { a: [1, 'x', { b: true, c: null }], d: [], e: {} }], ['a key with escapes', { 'k"y': 1 }],
  ])('%s: the size JSON.stringify gives', (_, value) => {
    expect(jsonBytes(value)).toBe(Buffer.byteLength(JSON.stringify(value)));
  });

  it('measures a value nested 1,000,000 deep without a stack overflow', () => {
    let v: unknown = 1;
    for (let i = 0; i < 1_000_000; i += 1) v = [v];
    expect(jsonBytes(v)).toBe(2_000_001);
    expect(() => JSON.stringify(v)).toThrow(RangeError);
    expect(valueDepth(v, 64)).toBe(65);
  });

  it('stops early past a limit', () => expect(jsonBytes(['x'.repeat(100), 'y'.repeat(100)], 50)).toBeGreaterThan(50));
});
