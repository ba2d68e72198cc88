/**
 * The data bucket: tenant tables at `<tenant>/<pointer>` (CSV, optionally gzip).
 * Encrypted with S3-managed keys (a presigned GET then needs no kms:Decrypt by the signer), public
 * access blocked, TLS enforced, objects expire, server access logs to a sibling bucket.
 * Only the validate role reads it (it checks objects and presigns GETs); the execute role has no
 * S3 permission at all: it downloads through presigned URLs signed by the validate role.
 */
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, type IConstruct } from 'constructs';

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
