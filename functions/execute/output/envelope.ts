/**
 * The runner's result envelope (WORKDIR/envelope.json), read as untrusted input: a script that
 * escaped the R layer could have written it. The read is bounded in bytes (never more than the
 * limit plus one is read, and a link is never followed), the text's nesting is counted before it
 * is parsed, the shape is the bounded schema of layers/contract/runner.ts, and a file counts only
 * if it carries this invocation's nonce, which only the runner saw. Never throws.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { timingSafeEqual } from 'node:crypto';
import { ENVELOPE_LIMITS, RunnerEnvelopeSchema, type RunnerEnvelope } from '../../../layers/contract/runner.ts';
import { jsonDepth } from './json-bounds.ts';

export { RunnerEnvelopeSchema, type RunnerEnvelope };

export type EnvelopeRead =
  | { readonly ok: true; readonly envelope: RunnerEnvelope }
  | { readonly ok: false; readonly reason: string };

export interface EnvelopeBounds {
  readonly maxBytes: number;
  readonly maxDepth: number;
}

const DEFAULT_BOUNDS: EnvelopeBounds = { maxBytes: ENVELOPE_LIMITS.maxBytes, maxDepth: ENVELOPE_LIMITS.maxDepth };

/** At most maxBytes + 1 bytes of a regular file (the extra byte tells "too large"), or why not. */
async function readBounded(path: string | Buffer, maxBytes: number): Promise<Buffer | string> {
  // O_NOFOLLOW: the script may have replaced the file with a link to something large or endless;
  // O_NONBLOCK: or with a FIFO, which would block the open.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
  if (!handle) return 'no result file';
  try {
    const info = await handle.stat();
    if (!info.isFile()) return 'the result file is not a regular file';
    if (info.size > maxBytes) return `the result file is larger than ${maxBytes} bytes`;
    const buf = Buffer.alloc(Math.min(info.size, maxBytes) + 1);
    let filled = 0;
    while (filled < buf.length) {
      const { bytesRead } = await handle.read(buf, filled, buf.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > maxBytes) return `the result file is larger than ${maxBytes} bytes`;
    return buf.subarray(0, filled);
  } catch {
    return 'the result file could not be read';
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Checks envelope text (already read) the way readEnvelope does; pure, for the property test. */
export function parseEnvelope(bytes: Buffer, nonce: string, bounds: EnvelopeBounds = DEFAULT_BOUNDS): EnvelopeRead {
  try {
    if (bytes.length > bounds.maxBytes) return { ok: false, reason: `the result file is larger than ${bounds.maxBytes} bytes` };
    // Invalid UTF-8 becomes U+FFFD: a lossy message is better than none, and nothing downstream
    // ever sees bytes that are not text.
    const text = bytes.toString('utf8');
    if (jsonDepth(text, bounds.maxDepth) > bounds.maxDepth) {
      return { ok: false, reason: `the result file nests deeper than ${bounds.maxDepth} levels` };
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, reason: 'the result file is not JSON' };
    }
    const parsed = RunnerEnvelopeSchema.safeParse(json);
    if (!parsed.success) return { ok: false, reason: 'the result file does not have the runner envelope shape' };
    if (!sameNonce(parsed.data.nonce, nonce)) return { ok: false, reason: 'the result file does not carry this run\'s nonce' };
    return { ok: true, envelope: parsed.data };
  } catch {
    return { ok: false, reason: 'the result file could not be checked' };
  }
}

/** Reads and checks the envelope; any doubt is a missing envelope, never a trusted one. */
export async function readEnvelope(path: string, nonce: string, bounds: EnvelopeBounds = DEFAULT_BOUNDS): Promise<EnvelopeRead> {
  const read = await readBounded(path, bounds.maxBytes);
  if (typeof read === 'string') return { ok: false, reason: read };
  return parseEnvelope(read, nonce, bounds);
}

function sameNonce(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
