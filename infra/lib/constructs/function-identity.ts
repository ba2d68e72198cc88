/**
 * The log group and execution role every jube-r function starts from: the role may write to
 * that one log group (no logs:* on "*", which the managed basic-execution policy would grant)
 * plus whatever inline policies the caller adds. Created as `LogGroup` and `Role` children of
 * `scope`, so the CloudFormation logical ids stay those of the calling construct.
 */
import { type RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

export interface FunctionIdentityProps {
  readonly roleDescription: string;
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** Further inline policies, by name. */
  readonly inlinePolicies?: Readonly<Record<string, iam.PolicyDocument>>;
}

export interface FunctionIdentity {
  readonly logGroup: logs.LogGroup;
  readonly role: iam.Role;
}

export function functionIdentity(scope: Construct, props: FunctionIdentityProps): FunctionIdentity {
  const logGroup = new logs.LogGroup(scope, 'LogGroup', {
    retention: props.logRetention,
    removalPolicy: props.logRemovalPolicy,
  });
  const role = new iam.Role(scope, 'Role', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: props.roleDescription,
    inlinePolicies: {
      'own-log-group': new iam.PolicyDocument({
        statements: [
          new iam.PolicyStatement({
            sid: 'WriteOwnLogGroup',
            actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            resources: [logGroup.logGroupArn],
          }),
        ],
      }),
      ...props.inlinePolicies,
    },
  });
  return { logGroup, role };
}

/**
 * Active tracing makes CDK grant the role xray:PutTraceSegments and xray:PutTelemetryRecords on
 * "*": X-Ray defines no resource types for them, so no narrower resource exists.
 */
export function acknowledgeXrayWildcard(role: iam.IRole & Construct): void {
  Validations.of(role).acknowledge({
    id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
    reason:
      'X-Ray active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions, ' +
      'so CDK grants them on "*"; nothing else in the policy uses a wildcard resource.',
  });
}
