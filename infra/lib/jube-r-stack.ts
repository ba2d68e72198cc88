/**
 * The jube-r stack for one environment: network, data bucket, execute function, validate
 * function, private API. Everything it needs arrives as readonly props resolved in infra/bin.
 */
import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { DeploymentConfig } from './config.ts';
import { DataBucket } from './constructs/data-bucket.ts';
import { ExecuteFunction } from './constructs/execute-function.ts';
import { Network } from './constructs/network.ts';
import { PrivateApi } from './constructs/private-api.ts';
import { ValidateFunction } from './constructs/validate-function.ts';
import { executeEnvironment, validateEnvironment } from './environment-variables.ts';
import { timeoutChainOrThrow, type TimeoutChain } from './timeout-chain.ts';

export interface JubeRPaths {
  readonly repositoryRoot: string;
  /** functions/validate/handler.ts */
  readonly validateEntry: string;
  /** r-image/ (plain Dockerfile + staged context) */
  readonly imageDirectory: string;
}

export interface JubeRStackProps extends StackProps {
  readonly config: DeploymentConfig;
  readonly paths: JubeRPaths;
}

export class JubeRStack extends Stack {
  readonly chain: TimeoutChain;
  readonly network: Network;
  readonly data: DataBucket;
  readonly execute: ExecuteFunction;
  readonly validate: ValidateFunction;
  readonly api: PrivateApi;

  constructor(scope: Construct, id: string, props: JubeRStackProps) {
    super(scope, id, props);
    const { config, paths } = props;
    // Fails synthesis with the reason when the chain cannot nest under the quota.
    this.chain = timeoutChainOrThrow({
      maxScriptSeconds: config.timeouts.maxScriptSeconds,
      killGraceSeconds: config.timeouts.killGraceSeconds,
      executeOverheadSeconds: config.timeouts.executeOverheadSeconds,
      integrationQuotaSeconds: config.timeouts.integrationQuota.seconds,
      ...(config.timeouts.integrationQuota.raisedBy ? { quotaRaisedBy: config.timeouts.integrationQuota.raisedBy } : {}),
    });
    const removalPolicy = config.removalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const logRetention = config.logRetentionDays as logs.RetentionDays;
    const logs_ = { logRetention, logRemovalPolicy: removalPolicy };

    this.network = new Network(this, 'Network', { vpc: config.vpc, s3PrefixListId: config.s3PrefixListId, ...logs_ });

    this.data = new DataBucket(this, 'Data', {
      expireAfterDays: config.data.expireAfterDays,
      accessLogExpireAfterDays: config.data.accessLogExpireAfterDays,
      removalPolicy,
    });
    this.network.restrictS3EndpointTo(this.data.bucket);

    this.execute = new ExecuteFunction(this, 'Execute', {
      imageDirectory: paths.imageDirectory,
      execute: config.execute,
      timeoutSeconds: this.chain.executeLambdaTimeoutSeconds,
      environment: executeEnvironment(config, this.chain),
      vpc: this.network.vpc,
      subnets: this.network.isolatedSubnets,
      securityGroup: this.network.executeSecurityGroup,
      ...logs_,
    });

    this.validate = new ValidateFunction(this, 'Validate', {
      repositoryRoot: paths.repositoryRoot,
      entry: paths.validateEntry,
      memoryMiB: config.validate.memoryMiB,
      timeoutSeconds: this.chain.validateLambdaTimeoutSeconds,
      environment: validateEnvironment(config, this.chain, {
        executeFunctionName: this.execute.function.functionName,
        dataBucketName: this.data.bucket.bucketName,
      }),
      ...logs_,
    });
    // The only principal allowed to invoke the execute function; unqualified ARN only.
    this.validate.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'InvokeExecuteFunction',
        actions: ['lambda:InvokeFunction'],
        resources: [this.execute.function.functionArn],
      }),
    );
    this.data.grantObjectRead(this.validate.role);

    this.api = new PrivateApi(this, 'Api', {
      stageName: config.envName,
      endpoint: this.network.apiEndpoint,
      orchestratorRoleArn: config.orchestratorRoleArn,
      handler: this.validate.function,
      integrationTimeoutMs: this.chain.apiIntegrationTimeoutMs,
      throttlingRateLimit: config.api.throttlingRateLimit,
      throttlingBurstLimit: config.api.throttlingBurstLimit,
      ...logs_,
    });

    new CfnOutput(this, 'ApiId', { value: this.api.api.restApiId, description: 'Private REST API id' });
    new CfnOutput(this, 'ApiVpcEndpointId', { value: this.network.apiEndpoint.vpcEndpointId });
    new CfnOutput(this, 'DataBucketName', { value: this.data.bucket.bucketName });
    new CfnOutput(this, 'OrchestratorMinimumHttpTimeoutMs', {
      value: String(this.chain.apiIntegrationTimeoutMs + 1000),
      description: 'The orchestrator must wait longer than the API integration timeout',
    });
  }
}
