/**
 * The data bucket: tenant tables at `<tenant>/<pointer>` (CSV, optionally gzip).
 * Encrypted with S3-managed keys (a presigned GET then needs no kms:Decrypt by the signer), public
 * access blocked, TLS enforced, objects expire, server access logs to a sibling bucket.
 * Only the validate role reads it (it checks objects and presigns GETs); the execute role has no
 * S3 permission at all: it downloads through presigned URLs signed by the validate role, and a
 * presigned GET works only through the stack's S3 gateway endpoint (aws:SourceVpce). The writers
 * (tenant sessions under their own prefix, or the orchestrator, and an optional uploader) may put
 * objects over TLS and with SSE-S3 and do nothing else here, whatever their own policies allow; and
 * every other principal, same-account administrators included, is denied every object and listing
 * action (the bucket's configuration stays theirs, so the policy itself can be changed).
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/amazon-s3-policy-keys.html,
 * https://docs.aws.amazon.com/AmazonS3/latest/API/bucket-policy-s3-sigv4-conditions.html (s3:authType),
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/example-bucket-policies-vpc-endpoint.html (aws:SourceVpce).
 */
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, type IConstruct } from 'constructs';
import { TENANT_TAG_KEY } from '../../../layers/contract/isolation.ts';
import { TENANT_TAG_VARIABLE } from './callers.ts';

/** The one SSE the writer may ask for: the bucket's own (SSE-S3), which presigned GETs read without KMS. */
export const WRITER_SSE = 'AES256';

/**
 * Every action on the bucket's data (objects, their versions, listings, uploads in parts): what no
 * principal but the service's roles and the writers may do. Configuration actions (the policy itself,
 * lifecycle, logging) are not among them, so the account keeps control of the bucket.
 */
export const DATA_ACTIONS = [
  's3:GetObject*',
  's3:PutObject*',
  's3:DeleteObject*',
  's3:ListBucket*',
  's3:ListMultipartUploadParts',
  's3:AbortMultipartUpload',
  's3:RestoreObject',
  's3:ReplicateObject',
  's3:ReplicateDelete',
] as const;

/** Every bucket of the stack: SSE-S3, no public access, TLS 1.2 only, owner-enforced objects. */
export const PRIVATE_BUCKET = {
  encryption: s3.BucketEncryption.S3_MANAGED,
  blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
  enforceSSL: true,
  minimumTLSVersion: 1.2,
  objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
} as const;

export interface DataBucketProps {
  readonly expireAfterDays: number;
  readonly accessLogExpireAfterDays: number;
  readonly removalPolicy: RemovalPolicy;
}

export class DataBucket extends Construct {
  readonly bucket: s3.Bucket;
  readonly accessLogBucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: DataBucketProps) {
    super(scope, id);
    const common = { ...PRIVATE_BUCKET, removalPolicy: props.removalPolicy } as const;

    this.accessLogBucket = new s3.Bucket(this, 'AccessLogs', {
      ...common,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(props.accessLogExpireAfterDays) }],
    });
    Validations.of(this.accessLogBucket).acknowledge({
      id: 'AwsSolutions::AwsSolutions-S1',
      reason: 'This is the access-log bucket itself; logging it into another bucket would only move the problem.',
    });

    this.bucket = new s3.Bucket(this, 'Bucket', {
      ...common,
      serverAccessLogsBucket: this.accessLogBucket,
      serverAccessLogsPrefix: 'data-bucket/',
      lifecycleRules: [
        {
          id: 'expire-tenant-data',
          expiration: Duration.days(props.expireAfterDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
    });
  }

  /**
   * Lets `writerRoleArn` upload tenant tables, in the bucket policy (so it holds for a role of another
   * account too): s3:PutObject under `<tenant>/` (the named tenants, or any), over TLS, with the
   * request asking for SSE-S3. Explicit denies make that the writer's whole access to the bucket even
   * where its own identity policy grants more (same account): no read, no list, no delete, no
   * unencrypted or out-of-prefix put. A single PutObject carries the SSE header; a multipart
   * upload's UploadPart does not and is refused, which tables far below 5 GB never need.
   */
  grantTenantUploads(writerRoleArn: string, tenants: readonly string[] | undefined, sid = 'Writer'): void {
    this.grantUploads(writerRoleArn, (tenants ?? ['*']).map((tenant) => this.bucket.arnForObjects(`${tenant}/*`)), sid);
  }

  /**
   * Lets sessions of the tenant role upload under their own tenant's prefix only: the prefix is the
   * session's `jube-tenant` principal tag (a policy variable), and a session without the tag may put
   * nothing (an unresolved variable matches nothing, so the `Null` check denies it outright).
   */
  grantTenantSessionUploads(tenantRoleArn: string): void {
    this.grantUploads(tenantRoleArn, [this.bucket.arnForObjects(`${TENANT_TAG_VARIABLE}/*`)], 'TenantSession');
    this.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'TenantSessionPutsOnlyWhenTagged',
        effect: iam.Effect.DENY,
        principals: [new iam.ArnPrincipal(tenantRoleArn)],
        actions: ['s3:PutObject'],
        resources: [this.bucket.arnForObjects('*')],
        conditions: { Null: { [`aws:PrincipalTag/${TENANT_TAG_KEY}`]: 'true' } },
      }),
    );
  }

  private grantUploads(writerRoleArn: string, prefixes: string[], sid: string): void {
    const writer = new iam.ArnPrincipal(writerRoleArn);
    const statements = [
      new iam.PolicyStatement({
        sid: `${sid}PutsTenantTables`,
        principals: [writer],
        actions: ['s3:PutObject'],
        resources: prefixes,
        conditions: { Bool: { 'aws:SecureTransport': 'true' }, StringEquals: { 's3:x-amz-server-side-encryption': WRITER_SSE } },
      }),
      new iam.PolicyStatement({
        sid: `${sid}DoesNothingElse`,
        effect: iam.Effect.DENY,
        principals: [writer],
        notActions: ['s3:PutObject'],
        resources: [this.bucket.bucketArn, this.bucket.arnForObjects('*')],
      }),
      new iam.PolicyStatement({
        sid: `${sid}PutsEncryptedOnly`,
        effect: iam.Effect.DENY,
        principals: [writer],
        actions: ['s3:PutObject'],
        resources: [this.bucket.arnForObjects('*')],
        // A request without the header does not match the value, so it is denied too.
        conditions: { StringNotEquals: { 's3:x-amz-server-side-encryption': WRITER_SSE } },
      }),
      new iam.PolicyStatement({
        sid: `${sid}PutsUnderTenantsOnly`,
        effect: iam.Effect.DENY,
        principals: [writer],
        actions: ['s3:PutObject'],
        notResources: prefixes,
      }),
    ];
    for (const statement of statements) this.bucket.addToResourcePolicy(statement);
  }

  /**
   * Denies every data action (DATA_ACTIONS) to every principal but `allowed` (role ARNs, matched as
   * aws:PrincipalArn, which for a role session is its role's ARN): no same-account administrator or
   * other role reads, lists or writes tenant tables, whatever its identity policy says. To empty the
   * bucket (dev, before deleting the stack) an administrator deletes this policy first.
   */
  denyAllBut(allowed: readonly string[]): void {
    denyDataToAllBut(this.bucket, 'DenyDataToAllButServiceAndWriters', allowed);
  }

  /**
   * A presigned GET (query-string authentication) works only through `vpcEndpointId`, the S3 gateway
   * endpoint of the execute function's subnets: a presigned URL that leaves (in a log, an answer) is
   * worth nothing anywhere else, before it expires too.
   */
  allowPresignedOnlyThrough(vpcEndpointId: string): void {
    this.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'DenyPresignedOutsideEndpoint',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['s3:GetObject'],
        resources: [this.bucket.arnForObjects('*')],
        conditions: { StringEquals: { 's3:authType': 'REST-QUERY-STRING' }, StringNotEquals: { 'aws:SourceVpce': vpcEndpointId } },
      }),
    );
  }

  /**
   * Lets `grantee` read objects (GetObject covers HeadObject) to check and presign them. No
   * ListBucket: an unresolved pointer is DATA_POINTER_UNRESOLVED whether S3 says 403 or 404.
   */
  grantObjectRead(grantee: iam.IGrantable & IConstruct): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ReadTenantDataObjects',
        actions: ['s3:GetObject'],
        resources: [this.bucket.arnForObjects('*')],
      }),
    );
    acknowledgeObjectWildcard(grantee, this.bucket, 'Objects are keyed <tenant>/<pointer> and both parts come with each request; the tenant check is in the handler, reads stay inside this one bucket.');
  }
}

/**
 * Denies every data action (DATA_ACTIONS) on `bucket` to every principal but `allowed` (role ARNs,
 * matched as aws:PrincipalArn, which for a role session is its role's ARN).
 */
export function denyDataToAllBut(bucket: s3.Bucket, sid: string, allowed: readonly string[]): void {
  bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      sid,
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: [...DATA_ACTIONS],
      resources: [bucket.bucketArn, bucket.arnForObjects('*')],
      conditions: { ArnNotLike: { 'aws:PrincipalArn': [...allowed] } },
    }),
  );
}

/** cdk-nag's IAM5 for a grant on every object of `bucket`, acknowledged on `grantee` with why. */
export function acknowledgeObjectWildcard(grantee: IConstruct, bucket: s3.Bucket, reason: string): void {
  const bucketLogicalId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as s3.CfnBucket);
  Validations.of(grantee).acknowledge({ id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/*]`, reason });
}
