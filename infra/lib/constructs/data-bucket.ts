/**
 * The data bucket: tenant tables at `<tenant>/<pointer>` (CSV, optionally gzip).
 * Encrypted with S3-managed keys (a presigned GET then needs no kms:Decrypt by the signer), public
 * access blocked, TLS enforced, objects expire, server access logs to a sibling bucket.
 * Only the validate role reads it (it checks objects and presigns GETs); the execute role has no
 * S3 permission at all: it downloads through presigned URLs signed by the validate role. One writer
 * principal (the orchestrator's role, or the one the config names) may put objects under a tenant's
 * prefix, over TLS and with SSE-S3, and do nothing else here, whatever its own policies allow.
 */
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, type IConstruct } from 'constructs';

/** The one SSE the writer may ask for: the bucket's own (SSE-S3), which presigned GETs read without KMS. */
export const WRITER_SSE = 'AES256';

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
    const common = {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: props.removalPolicy,
    } as const;

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
  grantTenantUploads(writerRoleArn: string, tenants: readonly string[] | undefined): void {
    const writer = new iam.ArnPrincipal(writerRoleArn);
    const prefixes = (tenants ?? ['*']).map((tenant) => this.bucket.arnForObjects(`${tenant}/*`));
    const statements = [
      new iam.PolicyStatement({
        sid: 'WriterPutsTenantTables',
        principals: [writer],
        actions: ['s3:PutObject'],
        resources: prefixes,
        conditions: { Bool: { 'aws:SecureTransport': 'true' }, StringEquals: { 's3:x-amz-server-side-encryption': WRITER_SSE } },
      }),
      new iam.PolicyStatement({
        sid: 'WriterDoesNothingElse',
        effect: iam.Effect.DENY,
        principals: [writer],
        notActions: ['s3:PutObject'],
        resources: [this.bucket.bucketArn, this.bucket.arnForObjects('*')],
      }),
      new iam.PolicyStatement({
        sid: 'WriterPutsEncryptedOnly',
        effect: iam.Effect.DENY,
        principals: [writer],
        actions: ['s3:PutObject'],
        resources: [this.bucket.arnForObjects('*')],
        // A request without the header does not match the value, so it is denied too.
        conditions: { StringNotEquals: { 's3:x-amz-server-side-encryption': WRITER_SSE } },
      }),
      new iam.PolicyStatement({
        sid: 'WriterPutsUnderTenantsOnly',
        effect: iam.Effect.DENY,
        principals: [writer],
        actions: ['s3:PutObject'],
        notResources: prefixes,
      }),
    ];
    for (const statement of statements) this.bucket.addToResourcePolicy(statement);
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
    const bucketLogicalId = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket);
    Validations.of(grantee).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/*]`,
      reason: 'Objects are keyed <tenant>/<pointer> and both parts come with each request; the tenant check is in the handler, reads stay inside this one bucket.',
    });
  }
}
