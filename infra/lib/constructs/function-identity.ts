/**
 * The log group and execution role every jube-r function starts from: the role may write to
 * that one log group (no logs:* on "*", which the managed basic-execution policy would grant)
 * plus whatever inline policies the caller adds. Created as `LogGroup` and `Role` children of
 * `scope`, so the CloudFormation logical ids stay those of the calling construct.
 */
import type { RemovalPolicy } from 'aws-cdk-lib';
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
