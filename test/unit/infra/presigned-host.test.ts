/**
 * The host the execute function's DNS firewall answers is the host the API function's presigner
 * puts in every dataframe URL: the same bucket and region through the resolver's own client, with
 * every setting that could move the host (FIPS, dual-stack, an endpoint override) set in the
 * environment, where the SDK would otherwise read it.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dataBucketDomains } from '../../../infra/lib/constructs/dns-firewall.ts';
import { createPresignerClient } from '../../../functions/api/data-pointers/s3-resolver.ts';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const presignedHost = async (bucket: string, region: string) => {
  const url = await getSignedUrl(createPresignerClient({ region, credentials }), new GetObjectCommand({ Bucket: bucket, Key: 'acme/measurements.csv' }), { expiresIn: 60 });
  return new URL(url).hostname;
};

afterEach(() => vi.unstubAllEnvs());

describe('the presigned dataframe host', () => {
  it.each([
    ['jube-r-dev-databucket1a2b3c4d-0123456789ab', 'eu-west-1'],
    ['jube-r-prod-databucket5e6f7a8b-ba9876543210', 'us-east-1'],
  ])('for %s in %s is the one name the DNS firewall allows', async (bucket, region) => {
    expect([await presignedHost(bucket, region)]).toEqual(dataBucketDomains(bucket, region, 'amazonaws.com'));
  });

  it('stays that name whatever the environment asks of the SDK', async () => {
    vi.stubEnv('AWS_USE_FIPS_ENDPOINT', 'true');
    vi.stubEnv('AWS_USE_DUALSTACK_ENDPOINT', 'true');
    vi.stubEnv('AWS_S3_US_EAST_1_REGIONAL_ENDPOINT', 'legacy');
    const bucket = 'jube-r-prod-databucket5e6f7a8b-ba9876543210';
    expect([await presignedHost(bucket, 'eu-west-1')]).toEqual(dataBucketDomains(bucket, 'eu-west-1', 'amazonaws.com'));
  });
});
