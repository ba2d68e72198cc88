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
    const capture = feed(new ConsoleCapture(200, 1024), text, 333);
    // 200 less the longest omitted line (49 bytes, five digits) leaves a head of 75 and a tail of 76.
    const omitted = Buffer.byteLength(text) - 151;
    expect(capture.consoleText()).toBe(`${'h'.repeat(75)}${omittedLine(omitted)}${'t'.repeat(76)}`);
    expect(capture.truncated).toBe(true);
    expect(capture.bytesSeen).toBe(Buffer.byteLength(text));
    expect(capture.snapshot()).toMatchObject({ bytes: Buffer.byteLength(text), omittedBytes: omitted });
    expect(capture.result()).toEqual({ kind: 'ok', value: true });
  });

  it.each([1, 7, 64, 5000])('cuts nothing at exactly the cap, and one byte over cuts one byte (%i-byte chunks)', (size) => {
    const exact = feed(new ConsoleCapture(100, 10), 'a'.repeat(60) + 'b'.repeat(40), size);
    expect(exact.snapshot()).toMatchObject({ consoleOutput: 'a'.repeat(60) + 'b'.repeat(40), truncated: false, omittedBytes: 0 });
    const over = feed(new ConsoleCapture(100, 10), 'a'.repeat(61) + 'b'.repeat(40), size);
    // The omitted line for 101 bytes is at most 47 long: 53 are left, a head of 26 and a tail of 27.
    expect(over.snapshot()).toMatchObject({ consoleOutput: `${'a'.repeat(26)}${omittedLine(48)}${'b'.repeat(27)}`, truncated: true, omittedBytes: 48 });
    expect(Buffer.byteLength(over.consoleText())).toBeLessThanOrEqual(100);
  });

  it('drops a result larger than its cap', () => {
    const result = feed(new ConsoleCapture(10, 8), `${RESULT_START}[1,2,3,4,5]${RESULT_END}`, 2).result();
    expect(result).toMatchObject({ kind: 'invalid', overflow: true });
  });

  it('never splits a UTF-8 character at either cut, and counts the bytes of the cut ones as omitted', () => {
    // 200 bytes in a budget of 61: 14 beside the omitted line, a head of 7 and a tail of 7, each
    // cut back to three whole characters.
    const capture = feed(new ConsoleCapture(61, 10), 'é'.repeat(100), 1);
    expect(capture.consoleText()).toBe(`ééé${omittedLine(188)}ééé`);
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

describe('the console budget bounds the whole consoleOutput, the omitted line included', () => {
  const texts = {
    lines: Array.from({ length: 400 }, (_, i) => `row ${i} ${'x'.repeat(i % 9)}\n`).join(''),
    multibyte: Array.from({ length: 300 }, (_, i) => `${[...'é€😀'].slice(0, 1 + (i % 3)).join('')}${'ü'.repeat(i % 5)}\n`).join(''),
    'one long line': 'é'.repeat(3000),
  };

  it.each(Object.entries(texts))('%s: every budget from 1 to 400 bytes holds, on line boundaries where there are lines', (_name, text) => {
    const total = Buffer.byteLength(text);
    for (let budget = 1; budget <= 400; budget += 1) {
      const { text: out, omittedBytes } = feed(new ConsoleCapture(budget, 10), text, 97).console();
      expect(Buffer.byteLength(out)).toBeLessThanOrEqual(budget);
      expect(out).not.toContain('\ufffd');
      const line = `[... ${omittedBytes} bytes of console output omitted ...]\n`;
      const at = out.indexOf(line);
      if (at >= 0) {
        // The line starts on a line of its own: after the head's last line break, or one of its own.
        const headPart = out.slice(0, at);
        const tail = out.slice(at + line.length);
        expect(headPart === '' || headPart.endsWith('\n')).toBe(true);
        const heads = [headPart, headPart.slice(0, -1)].filter((h) => text.startsWith(h) && Buffer.byteLength(h) + Buffer.byteLength(tail) + omittedBytes === total);
        expect(heads.length).toBeGreaterThan(0);
        expect(text.endsWith(tail)).toBe(true);
        // Cut back to whole lines wherever the kept part holds a line break (else a part of a line stays).
        if (tail.slice(0, -1).includes('\n')) expect(text.slice(0, text.length - tail.length).endsWith('\n')).toBe(true);
      } else {
        // Too small for the omitted line itself: nothing, and the count says it all went.
        expect(out).toBe('');
        expect(omittedBytes).toBe(total);
      }
    }
  });

  it('keeps exactly the budget whole and cuts one byte more to within it, multibyte text too', () => {
    for (const text of Object.values(texts)) {
      const total = Buffer.byteLength(text);
      expect(feed(new ConsoleCapture(total, 10), text, 13).snapshot()).toMatchObject({ consoleOutput: text, truncated: false, omittedBytes: 0 });
      const over = feed(new ConsoleCapture(total - 1, 10), text, 13).snapshot();
      expect(over.truncated).toBe(true);
      expect(Buffer.byteLength(over.consoleOutput)).toBeLessThanOrEqual(total - 1);
      expect(over.omittedBytes).toBeGreaterThan(0);
    }
  });

  it('a budget just big enough for the omitted line carries it alone; one byte less carries nothing', () => {
    const text = 'x'.repeat(500);
    const alone = omittedLine(500, true);
    const size = Buffer.byteLength(alone);
    expect(feed(new ConsoleCapture(size, 10), text, 64).console()).toEqual({ text: alone, omittedBytes: 500 });
    expect(feed(new ConsoleCapture(size - 1, 10), text, 64).console()).toEqual({ text: '', omittedBytes: 500 });
  });

  it('the default 16 KiB budget holds a 700 KB print to 16384 bytes or fewer', () => {
    const rows = Array.from({ length: 60_000 }, (_, i) => `${String(i + 1).padStart(6)} ${(i * 0.37).toFixed(3)}\n`).join('');
    const capture = feed(new ConsoleCapture(16_384, 1024), rows, 65_536);
    const { text } = capture.console();
    expect(capture.truncated).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(16_384);
    expect(Buffer.byteLength(text)).toBeGreaterThan(16_384 - 64);
  });
});
