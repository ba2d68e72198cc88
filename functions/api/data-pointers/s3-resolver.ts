/**
 * The S3 store: objects at `<tenant>/<pointer>.csv` or `<tenant>/<pointer>.csv.gz` in the data
 * bucket. The validate function (which alone may read the bucket) checks the object with
 * HeadObject and hands the execute function a short-lived presigned GET URL, so the execute role
 * needs no S3 permission and R never touches the network.
 */
import { GetObjectCommand, HeadObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { POINTER_SUFFIXES, storedName } from './pointer.ts';
import type { LocatedTable, PointerStore } from './types.ts';

/**
 * The endpoint options of the client that presigns, fixed: the presigned URL's host must be the
 * one name the execute function's DNS firewall answers (`<bucket>.s3.<region>.amazonaws.com`,
 * dataBucketDomains in infra/lib/constructs/dns-firewall.ts). Set here, so AWS_USE_FIPS_ENDPOINT,
 * AWS_USE_DUALSTACK_ENDPOINT, AWS_ENDPOINT_URL_S3 or a shared config file cannot move the host and
 * break every download with NXDOMAIN. test/unit/infra/presigned-host.test.ts holds the two together.
 */
export const PRESIGNER_ENDPOINT_OPTIONS = {
  useFipsEndpoint: false,
  useDualstackEndpoint: false,
  useAccelerateEndpoint: false,
  forcePathStyle: false,
  useArnRegion: false,
  disableMultiregionAccessPoints: true,
} as const satisfies S3ClientConfig;

/** The client the API function presigns with: the region it runs in (Lambda's AWS_REGION), the pinned endpoint options. */
export function createPresignerClient(options: Pick<S3ClientConfig, 'region' | 'credentials'> = {}): S3Client {
  return new S3Client({ ...options, ...PRESIGNER_ENDPOINT_OPTIONS });
}

export interface S3PointerStoreOptions {
  readonly client: S3Client;
  readonly bucket: string;
  readonly presignTtlSeconds: number;
}

export function objectKey(tenant: string, pointer: string, suffix: (typeof POINTER_SUFFIXES)[number]['suffix']): string {
  return storedName(tenant, pointer, suffix);
}

export function createS3PointerStore(options: S3PointerStoreOptions): PointerStore {
  const { client, bucket, presignTtlSeconds } = options;
  return {
    kind: 's3',
    async locate(tenant, pointer) {
      for (const { suffix, gzip } of POINTER_SUFFIXES) {
        const located = await locateObject(objectKey(tenant, pointer, suffix), gzip);
        if (located) return located;
      }
      return undefined;
    },
  };

  async function locateObject(key: string, gzip: boolean): Promise<LocatedTable | undefined> {
    try {
      const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      if (typeof head.ContentLength !== 'number') return undefined;
      // No VersionId pinning: that would need s3:GetObjectVersion, and an object swapped between
      // this check and the download is still capped byte for byte by the execute function.
      const get = new GetObjectCommand({ Bucket: bucket, Key: key });
      const url = await getSignedUrl(client, get, { expiresIn: presignTtlSeconds });
      return { source: { kind: 'url', url, gzip }, bytes: head.ContentLength };
    } catch {
      // NotFound, AccessDenied (S3's answer for a missing key without ListBucket), throttling,
      // network: all are "does not resolve", and none may be told apart by the caller.
      return undefined;
    }
  }
}
