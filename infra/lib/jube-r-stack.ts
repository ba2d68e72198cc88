/**
 * The jube-r stack for one environment: callers (the tenant role), network (with its DNS firewall),
 * data bucket, execute function, API function, private API, alarms and a dashboard. Everything it
 * needs arrives as readonly props resolved in infra/bin.
 */
import { CfnOutput, CfnResource, Fn, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ECR_IMAGE_URI, type DeploymentConfig } from './config.ts';
import { Callers } from './constructs/callers.ts';
import { DataBucket } from './constructs/data-bucket.ts';
import { SessionStore } from './constructs/session-store.ts';
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
  readonly callers: Callers;
  readonly network: Network;
  readonly data: DataBucket;
  readonly sessions: SessionStore;
  readonly execute: ExecuteFunction;
  readonly apiFunction: ApiFunction;
  readonly api: PrivateApi;
  readonly monitoring: Monitoring;

  /** How many AZs a created VPC spans (config.vpc.maxAzs); read by availabilityZones below. */
  private readonly azCount: number;

  constructor(scope: Construct, id: string, props: JubeRStackProps) {
    super(scope, id, props);
    const { config, paths } = props;
    this.azCount = config.vpc.kind === 'create' ? config.vpc.maxAzs : config.vpc.availabilityZones.length;
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

    this.callers = new Callers(this, 'Callers', { callers: config.callers });

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
    // Presigned downloads only through the execute function's own S3 route.
    this.data.allowPresignedOnlyThrough(this.network.s3Endpoint.vpcEndpointId);
    if (this.callers.binding === 'identity') {
      this.data.grantTenantSessionUploads(this.callers.roleArn);
      this.callers.grantOwnPrefixUploads(this.data.bucket);
    } else {
      this.data.grantTenantUploads(this.callers.roleArn, undefined, 'Orchestrator');
    }
    if (config.data.writerRoleArn) this.data.grantTenantUploads(config.data.writerRoleArn, config.data.writerTenants);
    // The region comes from the config (a literal), so the allowed name is exact.
    this.network.restrictDnsTo(dataBucketDomains(this.data.bucket.bucketName, config.region, this.urlSuffix));

    this.sessions = new SessionStore(this, 'Sessions', { removalPolicy, accessLogBucket: this.data.accessLogBucket });

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
      imageDigest: config.executeImageUri === undefined ? undefined : ECR_IMAGE_URI.exec(config.executeImageUri)?.[4],
      memoryMiB: config.validate.memoryMiB,
      architecture: config.validate.architecture,
      timeoutSeconds: this.chain.validateLambdaTimeoutSeconds,
      environment: validateEnvironment(config, this.chain, {
        executeFunctionName: this.execute.function.functionName,
        dataBucketName: this.data.bucket.bucketName,
        sessionBucketName: this.sessions.bucket.bucketName,
        callerRoleArn: this.callers.roleArn,
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
    this.sessions.grantApi(this.apiFunction.role);
    // Nobody else touches the tables: the validate role reads, the callers (and an uploader) write.
    this.data.denyAllBut([this.apiFunction.role.roleArn, this.callers.roleArn, ...(config.data.writerRoleArn ? [config.data.writerRoleArn] : [])]);

    this.api = new PrivateApi(this, 'Api', {
      apiName: `jube-r-${config.envName}`,
      stageName: config.envName,
      endpoint: this.network.apiEndpoint,
      additionalVpcEndpointIds: config.api.additionalVpcEndpointIds,
      manageAccountCloudWatchRole: config.manageApiGatewayAccount,
      callers: this.callers,
      handler: this.apiFunction.function,
      integrationTimeoutMs: this.chain.apiIntegrationTimeoutMs,
      throttlingRateLimit: config.api.throttlingRateLimit,
      throttlingBurstLimit: config.api.throttlingBurstLimit,
      ...logs_,
    });
    this.callers.grantInvoke(this.api.api, config.envName);

    this.monitoring = new Monitoring(this, 'Monitoring', {
      dashboardName: `${config.stackName}-${config.region}`,
      execute: this.execute.function,
      executeLogGroup: this.execute.logGroup,
      stackName: config.stackName,
      validate: this.apiFunction.function,
      validateLogGroup: this.apiFunction.logGroup,
      dnsQueryLogGroup: this.network.dnsFirewall?.queryLogGroup,
      stage: this.api.api.deploymentStage,
      executeTimeoutMs: this.chain.executeLambdaTimeoutSeconds * 1000,
      reservedConcurrency: config.execute.maxInflight,
      apiIntegrationTimeoutMs: this.chain.apiIntegrationTimeoutMs,
      alarmTopicArn: config.alarmTopicArn,
    });

    this.addOutputs(config);
    this.expireProviderLogs(logs_);
  }

  /**
   * The AZs a created VPC spreads over, as `Fn::GetAZs` picks them at deploy time (the region's
   * first ones). CDK's own answer for a stack whose account and region are literals is a context
   * lookup, which needs credentials and writes cdk.context.json: `-c account=` must stay offline.
   */
  override get availabilityZones(): string[] {
    return Array.from({ length: this.azCount }, (_, i) => Fn.select(i, Fn.getAzs()));
  }

  /**
   * Lambda functions the stack does not define itself (CDK's custom-resource providers, e.g. the one
   * that strips a created VPC's default security group) log to a group Lambda creates on first use,
   * which never expires. Each gets a group of the stack's, with its retention, named in its
   * LoggingConfig and created before it.
   */
  private expireProviderLogs(options: { logRetention: logs.RetentionDays; logRemovalPolicy: RemovalPolicy }): void {
    // A CfnFunction holds its properties as fields; a plain CfnResource (the providers') in _cfnProperties.
    const loggingConfigOf = (fn: CfnResource): unknown =>
      fn instanceof lambda.CfnFunction ? fn.loggingConfig : (fn as unknown as { _cfnProperties?: Record<string, unknown> })._cfnProperties?.['LoggingConfig'];
    const providers = this.node
      .findAll()
      .filter((c): c is CfnResource => c instanceof CfnResource && c.cfnResourceType === 'AWS::Lambda::Function')
      .filter((fn) => loggingConfigOf(fn) === undefined);
    for (const fn of providers) {
      const group = new logs.LogGroup(fn.node.scope as Construct, `${fn.node.id}LogGroup`, {
        retention: options.logRetention,
        removalPolicy: options.logRemovalPolicy,
      });
      fn.addPropertyOverride('LoggingConfig', { LogGroup: group.logGroupName });
      fn.addResourceDependency(group.node.defaultChild as CfnResource);
    }
  }

  /** What an orchestrator (or its operator) needs to reach the private API from another network. */
  private addOutputs(config: DeploymentConfig): void {
    const apiId = this.api.api.restApiId;
    const endpoint = this.network.apiEndpoint;
    const host = (name: string) => `${name}.execute-api.${config.region}.${this.urlSuffix}`;
    const inOwnVpc = config.vpc.kind === 'create';
    const outputs: Record<string, { value: string; description: string }> = {
      ApiId: { value: apiId, description: 'Private REST API id' },
      // The plain name resolves only where an execute-api endpoint with private DNS answers it: a
      // caller VPC's own endpoint, admitted by -c callerVpcEndpointIds. Not in jube-r's VPC (the stack's
      // endpoint has no private DNS, and the DNS firewall there answers no execute-api name).
      ...(config.api.additionalVpcEndpointIds.length > 0
        ? {
            ApiUrl: {
              value: `https://${host(apiId)}/${config.envName}/`,
              description: `Invoke URL from a caller VPC whose own execute-api endpoint (${config.api.additionalVpcEndpointIds.join(', ')}) has private DNS; it resolves nowhere else`,
            },
          }
        : {}),
      ...(endpoint
        ? {
            ApiVpcEndpointUrl: {
              value: `https://${host(`${apiId}-${endpoint.vpcEndpointId}`)}/${config.envName}/`,
              description: "Invoke URL through this stack's endpoint, from a network routed to it (peering, transit gateway; -c peeredCallerCidrs): public DNS resolves it to the endpoint's private addresses",
            },
            ApiVpcEndpointId: { value: endpoint.vpcEndpointId, description: "The stack's execute-api interface endpoint (aws:SourceVpce of the resource policy)" },
          }
        : {}),
      VpcId: { value: this.network.vpc.vpcId, description: 'The VPC of the execute function and the execute-api endpoint' },
      IsolatedSubnetIds: {
        value: Fn.join(',', this.network.vpc.selectSubnets(this.network.isolatedSubnets).subnetIds),
        description: 'Isolated subnets of the execute function and the execute-api endpoint (comma-separated)',
      },
      S3GatewayEndpointId: {
        value: this.network.s3Endpoint.vpcEndpointId,
        description: "S3 gateway endpoint of the execute function's subnets (data bucket reads only; the only place presigned GETs work)",
      },
      ExecuteSecurityGroupId: { value: this.network.executeSecurityGroup.securityGroupId, description: 'The execute function\'s security group' },
      DnsFirewallRuleGroupId: {
        value: this.network.dnsFirewall!.ruleGroup.attrId,
        description: inOwnVpc
          ? 'DNS Firewall rule group (only the data bucket\'s name resolves), associated with the stack\'s VPC'
          : 'DNS Firewall rule group (only the data bucket\'s name resolves), NOT associated: for the VPC\'s owner to associate',
      },
      DataBucketName: { value: this.data.bucket.bucketName, description: 'Tenant tables at <tenant>/<pointer>.csv(.gz)' },
      CallerRoleArn: {
        value: this.callers.roleArn,
        description:
          this.callers.binding === 'identity'
            ? 'The tenant role: assume it with --role-session-name <tenant> --tags Key=jube-tenant,Value=<tenant> to call /t/<tenant>/ and put tables under <tenant>/'
            : 'The single orchestrator role: it calls /t/<tenant>/ for every tenant and puts tables under any <tenant>/',
      },
      ...(config.data.writerRoleArn
        ? { DataWriterRoleArn: { value: config.data.writerRoleArn, description: 'A further uploader: s3:PutObject under <tenant>/ only (TLS, SSE-S3 AES256)' } }
        : {}),
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
