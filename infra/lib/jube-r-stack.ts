/**
 * The jube-r stack for one environment: network (with its DNS firewall), data bucket, execute
 * function, API function, private API, alarms and a dashboard. Everything it needs arrives as
 * readonly props resolved in infra/bin.
 */
import { CfnOutput, Fn, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { DeploymentConfig } from './config.ts';
import { DataBucket } from './constructs/data-bucket.ts';
import { dataBucketDomains } from './constructs/dns-firewall.ts';
import { ExecuteFunction } from './constructs/execute-function.ts';
import { Monitoring } from './constructs/monitoring.ts';
import { Network } from './constructs/network.ts';
import { PrivateApi } from './constructs/private-api.ts';
import { ApiFunction } from './constructs/api-function.ts';
import { executeEnvironment, validateEnvironment } from './environment-variables.ts';
import { timeoutChainOrThrow, type TimeoutChain } from './timeout-chain.ts';

export interface JubeRPaths {
  readonly repositoryRoot: string;
  /** functions/api/handler.ts */
  readonly apiEntry: string;
  /** r-image/ (plain Dockerfile + staged context) */
  readonly imageDirectory: string;
  /**
   * What the image's package-facts step wrote (manifest.json and its neighbours), as the image build
   * extracted it (infra/lib/package-facts.ts): the validate bundle serves these, not the host's.
   */
  readonly packageFactsDirectory: string;
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
  readonly apiFunction: ApiFunction;
  readonly api: PrivateApi;
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: JubeRStackProps) {
    super(scope, id, props);
    const { config, paths } = props;
    // Fails synthesis with the reason when the chain cannot nest under the quota.
    this.chain = timeoutChainOrThrow({
      maxScriptSeconds: config.timeouts.maxScriptSeconds,
      killGraceSeconds: config.timeouts.killGraceSeconds,
      executeOverheadSeconds: config.timeouts.executeOverheadSeconds,
      executeColdStartHeadroomMs: config.timeouts.executeColdStartHeadroomSeconds * 1000,
      integrationQuotaSeconds: config.timeouts.integrationQuota.seconds,
      ...(config.timeouts.integrationQuota.raisedBy ? { quotaRaisedBy: config.timeouts.integrationQuota.raisedBy } : {}),
    });
    const removalPolicy = config.removalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const logRetention = config.logRetentionDays as logs.RetentionDays;
    const logs_ = { logRetention, logRemovalPolicy: removalPolicy };

    this.network = new Network(this, 'Network', {
      vpc: config.vpc,
      s3PrefixListId: config.s3PrefixListId,
      peeredCallerCidrs: config.api.peeredCallerCidrs,
      ...logs_,
    });

    this.data = new DataBucket(this, 'Data', {
      expireAfterDays: config.data.expireAfterDays,
      accessLogExpireAfterDays: config.data.accessLogExpireAfterDays,
      removalPolicy,
    });
    this.network.restrictS3EndpointTo(this.data.bucket);
    this.data.grantTenantUploads(config.data.writerRoleArn ?? config.orchestratorRoleArn, config.data.writerTenants);
    // The region comes from the config (a literal), so the allowed name is exact.
    this.network.restrictDnsTo(dataBucketDomains(this.data.bucket.bucketName, config.region, this.urlSuffix));

    this.execute = new ExecuteFunction(this, 'Execute', {
      imageDirectory: paths.imageDirectory,
      baseImage: config.executeBaseImage,
      prebuiltImageUri: config.executeImageUri,
      execute: config.execute,
      timeoutSeconds: this.chain.executeLambdaTimeoutSeconds,
      environment: executeEnvironment(config, this.chain, { dataBucketName: this.data.bucket.bucketName }),
      vpc: this.network.vpc,
      subnets: this.network.isolatedSubnets,
      securityGroup: this.network.executeSecurityGroup,
      ...logs_,
    });

    // The construct id stays 'Validate': it makes the logical ID ValidateFunction2E581753 that
    // docs/local-sam.md and events/sam-env-vars.json name, and a new id would replace the function.
    this.apiFunction = new ApiFunction(this, 'Validate', {
      repositoryRoot: paths.repositoryRoot,
      entry: paths.apiEntry,
      packageFactsDirectory: paths.packageFactsDirectory,
      memoryMiB: config.validate.memoryMiB,
      architecture: config.validate.architecture,
      timeoutSeconds: this.chain.validateLambdaTimeoutSeconds,
      environment: validateEnvironment(config, this.chain, {
        executeFunctionName: this.execute.function.functionName,
        dataBucketName: this.data.bucket.bucketName,
      }),
      ...logs_,
    });
    // The only principal allowed to invoke the execute function; unqualified ARN only.
    this.apiFunction.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'InvokeExecuteFunction',
        actions: ['lambda:InvokeFunction'],
        resources: [this.execute.function.functionArn],
      }),
    );
    this.data.grantObjectRead(this.apiFunction.role);

    this.api = new PrivateApi(this, 'Api', {
      apiName: `jube-r-${config.envName}`,
      stageName: config.envName,
      endpoint: this.network.apiEndpoint,
      additionalVpcEndpointIds: config.api.additionalVpcEndpointIds,
      manageAccountCloudWatchRole: config.manageApiGatewayAccount,
      orchestratorRoleArn: config.orchestratorRoleArn,
      handler: this.apiFunction.function,
      integrationTimeoutMs: this.chain.apiIntegrationTimeoutMs,
      throttlingRateLimit: config.api.throttlingRateLimit,
      throttlingBurstLimit: config.api.throttlingBurstLimit,
      ...logs_,
    });

    this.monitoring = new Monitoring(this, 'Monitoring', {
      dashboardName: `${config.stackName}-${config.region}`,
      execute: this.execute.function,
      executeLogGroup: this.execute.logGroup,
      stackName: config.stackName,
      validate: this.apiFunction.function,
      stage: this.api.api.deploymentStage,
      executeTimeoutMs: this.chain.executeLambdaTimeoutSeconds * 1000,
      reservedConcurrency: config.execute.maxInflight,
      apiIntegrationTimeoutMs: this.chain.apiIntegrationTimeoutMs,
      alarmTopicArn: config.alarmTopicArn,
    });

    this.addOutputs(config);
  }

  /** What an orchestrator (or its operator) needs to reach the private API from another network. */
  private addOutputs(config: DeploymentConfig): void {
    const apiId = this.api.api.restApiId;
    const endpoint = this.network.apiEndpoint;
    const host = (name: string) => `${name}.execute-api.${config.region}.${this.urlSuffix}`;
    const inOwnVpc = config.vpc.kind === 'create';
    const outputs: Record<string, { value: string; description: string }> = {
      ApiId: { value: apiId, description: 'Private REST API id' },
      ApiUrl: {
        value: `https://${host(apiId)}/${config.envName}/`,
        description: inOwnVpc
          ? "Invoke URL; resolves through the stack's execute-api endpoint's private DNS inside its VPC"
          : 'Invoke URL; resolves only inside a VPC with an execute-api endpoint of its own that has private DNS (the caller\'s)',
      },
      ...(endpoint
        ? {
            ApiVpcEndpointUrl: {
              value: `https://${host(`${apiId}-${endpoint.vpcEndpointId}`)}/${config.envName}/`,
              description: "Invoke URL through this stack's endpoint, resolvable from any network routed to it (peering, transit gateway)",
            },
            ApiVpcEndpointId: { value: endpoint.vpcEndpointId, description: "The stack's execute-api interface endpoint (aws:SourceVpce of the resource policy)" },
          }
        : {}),
      VpcId: { value: this.network.vpc.vpcId, description: 'The VPC of the execute function and the execute-api endpoint' },
      IsolatedSubnetIds: {
        value: Fn.join(',', this.network.vpc.selectSubnets(this.network.isolatedSubnets).subnetIds),
        description: 'Isolated subnets of the execute function and the execute-api endpoint (comma-separated)',
      },
      ...(this.network.s3Endpoint
        ? { S3GatewayEndpointId: { value: this.network.s3Endpoint.vpcEndpointId, description: 'S3 gateway endpoint (data bucket reads only)' } }
        : {}),
      ExecuteSecurityGroupId: { value: this.network.executeSecurityGroup.securityGroupId, description: 'The execute function\'s security group' },
      DnsFirewallRuleGroupId: {
        value: this.network.dnsFirewall!.ruleGroup.attrId,
        description: inOwnVpc
          ? 'DNS Firewall rule group (only the data bucket\'s name resolves), associated with the stack\'s VPC'
          : 'DNS Firewall rule group (only the data bucket\'s name resolves), NOT associated: for the VPC\'s owner to associate',
      },
      DataBucketName: { value: this.data.bucket.bucketName, description: 'Tenant tables at <tenant>/<pointer>.csv(.gz)' },
      DataWriterRoleArn: {
        value: config.data.writerRoleArn ?? config.orchestratorRoleArn,
        description: 'The one principal that may put tenant tables (s3:PutObject under <tenant>/, TLS, SSE-S3 AES256)',
      },
      DashboardName: { value: this.monitoring.dashboard.dashboardName, description: 'CloudWatch dashboard of this environment' },
      OrchestratorMinimumHttpTimeoutMs: {
        value: String(orchestratorMinimumHttpTimeoutMs(this.chain)),
        description: 'The orchestrator must wait longer than the API integration timeout (jube-r call --min-http-timeout, JUBE_R_MIN_HTTP_TIMEOUT_MS)',
      },
    };
    for (const [id, output] of Object.entries(outputs)) new CfnOutput(this, id, output);
  }
}

/** The least an orchestrator's HTTP timeout may be: a second past API Gateway's own 504. Pure. */
export function orchestratorMinimumHttpTimeoutMs(chain: Pick<TimeoutChain, 'apiIntegrationTimeoutMs'>): number {
  return chain.apiIntegrationTimeoutMs + 1000;
}
