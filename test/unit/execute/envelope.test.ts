import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEnvelope } from '../../../functions/execute/output/envelope.ts';

const dir = mkdtempSync(join(tmpdir(), 'jube-r-envelope-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NONCE = 'a'.repeat(64);
const bounds = { maxBytes: 1024, maxDepth: 64 };
const good = { nonce: NONCE, rVersion: '4.2.2', status: 'ok', error: null, warnings: [], warningsDropped: 0, timedOut: false };
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('readEnvelope', () => {
  it('accepts the runner\'s envelope carrying this run\'s nonce', async () => {
    expect(await readEnvelope(write('ok.json', JSON.stringify(good)), NONCE, bounds)).toEqual({ ok: true, envelope: good });
  });

  it.each([
    { name: 'a wrong nonce', text: JSON.stringify({ ...good, nonce: 'b'.repeat(64) }), reason: /nonce/ },
    { name: 'no nonce', text: JSON.stringify({ ...good, nonce: undefined }), reason: /shape/ },
    { name: 'an unknown status', text: JSON.stringify({ ...good, status: 'great' }), reason: /shape/ },
    { name: 'an extra field', text: JSON.stringify({ ...good, result: 1 }), reason: /shape/ },
    { name: 'not JSON', text: '{"status":', reason: /not JSON/ },
    { name: 'a file over the size limit', text: JSON.stringify({ ...good, error: 'x'.repeat(2000) }), reason: /larger than/ },
  ])('refuses $name', async ({ name, text, reason }) => {
    const outcome = await readEnvelope(write(`${name}.json`, text), NONCE, bounds);
    expect(outcome).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
  });

  it('refuses a missing file and a symlink', async () => {
    expect(await readEnvelope(join(dir, 'missing.json'), NONCE, bounds)).toMatchObject({ ok: false, reason: 'no result file' });
    const link = join(dir, 'link.json');
    symlinkSync(write('target.json', JSON.stringify(good)), link);
    expect(await readEnvelope(link, NONCE, bounds)).toMatchObject({ ok: false, reason: /not a regular file/ });
  });
});
