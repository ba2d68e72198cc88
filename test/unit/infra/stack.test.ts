/**
 * The jube-r stack, synthesized once per environment exactly as `cdk synth -c env=...` builds it
 * (AwsSolutions checks included: synthesis itself fails on an unacknowledged finding).
 */
import { loadRules } from '../../../layers/rules/rules.ts';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readContainment } from '../../../functions/execute/run/containment.ts';
import { readServiceConfig } from '../../../layers/config/service-config.ts';
import { ENVIRONMENT_NAMES, resolveDeploymentConfig, DeploymentConfigSchema, type EnvironmentName } from '../../../infra/lib/config.ts';
import { dnsFirewallAssociated } from '../../../infra/lib/environment-variables.ts';
import { rAddressSpaceLimitBytes } from '../../../infra/lib/execute-memory.ts';
import type { JubeRStack } from '../../../infra/lib/jube-r-stack.ts';
import { REPOSITORY_ROOT } from '../../../infra/lib/app.ts';
import { ALLOW_RULE_PRIORITY, BLOCK_RULE_PRIORITY } from '../../../infra/lib/constructs/dns-firewall.ts';
import { API_BUNDLE_FILES } from '../../../infra/lib/constructs/api-function.ts';
import { DATA_ACTIONS, WRITER_SSE } from '../../../infra/lib/constructs/data-bucket.ts';
import {
  DATAFRAME_STAGING_FAILURES_METRIC,
  DNS_FIREWALL_BLOCK_FILTER,
  DNS_FIREWALL_BLOCKS_METRIC,
  INIT_ERROR_FILTER,
  INIT_ERRORS_METRIC,
  metricNamespace,
  POST_RUNTIME_EXTENSIONS_P99_MS,
} from '../../../infra/lib/constructs/monitoring.ts';
import { readPackageFacts } from '../../../infra/lib/package-facts.ts';
import { DATAFRAME_STAGING_FAILED } from '../../../layers/contract/log-events.ts';
import { ROUTES, routePath } from '../../../layers/contract/api.ts';
import { TENANT_TAG_KEY } from '../../../layers/contract/isolation.ts';
import {
  actionsOf,
  allRoleStatements,
  deployableConfig,
  DEPLOY_OVERRIDES,
  FIXTURE_IMAGE_R_VERSION,
  FIXTURE_IMAGE_URI,
  fixturePackageFacts,
  SHARED_VPC,
  logicalIdOf,
  resourcesOf,
  statementsOfRole,
  synthesize,
  type Synthesized,
} from './synth-fixture.ts';

const synthesized = {} as Record<EnvironmentName, Synthesized>;

beforeAll(() => {
  for (const env of ENVIRONMENT_NAMES) synthesized[env] = synthesize(env);
}, 120_000);

afterAll(() => {
  for (const env of ENVIRONMENT_NAMES) synthesized[env]?.cleanup();
});

const ids = (stack: JubeRStack) => ({
  api: logicalIdOf(stack.api.api),
  apiEndpoint: logicalIdOf(stack.network.apiEndpoint!),
  s3Endpoint: logicalIdOf(stack.network.s3Endpoint!),
  executeFunction: logicalIdOf(stack.execute.function),
  executeRole: logicalIdOf(stack.execute.role),
  executeLogGroup: logicalIdOf(stack.execute.logGroup),
  executeSecurityGroup: logicalIdOf(stack.network.executeSecurityGroup),
  validateFunction: logicalIdOf(stack.apiFunction.function),
  validateRole: logicalIdOf(stack.apiFunction.role),
  validateLogGroup: logicalIdOf(stack.apiFunction.logGroup),
  tenantRole: tenantRoleOf(stack),
  bucket: logicalIdOf(stack.data.bucket),
  bucketAccessLogs: logicalIdOf(stack.data.accessLogBucket),
  accessLogs: logicalIdOf(stack.api.accessLogGroup),
});

/** The data bucket's policy: [logical id, its statements]. */
function dataBucketPolicy(json: Synthesized['json'], bucketId: string): [string, Record<string, unknown>[]] {
  const [policyId, policy] = resourcesOf(json, 'AWS::S3::BucketPolicy').find(([, p]) => JSON.stringify(p.Properties!['Bucket']) === JSON.stringify({ Ref: bucketId }))!;
  return [policyId, (policy.Properties!['PolicyDocument'] as { Statement: Record<string, unknown>[] }).Statement];
}

/** Substitutes deploy-time references with stand-ins so the handler's own config reader can parse them. */
function deployedEnvironment(variables: Record<string, unknown>): NodeJS.ProcessEnv {
  const standIn = (key: string) => (key.endsWith('_ROLE_ARN') ? 'arn:aws:iam::123456789012:role/deploy-time' : `deploy-time-${key.toLowerCase()}`);
  return Object.fromEntries(Object.entries(variables).map(([key, value]) => [key, typeof value === 'string' ? value : standIn(key)]));
}

/** The tenant role the stack creates (every environment binds tenants by identity). */
const tenantRoleOf = (stack: JubeRStack): string => logicalIdOf(stack.callers.tenantRole!);

describe.each(ENVIRONMENT_NAMES)('%s stack', (env) => {
  const get = () => {
    const s = synthesized[env];
    return { ...s, id: ids(s.stack), chain: s.stack.chain };
  };

  describe('private API', () => {
    it('is a PRIVATE REST API bound to the execute-api interface endpoint', () => {
      const { template, id } = get();
      template.hasResourceProperties('AWS::ApiGateway::RestApi', {
        EndpointConfiguration: { Types: ['PRIVATE'], VpcEndpointIds: [{ Ref: id.apiEndpoint }] },
      });
      // No private DNS: nothing in jube-r's VPC calls the API; callers use the {api}-{vpce} name.
      template.hasResourceProperties('AWS::EC2::VPCEndpoint', {
        VpcEndpointType: 'Interface',
        ServiceName: Match.stringLikeRegexp('execute-api$'),
        PrivateDnsEnabled: false,
      });
    });

    it("binds each tenant session to its own /t/<jube-tenant tag>/ in the resource policy, and denies everyone else and any other endpoint", () => {
      const { json, id } = get();
      const policy = json.Resources[id.api]!.Properties!['Policy'] as { Statement: Record<string, unknown>[] };
      const tenantRole = { 'Fn::GetAtt': [id.tenantRole, 'Arn'] };
      const own = ['execute-api:/*/GET/health', 'execute-api:/*/GET/packages', 'execute-api:/*/GET/help', 'execute-api:/*/POST/validate', 'execute-api:/*/*/t/${aws:PrincipalTag/jube-tenant}/*'];
      const bySid = Object.fromEntries(policy.Statement.map((st) => [st['Sid'], st]));
      expect(Object.keys(bySid)).toEqual(['AllowTenantSessionsOwnRoutes', 'DenyTenantSessionsOtherRoutes', 'DenyUntaggedSessionsTenantRoutes', 'DenyEveryoneElse', 'DenyOutsideVpcEndpoint']);
      expect(bySid['AllowTenantSessionsOwnRoutes']).toMatchObject({ Effect: 'Allow', Principal: { AWS: tenantRole }, Action: 'execute-api:Invoke' });
      expect([...(bySid['AllowTenantSessionsOwnRoutes']!['Resource'] as string[])].sort()).toEqual([...own].sort());
      expect(bySid['DenyTenantSessionsOtherRoutes']).toMatchObject({ Effect: 'Deny', Principal: { AWS: '*' }, Condition: { ArnLike: { 'aws:PrincipalArn': tenantRole } } });
      expect([...(bySid['DenyTenantSessionsOtherRoutes']!['NotResource'] as string[])].sort()).toEqual([...own].sort());
      expect(bySid['DenyUntaggedSessionsTenantRoutes']).toMatchObject({
        Effect: 'Deny', Resource: 'execute-api:/*/*/t/*/*', Condition: { Null: { [`aws:PrincipalTag/${TENANT_TAG_KEY}`]: 'true' } },
      });
      expect(bySid['DenyEveryoneElse']).toMatchObject({ Effect: 'Deny', Resource: 'execute-api:/*', Condition: { ArnNotLike: { 'aws:PrincipalArn': tenantRole } } });
      expect(bySid['DenyOutsideVpcEndpoint']).toEqual({
        Sid: 'DenyOutsideVpcEndpoint',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'execute-api:Invoke',
        Resource: 'execute-api:/*',
        Condition: { StringNotEquals: { 'aws:SourceVpce': { Ref: id.apiEndpoint } } },
      });
    });

    it('covers every route the contract has: a tenant route only under /t/<tenant>/, the others by their own verb and path', () => {
      for (const [template, route] of Object.entries(ROUTES)) {
        if (route.tenant) expect(template).toMatch(/^\/t\/\{tenant\}\//);
        else expect(template).not.toContain('{');
      }
      expect(routePath('execute', 'acme')).toBe('/t/acme/execute');
    });

    it('creates the tenant role: assumable only with one jube-tenant session tag equal to the session name, and allowed only its own routes and prefix', () => {
      const { json, id } = get();
      const role = json.Resources[id.tenantRole]!.Properties!;
      expect(role['AssumeRolePolicyDocument']).toEqual({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Action: ['sts:AssumeRole', 'sts:TagSession'],
            Principal: { AWS: expect.anything() },
            Condition: {
              'ForAllValues:StringEquals': { 'aws:TagKeys': [TENANT_TAG_KEY] },
              StringLike: { [`aws:RequestTag/${TENANT_TAG_KEY}`]: '?*' },
              StringEquals: { 'sts:RoleSessionName': `\${aws:RequestTag/${TENANT_TAG_KEY}}` },
            },
          },
        ],
      });
      expect(JSON.stringify((role['AssumeRolePolicyDocument'] as { Statement: { Principal: unknown }[] }).Statement[0]!.Principal)).toContain(':root');
      const statements = statementsOfRole(json, id.tenantRole);
      expect(statements.flatMap(actionsOf).sort()).toEqual(['execute-api:Invoke', 's3:PutObject']);
      const text = JSON.stringify(statements);
      expect(text).toContain('/t/${aws:PrincipalTag/jube-tenant}/*');
      expect(text).toContain('/${aws:PrincipalTag/jube-tenant}/*');
    });

    it('names no placeholder principal anywhere: every principal is one the stack creates, its account root, or a service', () => {
      const { json } = get();
      expect(JSON.stringify(json)).not.toContain('111111111111');
    });

    it('is named for its environment, so API Gateway\'s ApiName dimension (and the alarms) cannot match another stack\'s API', () => {
      const { json, id, config } = get();
      expect(json.Resources[id.api]!.Properties!['Name']).toBe(`jube-r-${config.envName}`);
    });

    it("serves exactly the contract's routes, each with IAM authorization and the request validator", () => {
      const { json } = get();
      const methods = resourcesOf(json, 'AWS::ApiGateway::Method');
      const pathOf = (resourceRef: unknown): string => {
        if (typeof resourceRef === 'object' && resourceRef !== null && 'Fn::GetAtt' in resourceRef) return '';
        const resource = json.Resources[(resourceRef as { Ref: string }).Ref]!.Properties!;
        return `${pathOf(resource['ParentId'])}/${String(resource['PathPart'])}`;
      };
      expect(methods.map(([, m]) => `${String(m.Properties!['HttpMethod'])} ${pathOf(m.Properties!['ResourceId'])}`).sort()).toEqual(
        Object.entries(ROUTES).map(([template, r]) => `${r.method} ${template}`).sort(),
      );
      const execute = methods.find(([, m]) => m.Properties!['HttpMethod'] === 'POST' && JSON.stringify(m.Properties!['RequestParameters'] ?? {}).includes('tenant'));
      expect(execute?.[1].Properties!['RequestParameters']).toEqual({ 'method.request.path.tenant': true });
      for (const [, method] of methods) {
        expect(method.Properties!['AuthorizationType']).toBe('AWS_IAM');
        expect(method.Properties!['RequestValidatorId']).toBeDefined();
      }
      expect(resourcesOf(json, 'AWS::ApiGateway::RequestValidator')).toHaveLength(1);
    });

    it('proxies every route to the validate function with the chain\'s integration timeout', () => {
      const { json, id, chain } = get();
      for (const [, method] of resourcesOf(json, 'AWS::ApiGateway::Method')) {
        const integration = method.Properties!['Integration'] as Record<string, unknown>;
        expect(integration['Type']).toBe('AWS_PROXY');
        expect(integration['TimeoutInMillis']).toBe(chain.apiIntegrationTimeoutMs);
        expect(JSON.stringify(integration['Uri'])).toContain(id.validateFunction);
      }
    });

    it('logs access to its own log group, naming the caller\'s ARN, its endpoint and the integration latency, and throttles the stage', () => {
      const { template, json, id, config } = get();
      template.hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: config.envName,
        TracingEnabled: true,
        AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.anyValue() },
        MethodSettings: Match.arrayWith([
          Match.objectLike({
            ThrottlingRateLimit: config.api.throttlingRateLimit,
            ThrottlingBurstLimit: config.api.throttlingBurstLimit,
            DataTraceEnabled: false,
          }),
        ]),
      });
      const stage = resourcesOf(json, 'AWS::ApiGateway::Stage')[0]![1].Properties!;
      const access = stage['AccessLogSetting'] as { DestinationArn: unknown; Format: string };
      expect(JSON.stringify(access.DestinationArn)).toContain(`"Ref":"${id.accessLogs}"`);
      expect(JSON.parse(access.Format)).toMatchObject({
        requestId: '$context.requestId',
        status: '$context.status',
        integrationLatency: '$context.integrationLatency',
        userArn: '$context.identity.userArn',
        vpceId: '$context.identity.vpceId',
      });
    });

    it('leaves API Gateway\'s account-wide CloudWatch role alone unless told to manage it', () => {
      const { json } = get();
      expect(resourcesOf(json, 'AWS::ApiGateway::Account')).toEqual([]);
    });
  });

  describe('timeout chain', () => {
    it('reaches the template: Lambda timeouts, integration timeout and the handlers\' variables nest strictly', () => {
      const { json, id, config } = get();
      const execute = json.Resources[id.executeFunction]!.Properties!;
      const validate = json.Resources[id.validateFunction]!.Properties!;
      const validateEnv = (validate['Environment'] as { Variables: Record<string, string> }).Variables;
      const executeEnv = (execute['Environment'] as { Variables: Record<string, string> }).Variables;
      const integrationMs = (resourcesOf(json, 'AWS::ApiGateway::Method')[0]![1].Properties!['Integration'] as { TimeoutInMillis: number })
        .TimeoutInMillis;

      const nested = [
        Number(validateEnv['JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX']) * 1000,
        (Number(validateEnv['JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX']) + Number(executeEnv['JUBE_R_KILL_GRACE_SECONDS'])) * 1000,
        Number(execute['Timeout']) * 1000,
        Number(validateEnv['JUBE_R_LAMBDA_CLIENT_TIMEOUT_MS']),
        Number(validate['Timeout']) * 1000,
        integrationMs,
      ];
      expect(nested.every((v, i) => i === 0 || v > nested[i - 1]!)).toBe(true);
      expect(integrationMs).toBeLessThanOrEqual(config.timeouts.integrationQuota.seconds * 1000);
      expect(Number(validateEnv['JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX'])).toBe(config.timeouts.maxScriptSeconds);
      expect(executeEnv['JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX']).toBe(validateEnv['JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX']);
      expect(executeEnv['JUBE_R_SCRIPT_TIMEOUT_SECONDS']).toBe(validateEnv['JUBE_R_SCRIPT_TIMEOUT_SECONDS']);
    });

    it('gives the validate handler variables its own config reader accepts, with the stack\'s values', () => {
      const { json, id, chain, config } = get();
      const variables = (json.Resources[id.validateFunction]!.Properties!['Environment'] as { Variables: Record<string, unknown> }).Variables;

      const service = readServiceConfig(deployedEnvironment(variables));

      expect(service).toMatchObject({
        scriptTimeoutSeconds: config.timeouts.defaultScriptSeconds,
        scriptTimeoutSecondsMax: chain.rLimitMaxSeconds,
        killGraceSeconds: chain.killGraceSeconds,
        maxInflightExecute: config.execute.maxInflight,
        maxRequestBodyBytes: config.api.maxRequestBodyBytes,
        lambdaClientTimeoutMs: chain.lambdaClientTimeoutMs,
        lambdaEndpoint: undefined,
        data: { presignTtlSeconds: config.data.presignTtlSeconds },
      });
      expect(variables['JUBE_R_EXECUTE_FUNCTION_NAME']).toEqual({ Ref: id.executeFunction });
      expect(variables['JUBE_R_DATA_BUCKET']).toEqual({ Ref: id.bucket });
      expect(variables['JUBE_R_EXECUTE_TENANCY']).toBe(config.execute.tenancy === 'per-tenant' ? 'PER_TENANT' : 'SHARED');
      expect(String(variables['JUBE_R_SANDBOX_LAYERS']).split(',')).toContain('isolated-subnets-s3-get-only');
      // The API checks the path's tenant against the caller's identity: a session of this role.
      expect(variables['JUBE_R_TENANT_BINDING']).toBe('identity');
      expect(variables['JUBE_R_CALLER_ROLE_ARN']).toEqual({ 'Fn::GetAtt': [id.tenantRole, 'Arn'] });
      expect(service.tenantBinding.mode).toBe('identity');
    });

    it('gives the execute handler variables its own config reader accepts', () => {
      const { json, id, chain } = get();
      const variables = (json.Resources[id.executeFunction]!.Properties!['Environment'] as { Variables: Record<string, unknown> }).Variables;
      const service = readServiceConfig(deployedEnvironment(variables));
      expect(service.scriptTimeoutSecondsMax).toBe(chain.rLimitMaxSeconds);
      expect(service.killGraceSeconds).toBe(chain.killGraceSeconds);
      // The one host its `url` dataframe sources may name.
      expect(variables['JUBE_R_DATA_BUCKET']).toEqual({ Ref: id.bucket });
    });

    it('marks both functions as deployed, so the execute runtime refuses its test-only switches', () => {
      const { json, id, config } = get();
      for (const fn of [id.validateFunction, id.executeFunction]) {
        const variables = (json.Resources[fn]!.Properties!['Environment'] as { Variables: Record<string, unknown> }).Variables;
        expect(variables['JUBE_R_DEPLOYMENT']).toBe(config.envName);
        expect(Object.keys(variables).filter((key) => key.startsWith('JUBE_R_TEST_'))).toEqual([]);
      }
      const execute = (json.Resources[id.executeFunction]!.Properties!['Environment'] as { Variables: Record<string, unknown> }).Variables;
      // The image turns the capsule, the sweep and the wipe on (r-image/Dockerfile); the stack never turns them off.
      expect(Object.keys(execute).filter((key) => /^JUBE_R_(CAPSULE|SWEEP|WIPE)/.test(key))).toEqual([]);
      expect(() =>
        readContainment({ ...deployedEnvironment(execute), JUBE_R_CAPSULE: 'off', JUBE_R_TEST_ESCAPED_RUNNER: 'true' }),
      ).toThrow(/test-only switch/);
    });

    it('declares the capsule\'s interposition layer and the hygiene, never the kernel layers Lambda refuses', () => {
      const { json, id, config } = get();
      const variables = (json.Resources[id.validateFunction]!.Properties!['Environment'] as { Variables: Record<string, string> }).Variables;
      const layers = variables['JUBE_R_SANDBOX_LAYERS']!.split(',');
      expect(layers).toEqual(expect.arrayContaining(['capsule-preload', 'capsule-dispatch-table', 'capsule-plt-sealed', 'environment-sweep', 'writable-wipe', 'ipc-cleanup', 'no-credentials-inside']));
      expect(layers).not.toContain('capsule-landlock');
      expect(layers).not.toContain('capsule-seccomp');
      expect(layers.includes('lambda-per-tenant-isolation')).toBe(config.execute.tenancy === 'per-tenant');
      // The exit-based "fresh environment" is gone: an exit only resets the environment in the same microVM.
      expect(layers).not.toContain('fresh-environment-per-run');
      const execute = (json.Resources[id.executeFunction]!.Properties!['Environment'] as { Variables: Record<string, unknown> }).Variables;
      expect(Object.keys(execute).filter((key) => key.includes('FRESH_ENVIRONMENT'))).toEqual([]);
    });

    it('tells the validate handler the isolation mode and tenancy, which its config reader and /health report', () => {
      const { json, id, config } = get();
      const variables = (json.Resources[id.validateFunction]!.Properties!['Environment'] as { Variables: Record<string, unknown> }).Variables;
      expect(variables['JUBE_R_ISOLATION']).toBe(config.execute.isolation);
      expect(readServiceConfig(deployedEnvironment(variables)).isolation).toEqual({
        mode: config.execute.isolation,
        tenancy: config.execute.tenancy === 'per-tenant' ? 'PER_TENANT' : 'SHARED',
        sharedTenancyReason: config.execute.tenancy === 'per-tenant' ? undefined : config.execute.tenancy.reason,
      });
    });
  });

  describe('execute function', () => {
    it('is the r-image container with the configured architecture, memory, storage and reserved concurrency', () => {
      const { json, id, config, chain } = get();
      const props = json.Resources[id.executeFunction]!.Properties!;
      expect(props).toMatchObject({
        PackageType: 'Image',
        Architectures: [config.execute.architecture],
        MemorySize: config.execute.memoryMiB,
        EphemeralStorage: { Size: config.execute.ephemeralStorageMiB },
        ReservedConcurrentExecutions: config.execute.maxInflight,
        Timeout: chain.executeLambdaTimeoutSeconds,
        LoggingConfig: { LogGroup: { Ref: id.executeLogGroup } },
      });
    });

    it('uses PER_TENANT tenancy exactly when configured', () => {
      const { json, id, config } = get();
      const tenancy = json.Resources[id.executeFunction]!.Properties!['TenancyConfig'];
      if (config.execute.tenancy === 'per-tenant') expect(tenancy).toEqual({ TenantIsolationMode: 'PER_TENANT' });
      else expect(tenancy).toBeUndefined();
    });

    it('runs in isolated subnets behind a security group whose only egress is HTTPS to the S3 prefix list', () => {
      const { json, id, config } = get();
      const vpcConfig = json.Resources[id.executeFunction]!.Properties!['VpcConfig'] as { SecurityGroupIds: unknown[]; SubnetIds: unknown[] };
      expect(vpcConfig.SecurityGroupIds).toEqual([{ 'Fn::GetAtt': [id.executeSecurityGroup, 'GroupId'] }]);
      const group = json.Resources[id.executeSecurityGroup]!.Properties!;
      expect(group['SecurityGroupEgress']).toEqual([
        expect.objectContaining({ IpProtocol: 'tcp', FromPort: 443, ToPort: 443, DestinationPrefixListId: config.s3PrefixListId }),
      ]);
      expect(group['SecurityGroupIngress']).toBeUndefined();
      // A separate egress resource would leave EC2's default allow-all rule in place.
      expect(resourcesOf(json, 'AWS::EC2::SecurityGroupEgress')).toEqual([]);
      expect(resourcesOf(json, 'AWS::EC2::SecurityGroupIngress').filter(([, r]) => JSON.stringify(r).includes(id.executeSecurityGroup))).toEqual([]);
      if (config.vpc.kind === 'existing') expect(vpcConfig.SubnetIds).toEqual(config.vpc.isolatedSubnetIds);
      else expect(vpcConfig.SubnetIds).toHaveLength(config.vpc.maxAzs);
    });

    it('has no route to the internet: no NAT, no internet gateway, no public subnet', () => {
      const { json } = get();
      for (const type of ['AWS::EC2::NatGateway', 'AWS::EC2::InternetGateway', 'AWS::EC2::EgressOnlyInternetGateway', 'AWS::EC2::VPCGatewayAttachment']) {
        expect(resourcesOf(json, type)).toEqual([]);
      }
      for (const [, subnet] of resourcesOf(json, 'AWS::EC2::Subnet')) expect(subnet.Properties!['MapPublicIpOnLaunch']).toBe(false);
      for (const [, route] of resourcesOf(json, 'AWS::EC2::Route')) expect(route.Properties!['GatewayId']).toBeUndefined();
    });

    it('reaches S3 through a gateway endpoint that only lets it read the data bucket\'s objects', () => {
      const { json, id } = get();
      const endpoint = json.Resources[id.s3Endpoint]!.Properties!;
      expect(endpoint['VpcEndpointType']).toBe('Gateway');
      expect((endpoint['PolicyDocument'] as { Statement: unknown[] }).Statement).toEqual([
        {
          Sid: 'ReadDataBucketObjectsOnly',
          Effect: 'Allow',
          Principal: { AWS: '*' },
          Action: 's3:GetObject',
          Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [id.bucket, 'Arn'] }, '/*']] },
        },
      ]);
    });

    it('has a role that can write its own log group and manage its VPC ENIs, and nothing else', () => {
      const { json, id } = get();
      const role = json.Resources[id.executeRole]!.Properties!;
      expect(role['ManagedPolicyArns']).toBeUndefined();
      expect(role['AssumeRolePolicyDocument']).toEqual({
        Version: '2012-10-17',
        Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }],
      });
      const statements = statementsOfRole(json, id.executeRole);
      const actions = statements.flatMap(actionsOf).sort();
      expect(actions).toEqual(
        [
          'logs:CreateLogStream',
          'logs:PutLogEvents',
          'ec2:CreateNetworkInterface',
          'ec2:DeleteNetworkInterface',
          'ec2:AssignPrivateIpAddresses',
          'ec2:UnassignPrivateIpAddresses',
          'ec2:DescribeNetworkInterfaces',
          'ec2:DescribeSubnets',
          'xray:PutTraceSegments',
          'xray:PutTelemetryRecords',
        ].sort(),
      );
      for (const statement of statements) {
        expect(statement.Effect).toBe('Allow');
        const resource = JSON.stringify(statement.Resource);
        if (actionsOf(statement).some((a) => a.startsWith('logs:'))) expect(statement.Resource).toEqual({ 'Fn::GetAtt': [id.executeLogGroup, 'Arn'] });
        else if (actionsOf(statement).every((a) => a.startsWith('ec2:Describe') || a.startsWith('xray:'))) expect(statement.Resource).toBe('*');
        else expect(resource).toMatch(/:network-interface\/\*|:subnet\/|:security-group\//);
      }
    });

    it('has an execute role whose only services are the platform\'s own: logs, traces and its ENIs (no managed policy, no S3, STS, Lambda)', () => {
      const { json, id } = get();
      const template = Template.fromJSON(json as unknown as Record<string, unknown>);
      template.resourcePropertiesCountIs('AWS::IAM::ManagedPolicy', { Roles: Match.arrayWith([{ Ref: id.executeRole }]) }, 0);
      template.hasResourceProperties('AWS::IAM::Role', { Description: Match.stringLikeRegexp('jube-r execute'), ManagedPolicyArns: Match.absent() });
      const services = new Set(statementsOfRole(json, id.executeRole).flatMap(actionsOf).map((action) => action.split(':')[0]));
      expect([...services].sort()).toEqual(['ec2', 'logs', 'xray']);
    });

    it('can be invoked by the validate role only', () => {
      const { json, id } = get();
      const invokers = allRoleStatements(json).filter(({ statement }) =>
        actionsOf(statement).some((a) => a === 'lambda:InvokeFunction' || a === 'lambda:*' || a === '*'),
      );
      expect(invokers).toEqual([
        {
          role: id.validateRole,
          statement: { Sid: 'InvokeExecuteFunction', Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [id.executeFunction, 'Arn'] } },
        },
      ]);
      const resourcePermissions = resourcesOf(json, 'AWS::Lambda::Permission').filter(([, p]) =>
        JSON.stringify(p.Properties!['FunctionName']).includes(id.executeFunction),
      );
      expect(resourcePermissions).toEqual([]);
      // Every resource-based permission that exists is API Gateway's, for the validate function.
      for (const [, permission] of resourcesOf(json, 'AWS::Lambda::Permission')) {
        expect(permission.Properties).toMatchObject({ Principal: 'apigateway.amazonaws.com', FunctionName: { 'Fn::GetAtt': [id.validateFunction, 'Arn'] } });
      }
    });

    it('writes JSON logs, is actively traced, and limits R\'s address space to its memory minus the handler\'s reserve', () => {
      const { json, id, config } = get();
      const props = json.Resources[id.executeFunction]!.Properties!;
      expect(props).toMatchObject({ LoggingConfig: { LogFormat: 'JSON' }, TracingConfig: { Mode: 'Active' } });
      const variables = (props['Environment'] as { Variables: Record<string, string> }).Variables;
      expect(Number(variables['JUBE_R_RLIMIT_AS_BYTES'])).toBe(rAddressSpaceLimitBytes(config.execute.memoryMiB));
      expect(Number(variables['JUBE_R_RLIMIT_AS_BYTES'])).toBeLessThan(config.execute.memoryMiB * 1024 * 1024);
    });

    it('builds its image for the function\'s architecture (dev), or runs the prebuilt one by digest (staging, prod)', () => {
      const { outdir, stack, config, json, id } = get();
      const assets = JSON.parse(readFileSync(join(outdir, `${stack.artifactId}.assets.json`), 'utf8')) as {
        dockerImages: Record<string, { source: { platform?: string } }>;
      };
      const images = Object.values(assets.dockerImages);
      if (config.executeImageUri !== undefined) {
        expect(images).toEqual([]);
        expect(JSON.stringify((json.Resources[id.executeFunction]!.Properties!['Code'] as { ImageUri: unknown }).ImageUri)).toContain(FIXTURE_IMAGE_URI.split('@')[1]);
        return;
      }
      expect(images[0]?.source.platform).toBe(config.execute.architecture === 'arm64' ? 'linux/arm64' : 'linux/amd64');
    });

    it('carries the image asset metadata SAM reads (aws:asset:path, aws:asset:dockerfile-path, aws:asset:property) where it builds one', () => {
      const { json, id, outdir, config } = get();
      if (config.executeImageUri !== undefined) return;
      const metadata = json.Resources[id.executeFunction]!.Metadata!;
      expect(metadata).toMatchObject({
        'aws:asset:path': expect.stringMatching(/^asset\./),
        'aws:asset:dockerfile-path': 'Dockerfile',
        'aws:asset:property': 'Code.ImageUri',
      });
      expect(existsSync(join(outdir, String(metadata['aws:asset:path']), 'Dockerfile'))).toBe(true);
    });
  });

  describe('validate function', () => {
    it('is Node 24 on the configured architecture with the chain\'s timeout, JSON logs to its own log group and active tracing', () => {
      const { json, id, chain, config } = get();
      expect(json.Resources[id.validateFunction]!.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Handler: 'index.handler',
        Architectures: [config.validate.architecture],
        Timeout: chain.validateLambdaTimeoutSeconds,
        MemorySize: config.validate.memoryMiB,
        LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: id.validateLogGroup } },
        TracingConfig: { Mode: 'Active' },
      });
    });

    it('bundles the pinned AWS SDK (one that sends TenantId) instead of relying on the runtime\'s own', () => {
      // Prepare
      const { json, id, outdir } = get();
      const pinned = (JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
        .dependencies['@aws-sdk/client-lambda']!;
      const bundle = readFileSync(join(outdir, String(json.Resources[id.validateFunction]!.Metadata!['aws:asset:path']), 'index.mjs'), 'utf8');

      // Assess: the client's own package.json (its version) and its TenantId header binding are in the bundle, and no
      // module is left to be imported from @aws-sdk/* at run time.
      expect(bundle).toContain(`name:"@aws-sdk/client-lambda",version:"${pinned}"`);
      expect(bundle).toContain('X-Amz-Tenant-Id');
      expect(bundle).not.toMatch(/\bfrom\s*"@aws-sdk\/|\bimport\s*\(\s*"@aws-sdk\//);
    });

    it('carries the asset metadata SAM reads, pointing at an ESM bundle with its data files beside it', () => {
      const { json, id, outdir } = get();
      const metadata = json.Resources[id.validateFunction]!.Metadata!;
      expect(metadata).toMatchObject({ 'aws:asset:path': expect.stringMatching(/^asset\./), 'aws:asset:property': 'Code', 'aws:asset:is-bundled': true });
      const files = readdirSync(join(outdir, String(metadata['aws:asset:path'])), { recursive: true, encoding: 'utf8' });
      expect(files).toEqual(expect.arrayContaining(['index.mjs', ...API_BUNDLE_FILES.map((f) => f.split('/').at(-1)!), 'manifest.json', join('help', 'stats.json')]));
    });

    it('carries the image\'s package facts, every file of them, byte for byte, and not the host\'s manifest', () => {
      const { json, id, outdir } = get();
      const bundle = join(outdir, String(json.Resources[id.validateFunction]!.Metadata!['aws:asset:path']));
      const facts = readPackageFacts(fixturePackageFacts());
      for (const file of facts.files) expect(readFileSync(join(bundle, file), 'utf8'), file).toBe(readFileSync(join(facts.directory, file), 'utf8'));
      expect(JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8')).rVersion).toBe(FIXTURE_IMAGE_R_VERSION);
    });

    it('has a role limited to its log group, invoking the execute function, reading data objects and keeping session snapshots', () => {
      const { json, id } = get();
      expect(json.Resources[id.validateRole]!.Properties!['ManagedPolicyArns']).toBeUndefined();
      expect(statementsOfRole(json, id.validateRole).flatMap(actionsOf).sort()).toEqual(
        ['logs:CreateLogStream', 'logs:PutLogEvents', 'lambda:InvokeFunction', 's3:GetObject', 's3:GetObject', 's3:PutObject', 's3:DeleteObject', 'xray:PutTraceSegments', 'xray:PutTelemetryRecords'].sort(),
      );
    });
  });

  it('leaves a created VPC\'s default security group without rules', () => {
    const { json, config, stack } = get();
    const restrictions = resourcesOf(json, 'Custom::VpcRestrictDefaultSG');
    if (config.vpc.kind === 'existing') {
      expect(restrictions).toEqual([]);
      return;
    }
    expect(restrictions).toHaveLength(1);
    expect(restrictions[0]![1].Properties!['DefaultSecurityGroupId']).toEqual({ 'Fn::GetAtt': [logicalIdOf(stack.network.vpc as never), 'DefaultSecurityGroup'] });
  });

  describe('DNS firewall', () => {
    const firewall = () => {
      const { json, stack } = get();
      const dns = stack.network.dnsFirewall!;
      const group = json.Resources[logicalIdOf(dns.ruleGroup)]!.Properties!['FirewallRules'] as Record<string, unknown>[];
      const domainsOf = (rule: Record<string, unknown>) =>
        json.Resources[(rule['FirewallDomainListId'] as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]]!.Properties!['Domains'];
      return { dns, group, domainsOf };
    };

    it('answers only the data bucket\'s S3 name in the deployment\'s region, and NXDOMAIN for every other name', () => {
      const { id, config } = get();
      const { group, domainsOf } = firewall();
      const allow = group.find((r) => r['Action'] === 'ALLOW')!;
      const block = group.find((r) => r['Action'] === 'BLOCK')!;
      expect(group).toHaveLength(2);
      expect(domainsOf(allow)).toEqual([
        { 'Fn::Join': ['', [{ Ref: id.bucket }, `.s3.${config.region}.`, { Ref: 'AWS::URLSuffix' }]] },
      ]);
      expect(allow).toMatchObject({ Priority: ALLOW_RULE_PRIORITY, FirewallDomainRedirectionAction: 'TRUST_REDIRECTION_DOMAIN' });
      expect(domainsOf(block)).toEqual(['*']);
      expect(block).toMatchObject({ Priority: BLOCK_RULE_PRIORITY, BlockResponse: 'NXDOMAIN' });
      expect(ALLOW_RULE_PRIORITY).toBeLessThan(BLOCK_RULE_PRIORITY);
    });

    it('is associated with the execute function\'s VPC when the VPC is jube-r\'s, and /health says so', () => {
      const { json, id, config, stack } = get();
      const associations = resourcesOf(json, 'AWS::Route53Resolver::FirewallRuleGroupAssociation');
      const variables = (json.Resources[id.validateFunction]!.Properties!['Environment'] as { Variables: Record<string, string> }).Variables;
      expect(dnsFirewallAssociated(config)).toBe(true);
      expect(associations).toHaveLength(1);
      const association = associations[0]![1].Properties!;
      expect(association['FirewallRuleGroupId']).toEqual({ 'Fn::GetAtt': [logicalIdOf(stack.network.dnsFirewall!.ruleGroup), 'Id'] });
      expect(association['VpcId']).toEqual(config.vpc.kind === 'existing' ? config.vpc.vpcId : { Ref: logicalIdOf(stack.network.vpc as never) });
      expect(variables['JUBE_R_SANDBOX_LAYERS']!.split(',')).toContain('dns-firewall');
    });
  });

  describe('observability', () => {
    it('alarms on execute throttles, errors, duration p99 near its timeout and concurrency at its reservation', () => {
      const { template, id, config, chain } = get();
      const executeAlarm = (MetricName: string, Threshold: number, extra: Record<string, unknown> = {}) =>
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/Lambda',
          MetricName,
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: id.executeFunction } }],
          Threshold,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
          ...extra,
        });
      executeAlarm('Throttles', 1, { Statistic: 'Sum' });
      executeAlarm('Errors', 1, { Statistic: 'Sum' });
      executeAlarm('Duration', Math.floor(chain.executeLambdaTimeoutSeconds * 1000 * 0.9), { ExtendedStatistic: 'p99' });
      executeAlarm('ConcurrentExecutions', config.execute.maxInflight, { Statistic: 'Maximum' });
    });

    it('alarms on validate errors and on the API\'s 5XX, 4XX rate and latency p99 near the integration timeout', () => {
      const { template, id, chain, stack } = get();
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: id.validateFunction } }],
        Threshold: 1,
      });
      const apiDimensions = Match.arrayWith([{ Name: 'Stage', Value: { Ref: logicalIdOf(stack.api.api.deploymentStage) } }]);
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'AWS/ApiGateway', MetricName: '5XXError', Statistic: 'Sum', Threshold: 1, Dimensions: apiDimensions });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'AWS/ApiGateway', MetricName: '4XXError', Statistic: 'Average', Threshold: 0.25, EvaluationPeriods: 3, Dimensions: apiDimensions });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/ApiGateway',
        MetricName: 'Latency',
        ExtendedStatistic: 'p99',
        Threshold: Math.floor(chain.apiIntegrationTimeoutMs * 0.9),
        Dimensions: apiDimensions,
      });
    });

    it('counts dataframe staging failures, init errors of both functions and DNS firewall blocks from their logs, and alarms on the first', () => {
      const { json, id, config, stack } = get();
      const queryLogs = logicalIdOf(stack.network.dnsFirewall!.queryLogGroup!);
      const filters = resourcesOf(json, 'AWS::Logs::MetricFilter').map(([, f]) => f.Properties);
      const counted = (logGroup: string, pattern: string, metric: string) => ({
        LogGroupName: { Ref: logGroup },
        FilterPattern: pattern,
        MetricTransformations: [{ MetricNamespace: metricNamespace(config.stackName), MetricName: metric, MetricValue: '1' }],
      });
      expect(filters).toEqual(
        expect.arrayContaining([
          counted(id.executeLogGroup, `{ $.message = "${DATAFRAME_STAGING_FAILED}" }`, DATAFRAME_STAGING_FAILURES_METRIC),
          counted(id.executeLogGroup, INIT_ERROR_FILTER, INIT_ERRORS_METRIC.execute),
          counted(id.validateLogGroup, INIT_ERROR_FILTER, INIT_ERRORS_METRIC.validate),
          counted(queryLogs, DNS_FIREWALL_BLOCK_FILTER, DNS_FIREWALL_BLOCKS_METRIC),
        ]),
      );
      expect(filters).toHaveLength(4);
      for (const metric of [DATAFRAME_STAGING_FAILURES_METRIC, INIT_ERRORS_METRIC.execute, INIT_ERRORS_METRIC.validate, DNS_FIREWALL_BLOCKS_METRIC]) {
        get().template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: metricNamespace(config.stackName),
          MetricName: metric,
          Statistic: 'Sum',
          Threshold: 1,
          TreatMissingData: 'notBreaching',
        });
      }
      // The init-error pattern reads Lambda's own report: a non-success status, or an init retried inside an invocation.
      expect(INIT_ERROR_FILTER).toContain('$.type = "platform.initReport"');
      expect(INIT_ERROR_FILTER).toContain('$.record.phase = "invoke"');
    });

    it("alarms on the warm start's refill holding environments after the answer (PostRuntimeExtensionsDuration p99)", () => {
      const { template, id } = get();
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'PostRuntimeExtensionsDuration',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: id.executeFunction } }],
        ExtendedStatistic: 'p99',
        Threshold: POST_RUNTIME_EXTENSIONS_P99_MS,
      });
    });

    it("logs the created VPC's Resolver queries to a log group of its own, with the stack's retention", () => {
      const { json, config, stack } = get();
      const [configId, logging] = resourcesOf(json, 'AWS::Route53Resolver::ResolverQueryLoggingConfig')[0]!;
      expect(logging.Properties!['DestinationArn']).toEqual({ 'Fn::GetAtt': [logicalIdOf(stack.network.dnsFirewall!.queryLogGroup!), 'Arn'] });
      expect(resourcesOf(json, 'AWS::Route53Resolver::ResolverQueryLoggingConfigAssociation').map(([, a]) => a.Properties)).toEqual([
        { ResolverQueryLogConfigId: { 'Fn::GetAtt': [configId, 'Id'] }, ResourceId: { Ref: logicalIdOf(stack.network.vpc as never) } },
      ]);
      expect(json.Resources[logicalIdOf(stack.network.dnsFirewall!.queryLogGroup!)]!.Properties!['RetentionInDays']).toBe(config.logRetentionDays);
    });

    it('has no alarm actions without an SNS topic, and one dashboard showing every alarm', () => {
      const { json } = get();
      const alarms = resourcesOf(json, 'AWS::CloudWatch::Alarm');
      expect(alarms).toHaveLength(13);
      for (const [, alarm] of alarms) {
        expect(alarm.Properties!['AlarmActions']).toBeUndefined();
        expect(alarm.Properties!['OKActions']).toBeUndefined();
      }
      const dashboards = resourcesOf(json, 'AWS::CloudWatch::Dashboard');
      expect(dashboards).toHaveLength(1);
      const body = JSON.stringify(dashboards[0]![1].Properties!['DashboardBody']);
      for (const [alarmId] of alarms) expect(body).toContain(alarmId);
    });
  });

  describe('outputs', () => {
    it('name the VPC, its subnets and endpoints, and the URLs to reach the private API from another network', () => {
      const { json, id, config } = get();
      const outputs = (json as unknown as { Outputs: Record<string, { Value: unknown }> }).Outputs;
      // No ApiUrl without a caller endpoint: the plain name resolves only through a private-DNS endpoint of the caller's.
      expect(Object.keys(outputs).sort()).toEqual(
        [
          'ApiId',
          'ApiVpcEndpointUrl',
          'ApiVpcEndpointId',
          'VpcId',
          'IsolatedSubnetIds',
          'S3GatewayEndpointId',
          'ExecuteSecurityGroupId',
          'DnsFirewallRuleGroupId',
          'DataBucketName',
          'CallerRoleArn',
          'DashboardName',
          'OrchestratorMinimumHttpTimeoutMs',
        ].sort(),
      );
      expect(outputs['CallerRoleArn']!.Value).toEqual({ 'Fn::GetAtt': [id.tenantRole, 'Arn'] });
      expect(outputs['ApiVpcEndpointId']!.Value).toEqual({ Ref: id.apiEndpoint });
      if (config.vpc.kind === 'existing') {
        expect(outputs['VpcId']!.Value).toBe(config.vpc.vpcId);
        expect(outputs['IsolatedSubnetIds']!.Value).toBe(config.vpc.isolatedSubnetIds.join(','));
      }
      const vpceUrl = JSON.stringify(outputs['ApiVpcEndpointUrl']!.Value);
      expect(vpceUrl).toContain(id.api);
      expect(vpceUrl).toContain(id.apiEndpoint);
      expect(vpceUrl).toContain(`.execute-api.${config.region}.`);
      expect(vpceUrl).toContain(`/${config.envName}/`);
    });
  });

  describe('data bucket', () => {
    it('is encrypted, private, TLS-only, logged, and expires objects after the configured days', () => {
      const { json, id, config } = get();
      const bucket = json.Resources[id.bucket]!;
      expect(bucket.Properties).toMatchObject({
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        LoggingConfiguration: { DestinationBucketName: { Ref: id.bucketAccessLogs } },
        LifecycleConfiguration: { Rules: expect.arrayContaining([expect.objectContaining({ ExpirationInDays: config.data.expireAfterDays, Status: 'Enabled' })]) },
      });
      const policy = resourcesOf(json, 'AWS::S3::BucketPolicy').find(([, p]) => JSON.stringify(p.Properties!['Bucket']) === JSON.stringify({ Ref: id.bucket }));
      expect(JSON.stringify(policy?.[1].Properties!['PolicyDocument'])).toContain('"aws:SecureTransport":"false"');
    });

    it('is retained or destroyed with the stack as the environment says', () => {
      const { json, id, config } = get();
      expect(json.Resources[id.bucket]!.DeletionPolicy).toBe(config.removalPolicy === 'retain' ? 'Retain' : 'Delete');
    });

    it('can be read by the validate role only; the tenant role may only put under its own tenant prefix; snapshots are the validate role\'s alone', () => {
      const { json, id, stack } = get();
      const s3Grants = allRoleStatements(json).filter(({ statement }) => actionsOf(statement).some((a) => a.startsWith('s3:') || a === '*'));
      const objects = (bucket: string, pattern: string) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, pattern]] });
      const sessions = logicalIdOf(stack.sessions.bucket as never);
      expect(s3Grants).toEqual([
        { role: id.tenantRole, statement: { Sid: 'PutOwnTenantTables', Effect: 'Allow', Action: 's3:PutObject', Resource: objects(id.bucket, '/${aws:PrincipalTag/jube-tenant}/*') } },
        { role: id.validateRole, statement: { Sid: 'ReadTenantDataObjects', Effect: 'Allow', Action: 's3:GetObject', Resource: objects(id.bucket, '/*') } },
        { role: id.validateRole, statement: { Sid: 'SessionSnapshots', Effect: 'Allow', Action: ['s3:DeleteObject', 's3:GetObject', 's3:PutObject'], Resource: objects(sessions, '/*') } },
      ]);
      const [, policy] = dataBucketPolicy(json, sessions);
      expect(policy.filter((st) => st['Effect'] === 'Allow')).toEqual([]);
      expect(policy.find((st) => st['Sid'] === 'DenySessionsToAllButApi')?.['Condition']).toEqual({ ArnNotLike: { 'aws:PrincipalArn': [{ 'Fn::GetAtt': [id.validateRole, 'Arn'] }] } });
      const bucket = json.Resources[sessions]!.Properties!;
      expect(bucket['LifecycleConfiguration']).toEqual({ Rules: [{ Id: 'expire-idle-sessions', ExpirationInDays: 2, Status: 'Enabled' }] });
    });

    it("lets each tenant session put objects under its own jube-tenant prefix only, over TLS and with SSE-S3; every other allow is nobody's", () => {
      const { json, id } = get();
      const [, statements] = dataBucketPolicy(json, id.bucket);
      const objects = (pattern: string) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [id.bucket, 'Arn'] }, pattern]] });
      const writer = { AWS: { 'Fn::GetAtt': [id.tenantRole, 'Arn'] } };
      const own = objects('/${aws:PrincipalTag/jube-tenant}/*');
      expect(statements.filter((st) => st['Effect'] === 'Allow')).toEqual([
        {
          Sid: 'TenantSessionPutsTenantTables',
          Effect: 'Allow',
          Principal: writer,
          Action: 's3:PutObject',
          Resource: own,
          Condition: { Bool: { 'aws:SecureTransport': 'true' }, StringEquals: { 's3:x-amz-server-side-encryption': WRITER_SSE } },
        },
      ]);
      const denies = Object.fromEntries(statements.filter((st) => st['Sid']).filter((st) => st['Effect'] === 'Deny').map((st) => [st['Sid'], st]));
      expect(denies['TenantSessionDoesNothingElse']).toMatchObject({ Principal: writer, NotAction: 's3:PutObject', Resource: [{ 'Fn::GetAtt': [id.bucket, 'Arn'] }, objects('/*')] });
      expect(denies['TenantSessionPutsEncryptedOnly']).toMatchObject({ Principal: writer, Action: 's3:PutObject', Condition: { StringNotEquals: { 's3:x-amz-server-side-encryption': WRITER_SSE } } });
      expect(denies['TenantSessionPutsUnderTenantsOnly']).toMatchObject({ Principal: writer, Action: 's3:PutObject', NotResource: own });
      expect(denies['TenantSessionPutsOnlyWhenTagged']).toMatchObject({ Principal: writer, Action: 's3:PutObject', Condition: { Null: { [`aws:PrincipalTag/${TENANT_TAG_KEY}`]: 'true' } } });
      // Everyone else: TLS only (enforceSSL).
      const others = statements.filter((st) => !st['Sid']);
      expect(others.map((st) => st['Effect'])).toEqual(['Deny', 'Deny']);
      expect(JSON.stringify(others)).toContain('"aws:SecureTransport":"false"');
      expect(JSON.stringify(others)).toContain('"s3:TlsVersion":1.2');
    });

    it('denies every data action to every principal but the validate role and the writers, administrators included', () => {
      const { json, id } = get();
      const [, statements] = dataBucketPolicy(json, id.bucket);
      const deny = statements.find((st) => st['Sid'] === 'DenyDataToAllButServiceAndWriters');
      expect(deny).toEqual({
        Sid: 'DenyDataToAllButServiceAndWriters',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: [...DATA_ACTIONS].sort(),
        Resource: [{ 'Fn::GetAtt': [id.bucket, 'Arn'] }, { 'Fn::Join': ['', [{ 'Fn::GetAtt': [id.bucket, 'Arn'] }, '/*']] }],
        Condition: { ArnNotLike: { 'aws:PrincipalArn': [{ 'Fn::GetAtt': [id.validateRole, 'Arn'] }, { 'Fn::GetAtt': [id.tenantRole, 'Arn'] }] } },
      });
      // The bucket's configuration (its policy, lifecycle) stays the account's: only data actions are named.
      expect(DATA_ACTIONS.some((a) => /Policy|Lifecycle|Configuration|\*$/.test(a) && !a.endsWith('Object*') && !a.endsWith('Bucket*'))).toBe(false);
    });

    it("serves presigned GETs only through the execute function's S3 gateway endpoint", () => {
      const { json, id } = get();
      const [, statements] = dataBucketPolicy(json, id.bucket);
      expect(statements.find((st) => st['Sid'] === 'DenyPresignedOutsideEndpoint')).toEqual({
        Sid: 'DenyPresignedOutsideEndpoint',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 's3:GetObject',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [id.bucket, 'Arn'] }, '/*']] },
        Condition: { StringEquals: { 's3:authType': 'REST-QUERY-STRING' }, StringNotEquals: { 'aws:SourceVpce': { Ref: id.s3Endpoint } } },
      });
    });
  });

  it("sets every log group's retention from the config, the API's execution log and CDK's providers' included", () => {
    const { json, config, stack } = get();
    const groups = resourcesOf(json, 'AWS::Logs::LogGroup');
    for (const [, group] of groups) expect(group.Properties!['RetentionInDays']).toBe(config.logRetentionDays);
    // API Gateway's execution log, by the name API Gateway writes to, made before the stage.
    const execution = json.Resources[logicalIdOf(stack.api.executionLogGroup)]!;
    expect(execution.Properties!['LogGroupName']).toEqual({ 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: logicalIdOf(stack.api.api) }, `/${config.envName}`]] });
    const stage = resourcesOf(json, 'AWS::ApiGateway::Stage')[0]!;
    expect((stage[1] as { DependsOn?: string[] }).DependsOn).toContain(logicalIdOf(stack.api.executionLogGroup));
    // Every Lambda function, CDK's own custom-resource providers included, logs to one of those groups.
    const groupIds = new Set(groups.map(([groupId]) => groupId));
    const functions = resourcesOf(json, 'AWS::Lambda::Function');
    expect(functions.length).toBe(config.vpc.kind === 'create' ? 3 : 2);
    for (const [fnId, fn] of functions) {
      const logGroup = (fn.Properties!['LoggingConfig'] as { LogGroup?: { Ref: string } } | undefined)?.LogGroup;
      expect(groupIds.has(logGroup?.Ref ?? ''), fnId).toBe(true);
    }
  });
});

describe('SAM local environment file (events/sam-env-vars.json)', () => {
  it('overrides only variables the dev template declares, on the dev validate function, naming the dev execute function', () => {
    // Prepare
    const { json, stack } = synthesized.dev;
    const file = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'events/sam-env-vars.json'), 'utf8')) as Record<string, Record<string, string>>;
    const validateId = logicalIdOf(stack.apiFunction.function);

    // Assess: SAM ignores overrides of undeclared variables, and logical ids are what SAM names functions by.
    expect(Object.keys(file)).toEqual([validateId]);
    const declared = (json.Resources[validateId]!.Properties!['Environment'] as { Variables: Record<string, unknown> }).Variables;
    for (const key of Object.keys(file[validateId]!)) expect(declared, key).toHaveProperty(key);
    expect(file[validateId]!['JUBE_R_EXECUTE_FUNCTION_NAME']).toBe(logicalIdOf(stack.execute.function));
  });

  it('docs/local-sam.md names the functions by the logical ids the template has', () => {
    const { stack } = synthesized.dev;
    const doc = readFileSync(join(REPOSITORY_ROOT, 'docs/local-sam.md'), 'utf8');
    const named = new Set(doc.match(/\b(?:Validate|Execute)Function[0-9A-F]{8}\b/g));
    expect(named).toEqual(new Set([logicalIdOf(stack.apiFunction.function), logicalIdOf(stack.execute.function)]));
  });
});

describe('per-environment differences', () => {
  const executeOf = (env: EnvironmentName) => {
    const s = synthesized[env];
    return s.json.Resources[logicalIdOf(s.stack.execute.function)]!.Properties!;
  };

  it.each([
    ['dev', { ReservedConcurrentExecutions: 2, MemorySize: 2048, Timeout: 20, tenancy: 'PER_TENANT' }],
    ['staging', { ReservedConcurrentExecutions: 5, MemorySize: 3008, Timeout: 20, tenancy: 'PER_TENANT' }],
    ['prod', { ReservedConcurrentExecutions: 20, MemorySize: 4096, Timeout: 127, tenancy: 'PER_TENANT' }],
  ] as const)('%s sizes the execute function as configured', (env, expected) => {
    const props = executeOf(env);
    expect(props['ReservedConcurrentExecutions']).toBe(expected.ReservedConcurrentExecutions);
    expect(props['MemorySize']).toBe(expected.MemorySize);
    expect(props['Timeout']).toBe(expected.Timeout);
    expect((props['TenancyConfig'] as { TenantIsolationMode?: string } | undefined)?.TenantIsolationMode).toBe(expected.tenancy);
  });

  it.each(ENVIRONMENT_NAMES)('%s synthesizes its execute function with PER_TENANT tenant isolation', (env) => {
    const template = Template.fromJSON(synthesized[env].json as unknown as Record<string, unknown>);
    template.hasResourceProperties('AWS::Lambda::Function', { PackageType: 'Image', TenancyConfig: { TenantIsolationMode: 'PER_TENANT' } });
  });

  it('every environment keys calls by session: `run` (a cold start and a new tenant environment per call) is no environment\'s default', () => {
    for (const env of ENVIRONMENT_NAMES) expect(synthesized[env].config.execute.isolation, env).toBe('session');
  });

  it('only prod needs (and states) a raised integration quota; its integration timeout is above 29 s', () => {
    expect(synthesized.dev.stack.chain.apiIntegrationTimeoutMs).toBeLessThanOrEqual(29_000);
    expect(synthesized.staging.stack.chain.apiIntegrationTimeoutMs).toBeLessThanOrEqual(29_000);
    expect(synthesized.prod.stack.chain.apiIntegrationTimeoutMs).toBeGreaterThan(29_000);
    expect(synthesized.prod.config.timeouts.integrationQuota.raisedBy).toBeDefined();
  });

  it('every environment creates a VPC of its own (with flow logs)', () => {
    for (const env of ENVIRONMENT_NAMES) {
      expect(resourcesOf(synthesized[env].json, 'AWS::EC2::VPC'), env).toHaveLength(1);
      expect(resourcesOf(synthesized[env].json, 'AWS::EC2::FlowLog'), env).toHaveLength(1);
    }
  });

  it('dev destroys its data with the stack; staging and prod retain it', () => {
    const policyOf = (env: EnvironmentName) => synthesized[env].json.Resources[logicalIdOf(synthesized[env].stack.data.bucket)]!.DeletionPolicy;
    expect([policyOf('dev'), policyOf('staging'), policyOf('prod')]).toEqual(['Delete', 'Retain', 'Retain']);
  });

  it('docs/deploying.md states the timeout chain each environment derives', () => {
    const doc = readFileSync(join(REPOSITORY_ROOT, 'docs/deploying.md'), 'utf8');
    const row = (label: string) => new RegExp(`^\\| ${label.replace(/[()+]/g, '\\$&')} \\| ([^|]+) \\| ([^|]+) \\|`, 'm').exec(doc)?.slice(1, 3);
    const { dev, prod } = { dev: synthesized.dev.stack.chain, prod: synthesized.prod.stack.chain };
    const ms = (n: number) => `${n.toLocaleString('en-US').replace(/,/g, ' ')} ms`;
    expect(row('execute Lambda timeout')).toEqual([`${dev.executeLambdaTimeoutSeconds} s`, `${prod.executeLambdaTimeoutSeconds} s`]);
    expect(row('+ cold-start headroom (init is not in the timeout)')).toEqual([ms(dev.coldInvokeMs), ms(prod.coldInvokeMs)]);
    expect(row('invoke deadline (Lambda client), at most')).toEqual([ms(dev.lambdaClientTimeoutMs), ms(prod.lambdaClientTimeoutMs)]);
    expect(row('validate Lambda timeout (1 s of pre-invoke work + deadline + reserve)')).toEqual([`${dev.validateLambdaTimeoutSeconds} s`, `${prod.validateLambdaTimeoutSeconds} s`]);
    expect(row('API integration timeout')).toEqual([ms(dev.apiIntegrationTimeoutMs), ms(prod.apiIntegrationTimeoutMs)]);
    expect(synthesized.staging.stack.chain).toEqual(dev);
  });

  it('each environment is its own stack, named for SAM as cdk.out/<stackName>.template.json', () => {
    expect(ENVIRONMENT_NAMES.map((env) => synthesized[env].stack.stackName)).toEqual(['JubeR-dev', 'JubeR-staging', 'JubeR-prod']);
  });
});

describe('context options (prod with every override)', () => {
  const topic = 'arn:aws:sns:eu-west-1:123456789012:jube-r-alarms';
  const callerEndpoint = 'vpce-0123456789abcdef0';
  const baseImage = `debian:trixie-slim@sha256:${'a'.repeat(64)}`;
  let s: Synthesized;

  beforeAll(() => {
    const prod = deployableConfig('prod');
    const config = DeploymentConfigSchema.parse({
      ...prod,
      api: { ...prod.api, additionalVpcEndpointIds: [callerEndpoint], peeredCallerCidrs: ['10.99.0.0/16'] },
    });
    // Built by `cdk deploy` on the pinned base here (no prebuilt image), to see the build argument.
    s = synthesize({ ...config, ...resolveOverrides(topic, baseImage), executeImageUri: undefined });
  }, 60_000);
  afterAll(() => s?.cleanup());

  /** The same values as `-c alarmTopicArn=... -c manageApiGatewayAccount=true -c executeBaseImage=...`. */
  function resolveOverrides(alarmTopicArn: string, executeBaseImage: string) {
    const { manageApiGatewayAccount } = resolveDeploymentConfig('prod', { ...DEPLOY_OVERRIDES.prod, manageApiGatewayAccount: 'true' });
    return { alarmTopicArn, manageApiGatewayAccount, executeBaseImage };
  }

  it('sends every alarm and its recovery to the SNS topic', () => {
    const alarms = resourcesOf(s.json, 'AWS::CloudWatch::Alarm');
    expect(alarms).toHaveLength(13);
    for (const [, alarm] of alarms) {
      expect(alarm.Properties!['AlarmActions']).toEqual([topic]);
      expect(alarm.Properties!['OKActions']).toEqual([topic]);
    }
  });

  it('manages API Gateway\'s account-wide CloudWatch role only when opted in', () => {
    expect(resourcesOf(s.json, 'AWS::ApiGateway::Account')).toHaveLength(1);
  });

  it('admits a caller\'s own execute-api endpoint next to the stack\'s, in the endpoint binding and the resource policy', () => {
    const id = ids(s.stack);
    const api = s.json.Resources[id.api]!.Properties!;
    expect((api['EndpointConfiguration'] as { VpcEndpointIds: unknown[] }).VpcEndpointIds).toEqual([{ Ref: id.apiEndpoint }, callerEndpoint]);
    const deny = (api['Policy'] as { Statement: { Sid: string; Condition?: unknown }[] }).Statement.find((st) => st.Sid === 'DenyOutsideVpcEndpoint');
    expect(deny?.Condition).toEqual({ StringNotEquals: { 'aws:SourceVpce': [{ Ref: id.apiEndpoint }, callerEndpoint] } });
  });

  it('lets a peered network reach the stack\'s execute-api endpoint on 443', () => {
    s.template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      SecurityGroupIngress: Match.arrayWith([Match.objectLike({ CidrIp: '10.99.0.0/16', FromPort: 443, ToPort: 443 })]),
    });
  });

  it("outputs ApiUrl, saying it resolves only through the caller endpoint's private DNS", () => {
    const outputs = (s.json as unknown as { Outputs: Record<string, { Value: unknown; Description: string }> }).Outputs;
    expect(JSON.stringify(outputs['ApiUrl']!.Value)).toContain(`.execute-api.${s.config.region}.`);
    expect(outputs['ApiUrl']!.Description).toContain(callerEndpoint);
    expect(outputs['ApiUrl']!.Description).toContain('it resolves nowhere else');
  });

  it('builds the image on the base pinned by digest', () => {
    const assets = JSON.parse(readFileSync(join(s.outdir, `${s.stack.artifactId}.assets.json`), 'utf8')) as {
      dockerImages: Record<string, { source: { dockerBuildArgs?: Record<string, string> } }>;
    };
    expect(Object.values(assets.dockerImages)[0]?.source.dockerBuildArgs).toEqual({ BASE_IMAGE: baseImage });
  });
});

describe('prod in an existing (shared) VPC', () => {
  const callerEndpoint = 'vpce-0123456789abcdef0';
  const shared = (vpc: Record<string, unknown>, api: Record<string, unknown> = {}) => {
    const prod = deployableConfig('prod');
    return synthesize(DeploymentConfigSchema.parse({ ...prod, vpc: { ...SHARED_VPC, ...vpc }, api: { ...prod.api, ...api } }));
  };
  let own: Synthesized;
  let callersOnly: Synthesized;

  beforeAll(() => {
    own = shared({});
    callersOnly = shared({ executeApiEndpoint: 'callers-only' }, { additionalVpcEndpointIds: [callerEndpoint] });
  }, 120_000);
  afterAll(() => {
    own?.cleanup();
    callersOnly?.cleanup();
  });

  /** Everything the stack could change that belongs to the VPC and so to every other workload in it. */
  const vpcChanges = (json: Synthesized['json']) => ({
    vpcs: resourcesOf(json, 'AWS::EC2::VPC'),
    privateDnsEndpoints: resourcesOf(json, 'AWS::EC2::VPCEndpoint').filter(([, e]) => e.Properties!['PrivateDnsEnabled'] === true),
    gatewayEndpoints: resourcesOf(json, 'AWS::EC2::VPCEndpoint').filter(([, e]) => e.Properties!['VpcEndpointType'] === 'Gateway'),
    endpointsWithRouteTables: resourcesOf(json, 'AWS::EC2::VPCEndpoint').filter(([, e]) => e.Properties!['RouteTableIds'] !== undefined),
    routes: resourcesOf(json, 'AWS::EC2::Route'),
    routeTables: resourcesOf(json, 'AWS::EC2::RouteTable'),
    routeTableAssociations: resourcesOf(json, 'AWS::EC2::SubnetRouteTableAssociation'),
    firewallAssociations: resourcesOf(json, 'AWS::Route53Resolver::FirewallRuleGroupAssociation'),
    defaultSecurityGroupRestrictions: resourcesOf(json, 'Custom::VpcRestrictDefaultSG'),
  });
  /** All of it but the S3 gateway endpoint, which goes into jube-r's own route tables only. */
  const NOTHING = {
    vpcs: [], privateDnsEndpoints: [], routes: [], routeTables: [], routeTableAssociations: [], firewallAssociations: [], defaultSecurityGroupRestrictions: [],
  };

  it("creates no private-DNS endpoint, no route table or route, associates no firewall, and puts its S3 endpoint only into jube-r's own route tables", () => {
    for (const s of [own, callersOnly]) {
      const { gatewayEndpoints, endpointsWithRouteTables, ...rest } = vpcChanges(s.json);
      expect(rest).toEqual(NOTHING);
      expect(endpointsWithRouteTables).toEqual(gatewayEndpoints);
      expect(gatewayEndpoints.map(([, e]) => e.Properties!['RouteTableIds'])).toEqual([[...new Set(SHARED_VPC.isolatedRouteTableIds)]]);
    }
  });

  it("sends the execute function's S3 egress through that endpoint, whose policy names only the data bucket, and presigned GETs only through it", () => {
    const endpoint = own.json.Resources[logicalIdOf(own.stack.network.s3Endpoint)]!.Properties!;
    expect(endpoint).toMatchObject({ VpcEndpointType: 'Gateway', VpcId: SHARED_VPC.vpcId });
    expect((endpoint['PolicyDocument'] as { Statement: unknown[] }).Statement).toEqual([
      {
        Sid: 'ReadDataBucketObjectsOnly',
        Effect: 'Allow',
        Principal: { AWS: '*' },
        Action: 's3:GetObject',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [logicalIdOf(own.stack.data.bucket), 'Arn'] }, '/*']] },
      },
    ]);
    const [, statements] = dataBucketPolicy(own.json, logicalIdOf(own.stack.data.bucket));
    expect(statements.find((st) => st['Sid'] === 'DenyPresignedOutsideEndpoint')?.['Condition']).toMatchObject({
      StringNotEquals: { 'aws:SourceVpce': { Ref: logicalIdOf(own.stack.network.s3Endpoint) } },
    });
  });

  it('logs no Resolver queries of a VPC it does not own, so it has no DNS-block alarm there', () => {
    expect(resourcesOf(own.json, 'AWS::Route53Resolver::ResolverQueryLoggingConfig')).toEqual([]);
    expect(own.stack.monitoring.alarms.dnsFirewallBlocks).toBeUndefined();
    expect(resourcesOf(own.json, 'AWS::CloudWatch::Alarm')).toHaveLength(12);
  });

  it('is what the synthesis of a dedicated prod VPC does differ in (the check above can fail)', () => {
    const changes = vpcChanges(synthesized.prod.json);
    expect(changes.vpcs).toHaveLength(1);
    expect(changes.routeTables.length).toBeGreaterThan(0);
    expect(changes.firewallAssociations).toHaveLength(1);
    expect(changes.defaultSecurityGroupRestrictions).toHaveLength(1);
  });

  it('reaches the API through its own endpoint without private DNS, by the {api}-{vpce} name', () => {
    const id = logicalIdOf(own.stack.network.apiEndpoint!);
    own.template.hasResourceProperties('AWS::EC2::VPCEndpoint', { VpcId: SHARED_VPC.vpcId, VpcEndpointType: 'Interface', PrivateDnsEnabled: false });
    const outputs = (own.json as unknown as { Outputs: Record<string, { Value: unknown }> }).Outputs;
    expect(JSON.stringify(outputs['ApiVpcEndpointUrl']!.Value)).toContain(id);
    expect(outputs['S3GatewayEndpointId']!.Value).toEqual({ Ref: logicalIdOf(own.stack.network.s3Endpoint) });
  });

  it('with callers-only, creates no interface endpoint at all and admits only the callers\' endpoints', () => {
    expect(resourcesOf(callersOnly.json, 'AWS::EC2::VPCEndpoint').filter(([, e]) => e.Properties!['VpcEndpointType'] === 'Interface')).toEqual([]);
    const api = callersOnly.json.Resources[logicalIdOf(callersOnly.stack.api.api)]!.Properties!;
    expect((api['EndpointConfiguration'] as { VpcEndpointIds: unknown[] }).VpcEndpointIds).toEqual([callerEndpoint]);
    const deny = (api['Policy'] as { Statement: { Sid: string; Condition?: unknown }[] }).Statement.find((st) => st.Sid === 'DenyOutsideVpcEndpoint');
    expect(deny?.Condition).toEqual({ StringNotEquals: { 'aws:SourceVpce': callerEndpoint } });
  });

  it('creates the DNS firewall rule group for the VPC\'s owner, and /health does not claim the layer', () => {
    expect(resourcesOf(own.json, 'AWS::Route53Resolver::FirewallRuleGroup')).toHaveLength(1);
    const variables = (own.json.Resources[logicalIdOf(own.stack.apiFunction.function)]!.Properties!['Environment'] as { Variables: Record<string, string> }).Variables;
    expect(variables['JUBE_R_SANDBOX_LAYERS']!.split(',')).not.toContain('dns-firewall');
  });

  it('places the execute function in the given subnets', () => {
    const vpcConfig = own.json.Resources[logicalIdOf(own.stack.execute.function)]!.Properties!['VpcConfig'] as { SubnetIds: unknown[] };
    expect(vpcConfig.SubnetIds).toEqual(SHARED_VPC.isolatedSubnetIds);
  });
});

describe('a prebuilt execute image (executeImageUri)', () => {
  const digest = `sha256:${'c'.repeat(64)}`;
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize({ ...deployableConfig('staging'), executeImageUri: `123456789012.dkr.ecr.eu-west-1.amazonaws.com/jube-r/execute@${digest}` });
  }, 60_000);
  afterAll(() => s?.cleanup());

  it('runs exactly that image by digest, and builds none', () => {
    const fn = s.json.Resources[logicalIdOf(s.stack.execute.function)]!.Properties!;
    expect(JSON.stringify(fn['Code'])).toContain(`/jube-r/execute@${digest}`);
    const assets = JSON.parse(readFileSync(join(s.outdir, `${s.stack.artifactId}.assets.json`), 'utf8')) as { dockerImages: Record<string, unknown> };
    expect(assets.dockerImages).toEqual({});
  });
});

describe('the synthesized validate bundle', () => {
  /** The bundle prod deploys, run with its environment from the template on a sample API Gateway event. */
  async function answer(eventFile: string): Promise<{ statusCode: number; body: string }> {
    const { json, stack, outdir } = synthesized.prod;
    const fn = json.Resources[logicalIdOf(stack.apiFunction.function)]!;
    const bundle = join(outdir, String(fn.Metadata!['aws:asset:path']), 'index.mjs');
    const variables = (fn.Properties!['Environment'] as { Variables: Record<string, unknown> }).Variables;
    const event = readFileSync(join(REPOSITORY_ROOT, eventFile), 'utf8');
    const script = `const { handler } = await import(${JSON.stringify(bundle)});
      const answer = await handler(JSON.parse(process.env.EVENT), { awsRequestId: 'bundle-test', getRemainingTimeInMillis: () => 10000 });
      process.stdout.write('\\n<<<ANSWER>>>' + JSON.stringify(answer));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env['PATH'], AWS_REGION: 'eu-west-1', ...deployedEnvironment(variables), EVENT: event },
      timeout: 30_000,
    });
    // The handler's own JSON log lines come first on stdout.
    return JSON.parse(stdout.split('<<<ANSWER>>>').at(-1)!) as { statusCode: number; body: string };
  }

  it('answers GET /packages with the image\'s R version and package versions', async () => {
    const { statusCode, body } = await answer('events/api/packages.json');
    expect(statusCode).toBe(200);
    const facts = readPackageFacts(fixturePackageFacts()).manifest;
    const blocked = new Set(loadRules().packages.blocked.map((b) => b.name));
    expect(JSON.parse(body)).toMatchObject({ rVersion: FIXTURE_IMAGE_R_VERSION, packages: facts.packages.filter((p) => !blocked.has(p.name)) });
  }, 60_000);

  it('answers POST /validate from the rules and the capability table it ships beside it', async () => {
    // Both data files are read beside the bundle: a missing one fails here, not in a deployment.
    const { statusCode, body } = await answer('events/api/validate-rejected.json');
    expect(statusCode).toBe(200);
    expect(JSON.parse(body)).toMatchObject({ valid: false, errors: [expect.objectContaining({ code: 'CAPABILITY_NOT_AVAILABLE' })] });
  }, 60_000);
});

