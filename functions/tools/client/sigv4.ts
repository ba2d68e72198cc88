/**
 * SigV4 for `execute-api`, with the AWS SDK's own signer (@smithy/signature-v4, the SDK's Node
 * SHA-256): what the client signs with, and what the local stack checks a request against when it
 * is given credentials (functions/tools/local/sigv4-verifier.ts), so both sides share one canonicalization.
 */
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/** API Gateway's signing name. */
export const EXECUTE_API_SERVICE = 'execute-api';

export type Credentials = AwsCredentialIdentity | AwsCredentialIdentityProvider;

/** The parts of an HTTP request that are signed; `headers` have lower-case names and include `host`. */
export interface SignableRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | undefined;
}

/** No x-amz-content-sha256 header: execute-api hashes the body itself (the header is S3's convention). */
export function executeApiSigner(region: string, credentials: Credentials): SignatureV4 {
  return new SignatureV4({ service: EXECUTE_API_SERVICE, region, credentials, sha256: Sha256, applyChecksum: false });
}

/** The request's headers with `authorization`, `x-amz-date` (and `x-amz-security-token`) added. */
export async function signRequest(signer: SignatureV4, request: SignableRequest, signingDate?: Date): Promise<Record<string, string>> {
  const { url } = request;
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: queryOf(url),
      headers: { ...request.headers },
      ...(request.body === undefined ? {} : { body: request.body }),
    },
    signingDate ? { signingDate } : {},
  );
  return signed.headers;
}

/** Query parameters as the signer wants them (repeated names as arrays). */
function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const existing = query[name];
    query[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  return query;
}

/** The region of an execute-api host (`<id>[-vpce-...].execute-api.<region>.amazonaws.com`), if it is one. */
export function regionOfExecuteApiHost(hostname: string): string | undefined {
  return /\.execute-api\.([a-z]{2}(?:-[a-z]+)+-\d)\.amazonaws\.com(?:\.cn)?$/.exec(hostname)?.[1];
}
