/**
 * The runner's result envelope (WORKDIR/envelope.json), zod-parsed: a file the script could have
 * written itself counts only if it carries this invocation's nonce, which only the runner saw.
 */
import { lstat, readFile } from 'node:fs/promises';
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { ErrorDetailsSchema, ErrorTypeSchema, ValueSchema, WarningDetailSchema } from '../../layers/contract/execute.ts';
import { ValidationErrorSchema } from '../../layers/contract/validation.ts';

export const RunnerEnvelopeSchema = z.strictObject({
  nonce: z.string(),
  rVersion: z.string(),
  status: z.enum(['ok', 'error', 'rejected']),
  error: z.string().nullable(),
  warnings: z.array(z.string()),
  warningsDropped: z.number().int().min(0).optional(),
  timedOut: z.boolean(),
  /** On an error: whether it came from the script's expressions or from the runner's set-up. */
  errorType: ErrorTypeSchema.optional(),
  errorDetails: ErrorDetailsSchema.optional(),
  warningDetails: z.array(WarningDetailSchema).optional(),
  messages: z.array(z.string()).optional(),
  messagesDropped: z.number().int().min(0).optional(),
  value: ValueSchema.optional(),
  /** What the runner left out or could not do, in words (r-image/runner/value.R, plots.R). */
  notes: z.array(z.string()).optional(),
  /** "on", "off", or "failed: <why>" (r-image/runner/plots.R). */
  plotCapture: z.string().max(4096).optional(),
  validation: z.array(ValidationErrorSchema).optional(),
  /** The capsule's report of the layers it armed ("preload=armed landlock=... seccomp=..."), or "preload=off". */
  sandbox: z.string().max(512).optional(),
});
export type RunnerEnvelope = z.infer<typeof RunnerEnvelopeSchema>;

export type EnvelopeOutcome =
  | { readonly ok: true; readonly envelope: RunnerEnvelope }
  | { readonly ok: false; readonly reason: string };

/** Reads and checks the envelope; any doubt is a missing envelope, never a trusted one. */
export async function readEnvelope(path: string, nonce: string, maxBytes: number): Promise<EnvelopeOutcome> {
  let text: string;
  try {
    // lstat: a script may have replaced the file with a symlink to something large or endless.
    const info = await lstat(path);
    if (!info.isFile()) return { ok: false, reason: 'the result file is not a regular file' };
    if (info.size > maxBytes) return { ok: false, reason: `the result file is larger than ${maxBytes} bytes` };
    text = await readFile(path, 'utf8');
  } catch {
    return { ok: false, reason: 'no result file' };
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
}

function sameNonce(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
