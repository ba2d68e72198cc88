/**
 * The session store (docs/sessions.md): one object per session, `<tenant>/<session>.json`, holding
 * the snapshot of the session's last kept call. A bucket of its own, so no data pointer can ever
 * name a snapshot. Only the API function's role reads, writes and deletes here (it alone handles
 * snapshots, as opaque bytes; the execute function gets and returns them in the invoke's payload
 * and has no S3 permission); every other principal is denied every data action. Objects expire
 * after a day without a write, well past the longest idle time a session may be configured with
 * (JUBE_R_SESSION_IDLE_SECONDS, at most 86,400 s), so an abandoned session leaves nothing behind.
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, type IConstruct } from 'constructs';
import { acknowledgeObjectWildcard, denyDataToAllBut, PRIVATE_BUCKET } from './data-bucket.ts';

/** Days an untouched snapshot lives (S3 lifecycle expirations count whole days). */
export const SESSION_EXPIRE_AFTER_DAYS = 2;

export interface SessionStoreProps {
  readonly removalPolicy: RemovalPolicy;
  /** Where the bucket's server access logs go (the data bucket's log bucket). */
  readonly accessLogBucket: s3.IBucket;
}

export class SessionStore extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: SessionStoreProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      ...PRIVATE_BUCKET,
      removalPolicy: props.removalPolicy,
      serverAccessLogsBucket: props.accessLogBucket,
      serverAccessLogsPrefix: 'session-store/',
      lifecycleRules: [{ id: 'expire-idle-sessions', expiration: Duration.days(SESSION_EXPIRE_AFTER_DAYS) }],
    });
  }

  /** The API function's rights: read, write and delete snapshots; nothing else, and nobody else. */
  grantApi(role: iam.IRole & IConstruct): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'SessionSnapshots',
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
        resources: [this.bucket.arnForObjects('*')],
      }),
    );
    denyDataToAllBut(this.bucket, 'DenySessionsToAllButApi', [role.roleArn]);
    acknowledgeObjectWildcard(role, this.bucket, 'Snapshots are keyed <tenant>/<session>; the tenant comes from the checked caller and the session from its header, and nothing but snapshots is in this bucket.');
  }
}
