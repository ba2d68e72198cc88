/**
 * The execute function: the r-image container (Node 24 handler + R) in isolated subnets, reserved
 * concurrency = the in-flight cap, PER_TENANT tenancy unless the config says why not. Its role can write to its own
 * log group, manage the ENIs Lambda needs to place it in the VPC and send X-Ray segments; nothing
 * else (no S3, no Lambda, no other service): a script that escaped R would hold credentials worth
 * nothing, and the network (isolated subnets, one egress rule, DNS firewall) lets it reach nothing.
 */
import { Duration, type RemovalPolicy, Size, Stack, Validations } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import * as ecrAssets from 'aws-cdk-lib/aws-ecr-assets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ECR_IMAGE_URI, type DeploymentConfig } from '../config.ts';
import { functionIdentity } from './function-identity.ts';
import { nagArnPrefix } from './nag.ts';
import { subnetArns } from './network.ts';

export interface ExecuteFunctionProps {
  /** Directory holding the plain `Dockerfile` and its staged build context (r-image/). */
  readonly imageDirectory: string;
  /** BASE_IMAGE for the Dockerfile, pinned by digest; unset: the Dockerfile's default. */
  readonly baseImage: string | undefined;
  /** A prebuilt image in ECR pinned by digest (config executeImageUri); unset: `cdk deploy` builds imageDirectory. */
  readonly prebuiltImageUri: string | undefined;
  readonly execute: DeploymentConfig['execute'];
  readonly timeoutSeconds: number;
  readonly environment: Readonly<Record<string, string>>;
  readonly vpc: ec2.IVpc;
  readonly subnets: ec2.SubnetSelection;
  readonly securityGroup: ec2.ISecurityGroup;
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

export class ExecuteFunction extends Construct {
  readonly function: lambda.DockerImageFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ExecuteFunctionProps) {
    super(scope, id);
    const stack = Stack.of(this);

    ({ logGroup: this.logGroup, role: this.role } = functionIdentity(this, {
      roleDescription: 'jube-r execute function: its own log group and its VPC ENIs, nothing else',
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      inlinePolicies: { 'vpc-enis': new iam.PolicyDocument({ statements: eniStatements(stack, props) }) },
    }));
    const eniReason =
      'Lambda creates and deletes the hyperplane ENIs of a VPC function with the execution role; their ids are unknown before ' +
      'creation, so network-interface/* (this account and region only) is the narrowest resource, and ' +
      'ec2:DescribeNetworkInterfaces/DescribeSubnets support no resource-level permissions (Resource "*"); nor do ' +
      "X-Ray's xray:PutTraceSegments/PutTelemetryRecords, which CDK grants on \"*\" for active tracing.";
    Validations.of(this.role).acknowledge(
      { id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagNetworkInterfaceArn(stack)}]`, reason: eniReason },
      { id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]', reason: eniReason },
    );

    const architecture = props.execute.architecture === 'arm64' ? lambda.Architecture.ARM_64 : lambda.Architecture.X86_64;
    this.function = new lambda.DockerImageFunction(this, 'Function', {
      description: 'jube-r execute: runs one validated R script in a fresh Rscript per invocation',
      code: imageCode(this, props, architecture),
      architecture,
      memorySize: props.execute.memoryMiB,
      ephemeralStorageSize: Size.mebibytes(props.execute.ephemeralStorageMiB),
      timeout: Duration.seconds(props.timeoutSeconds),
      reservedConcurrentExecutions: props.execute.maxInflight,
      // Invoked synchronously only; should anything ever invoke it asynchronously, never re-run a script.
      retryAttempts: 0,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      tracing: lambda.Tracing.ACTIVE,
      vpc: props.vpc,
      vpcSubnets: props.subnets,
      securityGroups: [props.securityGroup],
      environment: { ...props.environment },
      // CloudFormation cannot change TenancyConfig in place: switching it replaces the function.
      ...(props.execute.tenancy === 'per-tenant' ? { tenancyConfig: lambda.TenancyConfig.PER_TENANT } : {}),
    });
    // The role's ENI permissions must exist before Lambda validates the VPC configuration.
    this.function.node.addDependency(this.role);
  }
}

/**
 * The image the function runs: the prebuilt one the config pins (exactly the image whose package
 * facts the validate bundle serves), or the r-image asset `cdk deploy` builds.
 */
function imageCode(scope: Construct, props: ExecuteFunctionProps, architecture: lambda.Architecture): lambda.DockerImageCode {
  if (props.prebuiltImageUri) {
    const [, account, region, repositoryName, digest] = ECR_IMAGE_URI.exec(props.prebuiltImageUri)!;
    const repository = ecr.Repository.fromRepositoryAttributes(scope, 'PrebuiltImageRepository', {
      repositoryName: repositoryName!,
      repositoryArn: `arn:${Stack.of(scope).partition}:ecr:${region}:${account}:repository/${repositoryName}`,
    });
    return lambda.DockerImageCode.fromEcr(repository, { tagOrDigest: digest! });
  }
  return lambda.DockerImageCode.fromImageAsset(props.imageDirectory, {
    file: 'Dockerfile',
    // Built for the function's architecture whatever machine deploys (buildx/podman --platform).
    platform: architecture.dockerPlatform === 'linux/arm64' ? ecrAssets.Platform.LINUX_ARM64 : ecrAssets.Platform.LINUX_AMD64,
    ...(props.baseImage ? { buildArgs: { BASE_IMAGE: props.baseImage } } : {}),
  });
}

/**
 * What Lambda needs to attach the function to the VPC (the managed AWSLambdaVPCAccessExecutionRole,
 * minus its logs:* on "*", with resources narrowed to this account, region, subnets and security group).
 */
function eniStatements(stack: Stack, props: ExecuteFunctionProps): iam.PolicyStatement[] {
  const networkInterfaces = networkInterfaceArn(stack);
  const securityGroupArn = stack.formatArn({ service: 'ec2', resource: 'security-group', resourceName: props.securityGroup.securityGroupId });
  return [
    new iam.PolicyStatement({
      sid: 'CreateEnisInIsolatedSubnets',
      actions: ['ec2:CreateNetworkInterface'],
      resources: [networkInterfaces, securityGroupArn, ...subnetArns(stack, props.vpc, props.subnets)],
    }),
    new iam.PolicyStatement({
      sid: 'ManageOwnEnis',
      actions: ['ec2:DeleteNetworkInterface', 'ec2:AssignPrivateIpAddresses', 'ec2:UnassignPrivateIpAddresses'],
      resources: [networkInterfaces],
    }),
    new iam.PolicyStatement({
      sid: 'DescribeForEniPlacement',
      actions: ['ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets'],
      resources: ['*'],
    }),
  ];
}

/** Every ENI of this account and region (ids are assigned by Lambda at creation). */
function networkInterfaceArn(stack: Stack): string {
  return `arn:${stack.partition}:ec2:${stack.region}:${stack.account}:network-interface/*`;
}

/** That ARN as cdk-nag spells it in a finding id. */
function nagNetworkInterfaceArn(stack: Stack): string {
  return `${nagArnPrefix(stack, 'ec2')}:network-interface/*`;
}
