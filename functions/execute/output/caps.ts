/**
 * Stream-and-cap: the handler never holds more of a script's output than the caps allow, however
 * much the script prints. Pure logic; the caller feeds chunks.
 */
import { ENVELOPE_LIMITS, RESULT_MARKERS } from '../../../layers/contract/runner.ts';
import { jsonDepth } from './json-bounds.ts';

/** The longest prefix of `buf` (at most `maxBytes`) that does not split a UTF-8 character. */
export function utf8Prefix(buf: Buffer, maxBytes: number): Buffer {
  if (buf.length <= maxBytes) return buf;
  let end = Math.max(0, maxBytes);
  // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && end < buf.length && (buf[end]! & 0xc0) === 0x80) end -= 1;
  return buf.subarray(0, end);
}

/** Drops leading UTF-8 continuation bytes (the cut fell inside a character). */
export function trimLeadingContinuation(buf: Buffer): Buffer {
  let start = 0;
  while (start < buf.length && start < 3 && (buf[start]! & 0xc0) === 0x80) start += 1;
  return buf.subarray(start);
}

/** Drops a trailing, cut-off UTF-8 character (the cap fell inside it). */
export function trimIncompleteUtf8(buf: Buffer): Buffer {
  for (let back = 1; back <= Math.min(4, buf.length); back += 1) {
    const byte = buf[buf.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? buf.subarray(0, buf.length - back) : buf;
  }
  return buf;
}

export interface Capped<T> {
  readonly value: T;
  readonly truncated: boolean;
}

export function capText(text: string, maxBytes: number): Capped<string> {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return { value: text, truncated: false };
  return { value: utf8Prefix(buf, maxBytes).toString('utf8'), truncated: true };
}

/** Keeps warnings in order while both the count and the total byte size stay within the caps. */
export function capWarnings(warnings: readonly string[], maxCount: number, maxBytes: number): Capped<string[]> {
  const kept: string[] = [];
  let bytes = 0;
  for (const warning of warnings) {
    const size = Buffer.byteLength(warning, 'utf8');
    if (kept.length >= maxCount || bytes + size > maxBytes) return { value: kept, truncated: true };
    kept.push(warning);
    bytes += size;
  }
  return { value: kept, truncated: false };
}

export const RESULT_START = RESULT_MARKERS.start;
export const RESULT_END = RESULT_MARKERS.end;

export type ResultExtraction =
  | { readonly kind: 'none' }
  | { readonly kind: 'ok'; readonly value: unknown }
  | { readonly kind: 'invalid'; readonly warning: string };

/** What a capture holds once the stream has ended: a value the response is built from. */
export interface CapturedOutput {
  readonly consoleOutput: string;
  /** The console was cut at its cap. */
  readonly truncated: boolean;
  /** Every byte R wrote to stdout, and how many of them the middle cut left out. */
  readonly bytes?: number;
  readonly omittedBytes?: number;
  readonly result: ResultExtraction & { readonly overflow?: boolean };
}

/** The line the console text carries where its middle was cut (`atLineStart`: the head ends a line). */
export const omittedLine = (bytes: number, atLineStart = false): string =>
  `${atLineStart ? '' : '\n'}[... ${bytes} bytes of console output omitted ...]\n`;

const NEWLINE = 0x0a;

/** The head up to its last complete line, when it has one: a reader never sees half a row. */
function wholeLinesHead(head: Buffer): Buffer {
  const last = head.lastIndexOf(NEWLINE);
  return last >= 0 ? head.subarray(0, last + 1) : head;
}

/** The tail from its first complete line, when it has one. */
function wholeLinesTail(tail: Buffer): Buffer {
  const first = tail.indexOf(NEWLINE);
  return first >= 0 && first < tail.length - 1 ? tail.subarray(first + 1) : tail;
}

/**
 * Consumes a byte stream once: keeps its first and last `consoleBytes / 2` bytes (an agent needs
 * both how a run started and how it ended), of which the response carries what fits beside the
 * omitted line, cut back to whole lines where the kept part has any, and finds the structured result between the markers
 * anywhere in the stream (in the cut middle too), holding at most `resultBytes` of it. The last
 * complete marker pair wins.
 */
export class ConsoleCapture {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;
  private totalBytes = 0;
  private readonly headLimit: number;
  private readonly tailLimit: number;
  /** Bytes as latin1 text (one char per byte), so marker search and byte counts agree. */
  private carry = '';
  private inside = false;
  private current: string[] = [];
  private currentBytes = 0;
  private currentOverflow = false;
  private last: { text: string; overflow: boolean } | undefined;

  constructor(
    private readonly consoleBytes: number,
    private readonly resultBytes: number,
  ) {
    this.headLimit = Math.floor(consoleBytes / 2);
    this.tailLimit = consoleBytes - this.headLimit;
  }

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const room = this.headLimit - this.headBytes;
      const part = rest.length <= room ? rest : rest.subarray(0, room);
      this.head.push(Buffer.from(part));
      this.headBytes += part.length;
      rest = rest.subarray(part.length);
    }
    if (rest.length > 0) this.keepTail(rest);
    this.scan(chunk.toString('latin1'));
  }

  /** Holds at most the last tailLimit bytes (plus one chunk while it is trimmed). */
  private keepTail(part: Buffer): void {
    const kept = part.length > this.tailLimit ? part.subarray(part.length - this.tailLimit) : part;
    this.tail.push(Buffer.from(kept));
    this.tailBytes += kept.length;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= this.tailLimit) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  private scan(text: string): void {
    let s = this.carry + text;
    for (;;) {
      const marker = this.inside ? RESULT_END : RESULT_START;
      const at = s.indexOf(marker);
      if (at < 0) {
        // Keep a possible marker prefix for the next chunk; the rest is settled.
        const keep = Math.min(s.length, marker.length - 1);
        if (this.inside) this.collect(s.slice(0, s.length - keep));
        this.carry = s.slice(s.length - keep);
        return;
      }
      if (this.inside) {
        this.collect(s.slice(0, at));
        this.last = { text: this.current.join(''), overflow: this.currentOverflow };
        this.inside = false;
      } else {
        this.inside = true;
        this.current = [];
        this.currentBytes = 0;
        this.currentOverflow = false;
      }
      s = s.slice(at + marker.length);
    }
  }

  private collect(part: string): void {
    if (part.length === 0 || this.currentOverflow) return;
    if (this.currentBytes + part.length > this.resultBytes) {
      this.currentOverflow = true;
      this.current = [];
      return;
    }
    this.current.push(part);
    this.currentBytes += part.length;
  }

  get truncated(): boolean {
    return this.totalBytes > this.consoleBytes;
  }

  get bytesSeen(): number {
    return this.totalBytes;
  }

  /**
   * The console as the response carries it, and how many bytes of it were left out. The budget
   * bounds the whole text, the omitted line included: the head and the tail share what the longest
   * possible line (every byte omitted, after a head that does not end a line) leaves, so the count
   * it finally carries, never longer, cannot push the text over. A budget too small for the line
   * alone carries nothing; consoleOutputOmittedBytes and the note still say what went.
   */
  console(): { text: string; omittedBytes: number } {
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    if (!this.truncated) return { text: Buffer.concat([head, tail]).toString('utf8'), omittedBytes: 0 };
    const room = this.consoleBytes - Buffer.byteLength(omittedLine(this.totalBytes));
    if (room < 0) {
      const alone = omittedLine(this.totalBytes, true);
      return Buffer.byteLength(alone) <= this.consoleBytes ? { text: alone, omittedBytes: this.totalBytes } : { text: '', omittedBytes: this.totalBytes };
    }
    const headRoom = Math.floor(room / 2);
    const tailRoom = room - headRoom;
    const kept = {
      head: wholeLinesHead(trimIncompleteUtf8(utf8Prefix(head, headRoom))),
      tail: wholeLinesTail(trimLeadingContinuation(tail.subarray(Math.max(0, tail.length - tailRoom)))),
    };
    const omittedBytes = this.totalBytes - kept.head.length - kept.tail.length;
    const atLineStart = kept.head.length === 0 || kept.head[kept.head.length - 1] === NEWLINE;
    return { text: `${kept.head.toString('utf8')}${omittedLine(omittedBytes, atLineStart)}${kept.tail.toString('utf8')}`, omittedBytes };
  }

  consoleText(): string {
    return this.console().text;
  }

  snapshot(): CapturedOutput {
    const { text, omittedBytes } = this.console();
    return { consoleOutput: text, truncated: this.truncated, bytes: this.totalBytes, omittedBytes, result: this.result() };
  }

  result(): ResultExtraction & { readonly overflow?: boolean } {
    if (!this.last) return { kind: 'none' };
    if (this.last.overflow) {
      return { kind: 'invalid', warning: `the structured result exceeded ${this.resultBytes} bytes and was dropped`, overflow: true };
    }
    const text = Buffer.from(this.last.text, 'latin1').toString('utf8');
    // Nesting is bounded before parsing: the response is serialized (by the log line and by
    // Lambda) with JSON.stringify, which recurses.
    const depth = ENVELOPE_LIMITS.maxDepth;
    if (jsonDepth(text, depth) > depth) return { kind: 'invalid', warning: `the structured result nests deeper than ${depth} levels and was dropped` };
    try {
      return { kind: 'ok', value: JSON.parse(text) as unknown };
    } catch (error) {
      return { kind: 'invalid', warning: `the text between the result markers is not valid JSON: ${(error as Error).message}` };
    }
  }
}
