/**
 * SigV4 for execute-api: the client's signature is stable for fixed inputs and is exactly what
 * the local stack's verifier accepts; anything altered, stale, unsigned or signed with another key
 * is refused with API Gateway's error type.
 */
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { executeApiSigner, regionOfExecuteApiHost, signRequest } from '../../../../functions/tools/client/sigv4.ts';
import { localSigV4FromEnv, verifySigV4, type IncomingSignedRequest } from '../../../../functions/tools/local/sigv4-verifier.ts';

const KEYS = { accessKeyId: 'AKIDJUBERTEST', secretAccessKey: 'jube-r-test-secret', region: 'eu-west-1' };
const DATE = new Date('2026-01-02T03:04:05Z');
const URL_ = new URL('https://abc123.execute-api.eu-west-1.amazonaws.com/prod/t/acme/execute');
const BODY = JSON.stringify({ script: 'cat(1)' });

async function signedRequest(overrides: { keys?: typeof KEYS; date?: Date } = {}): Promise<IncomingSignedRequest> {
  const keys = overrides.keys ?? KEYS;
  const headers = await signRequest(
    executeApiSigner(keys.region, { accessKeyId: keys.accessKeyId, secretAccessKey: keys.secretAccessKey }),
    { method: 'POST', url: URL_, headers: { host: URL_.host, 'content-type': 'application/json', 'x-jube-session': 'chat-1' }, body: BODY },
    overrides.date ?? DATE,
  );
  return { method: 'POST', url: `${URL_.pathname}${URL_.search}`, headers, body: BODY };
}

describe('signRequest', () => {
  it('signs host, content type and session with a stable AWS4-HMAC-SHA256 signature scoped to execute-api', async () => {
    // Act
    const first = await signedRequest();
    const second = await signedRequest();

    // Assess
    expect(first.headers['authorization']).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDJUBERTEST\/20260102\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-jube-session, Signature=[0-9a-f]{64}$/,
    );
    expect(first.headers['x-amz-date']).toBe('20260102T030405Z');
    expect(second.headers).toEqual(first.headers);
  });

  it('reads the region from execute-api host names, endpoint-specific ones included', () => {
    expect(regionOfExecuteApiHost('abc123.execute-api.eu-west-1.amazonaws.com')).toBe('eu-west-1');
    expect(regionOfExecuteApiHost('abc123-vpce-0a1b2c3d4e5f60718.execute-api.us-gov-west-1.amazonaws.com')).toBe('us-gov-west-1');
    expect(regionOfExecuteApiHost('127.0.0.1')).toBeUndefined();
  });
});

describe('verifySigV4 (the local stack\'s IAM authorization)', () => {
  it('accepts the client\'s signature', async () => {
    expect(await verifySigV4(await signedRequest(), KEYS, DATE)).toBeUndefined();
  });

  it.each<[string, (r: IncomingSignedRequest) => IncomingSignedRequest, string]>([
    ['no Authorization header', (r) => ({ ...r, headers: { ...r.headers, authorization: undefined } }), 'MissingAuthenticationTokenException'],
    ['a malformed Authorization header', (r) => ({ ...r, headers: { ...r.headers, authorization: 'Bearer x' } }), 'IncompleteSignatureException'],
    ['an altered body', (r) => ({ ...r, body: JSON.stringify({ script: 'cat(2)' }) }), 'InvalidSignatureException'],
    ['another session', (r) => ({ ...r, headers: { ...r.headers, 'x-jube-session': 'other' } }), 'InvalidSignatureException'],
    // The tenant is in the signed path: a signature for one tenant's route is none for another's.
    ['another tenant', (r) => ({ ...r, url: '/prod/t/other/execute' }), 'InvalidSignatureException'],
    ['another path', (r) => ({ ...r, url: '/prod/validate' }), 'InvalidSignatureException'],
  ])('refuses %s', async (_name, alter, type) => {
    expect(await verifySigV4(alter(await signedRequest()), KEYS, DATE)).toMatchObject({ type });
  });

  it('checks a signed x-amz-content-sha256 (as curl --aws-sigv4 and other signers send it) against the body', async () => {
    // Prepare: a signer that states the payload hash in a signed header.
    const signer = new SignatureV4({ service: 'execute-api', region: KEYS.region, credentials: KEYS, sha256: Sha256, applyChecksum: true });
    const headers = await signRequest(signer, { method: 'POST', url: URL_, headers: { host: URL_.host }, body: BODY }, DATE);
    const request = { method: 'POST', url: URL_.pathname, headers, body: BODY };

    // Act / Assess
    expect(headers['x-amz-content-sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(await verifySigV4(request, KEYS, DATE)).toBeUndefined();
    expect(await verifySigV4({ ...request, body: '{"script":"system(1)"}' }, KEYS, DATE)).toMatchObject({ type: 'InvalidSignatureException' });
  });

  it('refuses another key pair and a stale date', async () => {
    const otherSecret = await signedRequest({ keys: { ...KEYS, secretAccessKey: 'wrong' } });
    expect(await verifySigV4(otherSecret, KEYS, DATE)).toMatchObject({ type: 'InvalidSignatureException', message: expect.stringContaining('does not match') });
    const otherRegion = await signedRequest({ keys: { ...KEYS, region: 'us-east-1' } });
    expect(await verifySigV4(otherRegion, KEYS, DATE)).toMatchObject({ type: 'InvalidSignatureException' });
    const stale = await signedRequest({ date: new Date(DATE.getTime() - 6 * 60 * 1000) });
    expect(await verifySigV4(stale, KEYS, DATE)).toMatchObject({ message: expect.stringContaining('expired') });
  });
});

describe('localSigV4FromEnv', () => {
  it('is off without keys and reads both keys with a default region', () => {
    expect(localSigV4FromEnv({})).toBeUndefined();
    expect(localSigV4FromEnv({ JUBE_R_LOCAL_SIGV4_ACCESS_KEY_ID: 'a', JUBE_R_LOCAL_SIGV4_SECRET_ACCESS_KEY: 'b' })).toEqual({
      accessKeyId: 'a',
      secretAccessKey: 'b',
      region: 'us-east-1',
    });
  });

  it('fails fast on half a key pair or a bad region, naming the keys', () => {
    expect(() => localSigV4FromEnv({ JUBE_R_LOCAL_SIGV4_ACCESS_KEY_ID: 'a' })).toThrowError(/JUBE_R_LOCAL_SIGV4_SECRET_ACCESS_KEY/);
    expect(() => localSigV4FromEnv({ JUBE_R_LOCAL_SIGV4_ACCESS_KEY_ID: 'a', JUBE_R_LOCAL_SIGV4_SECRET_ACCESS_KEY: 'b', JUBE_R_LOCAL_SIGV4_REGION: 'moon' })).toThrowError(
      /JUBE_R_LOCAL_SIGV4_REGION/,
    );
  });
});
