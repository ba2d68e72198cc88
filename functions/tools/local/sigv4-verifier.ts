/**
 * IAM (SigV4) authorization for the local stack, as API Gateway applies it to the deployed private
 * API: when JUBE_R_LOCAL_SIGV4_ACCESS_KEY_ID and JUBE_R_LOCAL_SIGV4_SECRET_ACCESS_KEY are set, every
 * request must be signed for `execute-api` in JUBE_R_LOCAL_SIGV4_REGION (default us-east-1) with that
 * key pair, else it is refused with 403 and API Gateway's `x-amzn-ErrorType`, before the handler sees
 * it. Unset: the local stack checks nothing (as `sam local start-api` does).
 *
 * The signature is recomputed with the same signer the client uses (functions/tools/client/sigv4.ts) over
 * the headers the request says it signed, at the date it carries, and compared in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { ConfigError } from '../../../layers/config/service-config.ts';
import { EXECUTE_API_SERVICE, executeApiSigner, signRequest } from '../client/sigv4.ts';

/** How far a request's X-Amz-Date may be from the local clock (API Gateway allows 5 minutes). */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

const LocalSigV4EnvSchema = z.object({
  JUBE_R_LOCAL_SIGV4_ACCESS_KEY_ID: z.string().min(1).optional(),
  JUBE_R_LOCAL_SIGV4_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  JUBE_R_LOCAL_SIGV4_REGION: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/).default('us-east-1'),
});

export interface LocalSigV4 {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
}

/** The key pair to check requests against, or undefined when none is configured; ConfigError names a bad key. */
export function localSigV4FromEnv(env: NodeJS.ProcessEnv): LocalSigV4 | undefined {
  const blankless = Object.fromEntries(Object.keys(LocalSigV4EnvSchema.shape).map((key) => [key, env[key] || undefined]));
  const parsed = LocalSigV4EnvSchema.safeParse(blankless);
  if (!parsed.success) {
    throw new ConfigError(`invalid jube-r configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  const id = e.JUBE_R_LOCAL_SIGV4_ACCESS_KEY_ID;
  const secret = e.JUBE_R_LOCAL_SIGV4_SECRET_ACCESS_KEY;
  if (id === undefined && secret === undefined) return undefined;
  if (id === undefined || secret === undefined) {
    throw new ConfigError('invalid jube-r configuration: set both JUBE_R_LOCAL_SIGV4_ACCESS_KEY_ID and JUBE_R_LOCAL_SIGV4_SECRET_ACCESS_KEY, or neither');
  }
  return { accessKeyId: id, secretAccessKey: secret, region: e.JUBE_R_LOCAL_SIGV4_REGION };
}

export interface IncomingSignedRequest {
  readonly method: string;
  /** Path and query as on the request line. */
  readonly url: string;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
}

/** API Gateway's error types for IAM authorization failures. */
export type SigV4Failure =
  | { readonly type: 'MissingAuthenticationTokenException'; readonly message: string }
  | { readonly type: 'IncompleteSignatureException'; readonly message: string }
  | { readonly type: 'InvalidSignatureException'; readonly message: string };

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** Undefined when the request is signed by `keys` for execute-api; otherwise why not. */
export async function verifySigV4(request: IncomingSignedRequest, keys: LocalSigV4, now: Date = new Date()): Promise<SigV4Failure | undefined> {
  const authorization = request.headers['authorization'];
  if (authorization === undefined) return { type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const parts = AUTHORIZATION.exec(authorization);
  const date = AMZ_DATE.exec(request.headers['x-amz-date'] ?? '');
  if (!parts || !date) {
    return { type: 'IncompleteSignatureException', message: 'Authorization header and X-Amz-Date must be a SigV4 (AWS4-HMAC-SHA256) signature' };
  }
  const [, accessKeyId, scopeDate, region, service, signedHeaderList, signature] = parts as unknown as string[];
  const signingDate = new Date(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]), Number(date[4]), Number(date[5]), Number(date[6])));
  const invalid = (message: string): SigV4Failure => ({ type: 'InvalidSignatureException', message });
  if (accessKeyId !== keys.accessKeyId) return invalid('The security token included in the request is invalid.');
  if (region !== keys.region || service !== EXECUTE_API_SERVICE || scopeDate !== date.slice(1, 4).join('')) {
    return invalid(`Credential should be scoped to a valid region and service ${EXECUTE_API_SERVICE} in ${keys.region}.`);
  }
  if (Math.abs(now.getTime() - signingDate.getTime()) > MAX_CLOCK_SKEW_MS) return invalid('Signature expired: the request date is too far from now.');
  const signedHeaders = signedHeaderList!.split(';');
  if (!signedHeaders.includes('host')) return invalid("'Host' must be a signed header.");

  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = request.headers[name];
    if (value === undefined) return invalid(`signed header ${name} is missing`);
    headers[name] = value;
  }
  // The signer takes a stated payload hash on trust; the body must really have it.
  const statedHash = headers['x-amz-content-sha256'];
  if (statedHash !== undefined && statedHash !== createHash('sha256').update(request.body).digest('hex')) {
    return invalid('The provided x-amz-content-sha256 header does not match what was computed.');
  }
  const url = new URL(request.url, `http://${headers['host']}`);
  const expected = await signRequest(
    executeApiSigner(keys.region, { accessKeyId: keys.accessKeyId, secretAccessKey: keys.secretAccessKey }),
    { method: request.method, url, headers, ...(request.body.length > 0 ? { body: request.body } : {}) },
    signingDate,
  );
  const expectedSignature = /Signature=([0-9a-f]{64})$/.exec(expected['authorization'] ?? '')?.[1] ?? '';
  const same = expectedSignature.length === signature!.length && timingSafeEqual(Buffer.from(expectedSignature), Buffer.from(signature!));
  return same ? undefined : invalid('The request signature we calculated does not match the signature you provided.');
}
