import { describe, expect, it } from 'vitest';
import {
  ConsoleCapture, RESULT_END, RESULT_START, capText, capWarnings, omittedLine, trimIncompleteUtf8, trimLeadingContinuation, utf8Prefix,
} from '../../../functions/execute/output/caps.ts';

/** Feeds `text` in chunks of `size` bytes, the way a pipe delivers it. */
function feed(capture: ConsoleCapture, text: string, size: number): ConsoleCapture {
  const buf = Buffer.from(text, 'utf8');
  for (let i = 0; i < buf.length; i += size) capture.push(buf.subarray(i, i + size));
  return capture;
}

describe('ConsoleCapture', () => {
  it.each([1, 2, 7, 1000])('keeps the console and finds the result whatever the chunking (%i-byte chunks)', (size) => {
    const text = `before\n${RESULT_START}{"a": [1, "é"]}${RESULT_END}\nafter\n`;
    const capture = feed(new ConsoleCapture(1024, 1024), text, size);
    expect(capture.consoleText()).toBe(text);
    expect(capture.truncated).toBe(false);
    expect(capture.result()).toEqual({ kind: 'ok', value: { a: [1, 'é'] } });
  });

  it.each([
    { name: 'no markers', text: 'just text {"a":1}', expected: { kind: 'none' } },
    { name: 'a start marker only', text: `${RESULT_START}{"a":1}`, expected: { kind: 'none' } },
    { name: 'an end marker only', text: `{"a":1}${RESULT_END}`, expected: { kind: 'none' } },
  ])('$name: no result', ({ text, expected }) => {
    expect(feed(new ConsoleCapture(1024, 1024), text, 3).result()).toEqual(expected);
  });

  it('reports invalid JSON between the markers as a warning', () => {
    const result = feed(new ConsoleCapture(1024, 1024), `${RESULT_START}{nope${RESULT_END}`, 5).result();
    expect(result.kind).toBe('invalid');
  });

  it('the last complete pair wins', () => {
    const text = `${RESULT_START}1${RESULT_END}${RESULT_START}2${RESULT_END}`;
    expect(feed(new ConsoleCapture(1024, 1024), text, 4).result()).toEqual({ kind: 'ok', value: 2 });
  });

  it('keeps the head and the tail of a long console with the omitted count between, yet finds a result in the middle', () => {
    const text = `${'h'.repeat(5_000)}${RESULT_START}true${RESULT_END}${'t'.repeat(5_000)}`;
    const capture = feed(new ConsoleCapture(100, 1024), text, 333);
    const omitted = Buffer.byteLength(text) - 100;
    expect(capture.consoleText()).toBe(`${'h'.repeat(50)}${omittedLine(omitted)}${'t'.repeat(50)}`);
    expect(capture.truncated).toBe(true);
    expect(capture.bytesSeen).toBe(Buffer.byteLength(text));
    expect(capture.snapshot()).toMatchObject({ bytes: Buffer.byteLength(text), omittedBytes: omitted });
    expect(capture.result()).toEqual({ kind: 'ok', value: true });
  });

  it.each([1, 7, 64, 5000])('cuts nothing at exactly the cap, and one byte over cuts one byte (%i-byte chunks)', (size) => {
    const exact = feed(new ConsoleCapture(100, 10), 'a'.repeat(60) + 'b'.repeat(40), size);
    expect(exact.snapshot()).toMatchObject({ consoleOutput: 'a'.repeat(60) + 'b'.repeat(40), truncated: false, omittedBytes: 0 });
    const over = feed(new ConsoleCapture(100, 10), 'a'.repeat(61) + 'b'.repeat(40), size);
    expect(over.snapshot()).toMatchObject({ consoleOutput: `${'a'.repeat(50)}${omittedLine(1)}${'a'.repeat(10)}${'b'.repeat(40)}`, truncated: true, omittedBytes: 1 });
  });

  it('drops a result larger than its cap', () => {
    const result = feed(new ConsoleCapture(10, 8), `${RESULT_START}[1,2,3,4,5]${RESULT_END}`, 2).result();
    expect(result).toMatchObject({ kind: 'invalid', overflow: true });
  });

  it('never splits a UTF-8 character at either cut, and counts the bytes of the cut ones as omitted', () => {
    // 10 bytes: a head of 2 (one é) and a tail of 3 (its first byte a continuation, dropped).
    const capture = feed(new ConsoleCapture(5, 10), 'ééééé', 1);
    expect(capture.consoleText()).toBe(`é${omittedLine(6)}é`);
  });
});

describe('caps', () => {
  it.each([
    { text: 'abc', max: 3, value: 'abc', truncated: false },
    { text: 'abcd', max: 3, value: 'abc', truncated: true },
    { text: 'aé', max: 2, value: 'a', truncated: true },
    { text: '€€', max: 5, value: '€', truncated: true },
  ])('capText($text, $max)', ({ text, max, value, truncated }) => {
    expect(capText(text, max)).toEqual({ value, truncated });
  });

  it('utf8Prefix and trimIncompleteUtf8 agree on boundaries', () => {
    const buf = Buffer.from('a€b');
    expect(utf8Prefix(buf, 2).toString()).toBe('a');
    expect(trimIncompleteUtf8(buf.subarray(0, 3)).toString()).toBe('a');
    expect(trimIncompleteUtf8(buf.subarray(0, 4)).toString()).toBe('a€');
    expect(trimLeadingContinuation(buf.subarray(2)).toString()).toBe('b');
  });

  it('caps warnings by count and by total bytes', () => {
    expect(capWarnings(['a', 'b', 'c'], 2, 100)).toEqual({ value: ['a', 'b'], truncated: true });
    expect(capWarnings(['aaaa', 'bbbb'], 10, 6)).toEqual({ value: ['aaaa'], truncated: true });
    expect(capWarnings(['a'], 10, 6)).toEqual({ value: ['a'], truncated: false });
  });
});

describe('the structured result\'s nesting', () => {
  it('is bounded before parsing: 64 levels pass, 65 and a million are dropped with a warning', () => {
    const nested = (n: number) => `${RESULT_START}${'['.repeat(n)}${']'.repeat(n)}${RESULT_END}`;
    expect(feed(new ConsoleCapture(1 << 20, 4 << 20), nested(64), 7).result().kind).toBe('ok');
    expect(feed(new ConsoleCapture(1 << 20, 4 << 20), nested(65), 7).result()).toEqual({
      kind: 'invalid', warning: 'the structured result nests deeper than 64 levels and was dropped',
    });
    expect(feed(new ConsoleCapture(1 << 20, 4 << 20), nested(1_000_000), 4096).result().kind).toBe('invalid');
  });
});

describe('console cut on lines', () => {
  it('keeps whole lines of the head and the tail, and says how many bytes went between them', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => `row ${i} ${'x'.repeat(i % 7)}\n`).join('');
    const capture = new ConsoleCapture(200, 10);
    capture.push(Buffer.from(rows));
    const { text, omittedBytes } = capture.console();
    const [head, tail] = text.split(/\[\.\.\. \d+ bytes of console output omitted \.\.\.\]\n/);
    expect(head!.startsWith('row 0 \n')).toBe(true);
    expect(head!.endsWith('\n')).toBe(true);
    expect(tail!.endsWith('row 999 xxxxx\n')).toBe(true);
    expect(tail!.startsWith('row ')).toBe(true);
    expect(Buffer.byteLength(head!) + Buffer.byteLength(tail!) + omittedBytes).toBe(Buffer.byteLength(rows));
    expect(Buffer.byteLength(head!) + Buffer.byteLength(tail!)).toBeLessThanOrEqual(200);
    for (const line of `${head}${tail}`.split('\n').filter(Boolean)) expect(line).toMatch(/^row \d+ x*$/);
  });
});
