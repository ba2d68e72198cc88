/**
 * The envelope reader and the response builder as one function of untrusted bytes: random and
 * adversarial envelopes (oversized fields, deep nesting, __proto__ keys, invalid UTF-8, NaN, junk)
 * never make them throw, and every response is within the published caps and under Lambda's
 * 6 MB. Seeded, so a failure replays.
 */
import { describe, expect, it } from 'vitest';
import { readServiceConfig, type ServiceConfig } from '../../../layers/config/service-config.ts';
import { ExecuteResponseSchema, type ExecuteResponse } from '../../../layers/contract/execute.ts';
import { parseEnvelope } from '../../../functions/execute/output/envelope.ts';
import { jsonBytes } from '../../../functions/execute/output/json-bounds.ts';
import type { Artifacts } from '../../../functions/execute/outcome.ts';
import { executeResponse } from '../../../functions/execute/output/response.ts';

const NONCE = 'f'.repeat(64);
const LAMBDA_MAX = 6 * 1024 * 1024;

/** mulberry32: small, seeded, good enough to pick cases. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}
type Rng = ReturnType<typeof rng>;

/** Per envelope: whether its lists may break the schema's bounds (else they stay within them). */
let hostile = false;
const bigString = (r: Rng) => r.pick(['x', 'é', '\u{1F600}', '"', '\\', '\u0000', '<g', '\ud800']).repeat(r.pick([0, 1, 100, 70_000, 1_100_000]));
/** A list: many short strings, or a few of which some are large (an envelope stays under ~20 MB). */
const strings = (r: Rng) => {
  const n = r.pick(hostile ? [0, 5, 12_000] : [0, 1, 5, 200, 9_000]);
  return Array.from({ length: n }, (_, i) => (i < 3 && r.next() < 0.3 ? bigString(r) : 'w'.repeat(r.int(n > 200 ? 100 : 2000))));
};
const deep = (depth: number, open: string, close: string) => `${open.repeat(depth)}${close.repeat(depth)}`;

function envelopeObject(r: Rng): Record<string, unknown> {
  hostile = r.next() < 0.3;
  const over = (within: number[], beyond: number[]) => r.pick(hostile ? beyond : within);
  const e: Record<string, unknown> = {
    nonce: r.next() < 0.9 ? NONCE : 'forged',
    rVersion: hostile && r.next() < 0.5 ? bigString(r) : r.pick(['4.2.2', '9.9.9', '<script>']),
    status: r.pick(['ok', 'error', 'rejected', 'ok']),
    error: r.next() < 0.5 ? null : bigString(r),
    warnings: strings(r),
    timedOut: r.next() < 0.2,
  };
  if (r.next() < 0.5) e['messages'] = strings(r);
  if (r.next() < 0.3) e['messagesDropped'] = r.int(1e6);
  if (r.next() < 0.5) e['notes'] = strings(r).slice(0, over([3, 100], [101]));
  if (r.next() < 0.5) {
    e['errorDetails'] = {
      class: strings(r).slice(0, over([1, 64], [65])),
      message: bigString(r),
      call: r.next() < 0.5 ? null : bigString(r),
      traceback: Array.from({ length: over([0, 10, 100], [101]) }, (_, i) => ({ call: i < 2 ? bigString(r) : 'f(x)', line: 1 })),
    };
  }
  if (r.next() < 0.5) e['warningDetails'] = strings(r).map((_message, i) => ({ call: i < 2 && r.next() < 0.5 ? bigString(r) : null }));
  if (r.next() < 0.6) {
    e['value'] = r.next() < 0.5
      ? { kind: 'printed', class: ['x'], printed: bigString(r) }
      : { kind: 'json', class: ['list'], json: r.pick([[1, 2, 3], { a: bigString(r) }, strings(r), JSON.parse('{"__proto__": {"polluted": 1}}')]) };
  }
  if (r.next() < 0.4) {
    e['validation'] = Array.from({ length: over([1, 50, 1000], [1001]) }, (_, i) => ({ code: 'FORBIDDEN_SYMBOL', message: i < 2 ? bigString(r) : 'no', line: 1, column: 1, symbol: 'system' }));
  }
  if (r.next() < 0.3) e['plotPages'] = [{ name: 'd001-p00001.png', bytes: 10 }];
  if (r.next() < 0.2) e['capsule'] = r.pick(['preload=armed landlock=off seccomp=off', 'preload=off', bigString(r)]);
  return e;
}

/** Envelope bytes: mostly well-formed JSON, then made adversarial in one of several ways. */
function envelopeBytes(r: Rng): Buffer {
  const text = JSON.stringify(envelopeObject(r));
  switch (r.int(18)) {
    case 0: return Buffer.from(text.replace('"warnings":[', `"warnings":[${deep(r.pick([60, 65, 100_000, 2_000_000]), '[', ']')},`));
    case 1: return Buffer.from(text.replace(/\}$/, `,"value":{"kind":"json","class":[],"json":${deep(r.pick([10, 63, 64, 500_000]), '{"a":', '}').replace(/\}+$/, (m) => `1${m}`)}}}`));
    case 2: return Buffer.from(text.replace(/^\{/, '{"__proto__":{"status":"ok"},'));
    case 3: {
      const buf = Buffer.from(text);
      for (let i = 0; i < 20; i += 1) buf[r.int(buf.length)] = r.pick([0xff, 0xc0, 0x80, 0xed, 0xf4]);
      return buf;
    }
    case 4: return Buffer.from(text.replace('"timedOut":', '"warningsDropped":NaN,"timedOut":'));
    case 5: return Buffer.from(text.slice(0, r.int(text.length)));
    case 6: return Buffer.from(Array.from({ length: r.int(5000) }, () => r.int(256)));
    case 7: return Buffer.from(text.replace('"status"', '"constructor":{"prototype":{"x":1}},"status"'));
    default: return Buffer.from(text);
  }
}

function assertWithinCaps(response: ExecuteResponse, config: ServiceConfig): void {
  const { caps } = config;
  const bytes = (s: string) => Buffer.byteLength(s);
  const size = Buffer.byteLength(JSON.stringify(response));
  expect(size).toBeLessThanOrEqual(caps.responseBytes);
  expect(size).toBeLessThan(LAMBDA_MAX);
  expect(jsonBytes(response)).toBe(size);
  expect(ExecuteResponseSchema.safeParse(response).success).toBe(true);
  if (response.error !== null) expect(bytes(response.error)).toBeLessThanOrEqual(Math.max(caps.errorBytes, 4096));
  expect(response.warnings.length).toBeLessThanOrEqual(caps.warnings);
  expect(response.warnings.reduce((n, w) => n + bytes(w), 0)).toBeLessThanOrEqual(caps.warningBytes);
  expect((response.messages ?? []).length).toBeLessThanOrEqual(caps.messages);
  expect((response.messages ?? []).reduce((n, m) => n + bytes(m), 0)).toBeLessThanOrEqual(caps.messageBytes);
  expect((response.warningDetails ?? []).length).toBeLessThanOrEqual(caps.warnings);
  for (const d of response.warningDetails ?? []) {
    if (d.call !== null) expect(bytes(d.call)).toBeLessThanOrEqual(caps.callBytes);
  }
  const details = response.errorDetails;
  if (details) {
    expect(bytes(details.message)).toBeLessThanOrEqual(caps.errorBytes);
    if (details.call !== null) expect(bytes(details.call)).toBeLessThanOrEqual(caps.callBytes);
    expect(details.traceback.length).toBeLessThanOrEqual(caps.tracebackFrames);
    for (const f of details.traceback) expect(bytes(f.call)).toBeLessThanOrEqual(caps.callBytes);
  }
  if (response.value?.kind === 'printed') expect(bytes(response.value.printed)).toBeLessThanOrEqual(caps.valueBytes);
  if (response.value?.kind === 'json') expect(jsonBytes(response.value.json)).toBeLessThanOrEqual(caps.valueBytes);
  expect((response.notes ?? []).length).toBeLessThanOrEqual(caps.notes);
  for (const note of response.notes ?? []) expect(bytes(note)).toBeLessThanOrEqual(caps.noteBytes);
  expect((response.validation?.errors ?? []).length).toBeLessThanOrEqual(caps.validationErrors);
  for (const e of response.validation?.errors ?? []) expect(bytes(e.message)).toBeLessThanOrEqual(caps.errorBytes);
  expect(response.rVersion).toBe('4.2.2');
}

const base = { durationMs: 1, rVersion: '4.2.2', timestamp: '2026-01-01T00:00:00.000Z' };
const noArtifacts: Artifacts = { plots: [], plotsOmitted: 0, files: [], notes: [], truncated: false };
/** The largest artifacts the largest caps allow: plots and files at their byte caps, as base64. */
const bigArtifacts = (config: ServiceConfig): Artifacts => ({
  plots: [{ mimeType: 'image/png', width: 1, height: 1, bytes: config.plots.maxBytes, data: 'A'.repeat(Math.ceil(config.plots.maxBytes / 3) * 4) }],
  plotsOmitted: 0,
  files: [{ name: 'f.csv', mimeType: 'text/csv', bytes: config.files.maxBytes, sha256: '0'.repeat(64), data: 'A'.repeat(Math.ceil(config.files.maxBytes / 3) * 4) }],
  notes: Array.from({ length: 30 }, (_, i) => `artifact note ${i} ${'n'.repeat(2000)}`),
  truncated: false,
});

const configs: [string, ServiceConfig][] = [
  ['the defaults', readServiceConfig({})],
  ['tight caps', readServiceConfig({ JUBE_R_MAX_MESSAGES: '3', JUBE_R_MAX_MESSAGE_BYTES: '256', JUBE_R_MAX_VALUE_BYTES: '1024', JUBE_R_MAX_NOTES: '6', JUBE_R_MAX_VALIDATION_ERRORS: '2', JUBE_R_MAX_CALL_BYTES: '64', JUBE_R_MAX_TRACEBACK_FRAMES: '1' })],
  ['every cap at its maximum', readServiceConfig({
    JUBE_R_MAX_CONSOLE_OUTPUT_BYTES: String(4 * 1024 * 1024), JUBE_R_MAX_RESULT_BYTES: String(4 * 1024 * 1024), JUBE_R_MAX_VALUE_BYTES: String(4 * 1024 * 1024),
    JUBE_R_MAX_ERROR_BYTES: String(1024 * 1024), JUBE_R_MAX_WARNINGS: '10000', JUBE_R_MAX_WARNING_BYTES: String(1024 * 1024),
    JUBE_R_MAX_MESSAGES: '10000', JUBE_R_MAX_MESSAGE_BYTES: String(1024 * 1024), JUBE_R_MAX_PLOTS_BYTES: String(4 * 1024 * 1024),
    JUBE_R_MAX_FILES_BYTES: String(4 * 1024 * 1024), JUBE_R_MAX_RESPONSE_BYTES: '5900000',
  })],
];

describe.each(configs)('the envelope reader and the response, with %s', (_, config) => {
  it('never throw, and every response is within the published caps and under 6 MB', { timeout: 120_000 }, () => {
    const r = rng(17);
    let accepted = 0;
    for (let i = 0; i < 40; i += 1) {
      const bytes = envelopeBytes(r);
      const read = parseEnvelope(bytes, NONCE);
      const big = r.next() < 0.5;
      const consoleOutput = big ? 'c'.repeat(config.caps.consoleOutputBytes) : 'ok\n';
      const output = { consoleOutput, truncated: false, result: big ? { kind: 'ok' as const, value: 'r'.repeat(config.caps.resultBytes - 2) } : { kind: 'none' as const } };
      const artifacts = big ? bigArtifacts(config) : noArtifacts;
      const outcome = read.ok
        ? { kind: 'envelope' as const, envelope: read.envelope, output, artifacts }
        : { kind: 'no-envelope' as const, reason: read.reason, exitCode: 0, signal: null, stderrTail: bigString(r), output, artifacts };
      if (read.ok) accepted += 1;
      const response = executeResponse(outcome, { timeoutSeconds: 5, killGraceSeconds: 2, caps: config.caps }, base);
      assertWithinCaps(response, config);
    }
    // The generator reaches the response through trusted envelopes too, not only refusals.
    expect(accepted).toBeGreaterThanOrEqual(8);
  });

  it('refuses nesting past the limit before parsing, and a forged __proto__ changes nothing', () => {
    const deepText = `{"nonce":"${NONCE}","rVersion":"1","status":"ok","error":null,"warnings":[],"timedOut":false,"value":{"kind":"json","class":[],"json":${deep(5_000_000, '[', ']')}}}`;
    expect(parseEnvelope(Buffer.from(deepText), NONCE)).toMatchObject({ ok: false, reason: expect.stringMatching(/nests deeper/) });
    const proto = `{"__proto__":{"status":"ok"},"nonce":"${NONCE}","rVersion":"1","status":"error","error":"e","warnings":[],"timedOut":false}`;
    expect(parseEnvelope(Buffer.from(proto), NONCE).ok).toBe(false);
    expect(({} as Record<string, unknown>)['status']).toBeUndefined();
  });
});
