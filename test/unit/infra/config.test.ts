import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../infra/lib/app.ts';
import {
  DeploymentConfigError,
  DeploymentConfigSchema,
  ENVIRONMENT_NAMES,
  ENVIRONMENTS,
  PLACEHOLDER_ACCOUNT,
  resolveDeploymentConfig,
  type DeploymentConfigInput,
} from '../../../infra/lib/config.ts';
import { TimeoutChainError } from '../../../infra/lib/timeout-chain.ts';
import { DEPLOY_OVERRIDES, SHARED_VPC } from './synth-fixture.ts';

const withChanges = (changes: (c: DeploymentConfigInput) => DeploymentConfigInput) => changes(structuredClone(ENVIRONMENTS.dev));

describe('resolveDeploymentConfig', () => {
  it('accepts dev as written: callers bound by identity to a tenant role the stack creates, no principal named', () => {
    expect(resolveDeploymentConfig('dev').callers).toEqual({ kind: 'identity' });
    expect(JSON.stringify(ENVIRONMENTS)).not.toContain(PLACEHOLDER_ACCOUNT);
  });

  it.each(['staging', 'prod'] as const)('refuses %s without a prebuilt image, naming the key and the facts it needs', (env) => {
    expect(() => resolveDeploymentConfig(env, { integrationQuotaRaisedBy: 'case 1' })).toThrowError(
      /executeImageUri: staging and prod run a prebuilt image whose package facts were pulled from that very image.*scripts\/image-facts\.sh/,
    );
  });

  it('refuses prod with the placeholder quota statement, and the placeholder account given anywhere', () => {
    const image = { executeImageUri: DEPLOY_OVERRIDES.prod.executeImageUri! };
    expect(() => resolveDeploymentConfig('prod', image)).toThrowError(/integrationQuota.raisedBy: still the placeholder; pass -c integrationQuotaRaisedBy=/);
    expect(() => resolveDeploymentConfig('staging', { ...image, account: PLACEHOLDER_ACCOUNT })).toThrowError(/account: 111111111111 is the placeholder account/);
    expect(() => resolveDeploymentConfig('staging', { ...image, dataWriterRoleArn: `arn:aws:iam::${PLACEHOLDER_ACCOUNT}:role/uploader` })).toThrowError(
      /data.writerRoleArn: in the placeholder account/,
    );
    expect(() => resolveDeploymentConfig('staging', { ...image, tenantRoleArn: `arn:aws:iam::${PLACEHOLDER_ACCOUNT}:role/tenants` })).toThrowError(
      /tenantRoleArn: .* placeholder account 111111111111/,
    );
  });

  it.each(['staging', 'prod'] as const)('accepts %s with the real values an operator passes', (env) => {
    const config = resolveDeploymentConfig(env, DEPLOY_OVERRIDES[env]);
    expect(config.envName).toBe(env);
    if (env === 'prod') expect(config.timeouts.integrationQuota.raisedBy).toBe(DEPLOY_OVERRIDES.prod.integrationQuotaRaisedBy);
  });

  it('reads the data writer and a prebuilt image from context', () => {
    const image = `123456789012.dkr.ecr.eu-west-1.amazonaws.com/jube-r/execute@sha256:${'b'.repeat(64)}`;
    const config = resolveDeploymentConfig('dev', { dataWriterRoleArn: 'arn:aws:iam::123456789012:role/uploader', executeImageUri: image });
    expect(config.data.writerRoleArn).toBe('arn:aws:iam::123456789012:role/uploader');
    expect(config.executeImageUri).toBe(image);
  });

  it('reads the callers\' endpoints and peered networks from context, as comma-separated lists', () => {
    const config = resolveDeploymentConfig('dev', { callerVpcEndpointIds: 'vpce-0123456789abcdef0, vpce-0fedcba9876543210', peeredCallerCidrs: '10.99.0.0/16' });
    expect(config.api).toMatchObject({ additionalVpcEndpointIds: ['vpce-0123456789abcdef0', 'vpce-0fedcba9876543210'], peeredCallerCidrs: ['10.99.0.0/16'] });
    expect(() => resolveDeploymentConfig('dev', { peeredCallerCidrs: '10.99.0.0/16,not-a-cidr' })).toThrowError(/api\.peeredCallerCidrs\.1/);
  });

  describe('the tenant binding', () => {
    const orchestrator = 'arn:aws:iam::123456789012:role/platform/orchestrator';

    it('takes an existing tenant role (another account\'s) instead of creating one', () => {
      expect(resolveDeploymentConfig('dev', { tenantRoleArn: 'arn:aws:iam::210987654321:role/jube-r-tenants' }).callers).toEqual({
        kind: 'identity',
        tenantRoleArn: 'arn:aws:iam::210987654321:role/jube-r-tenants',
      });
    });

    it('is single-orchestrator only as an explicit choice, and then needs its role', () => {
      expect(resolveDeploymentConfig('dev', { tenantBinding: 'single-orchestrator', orchestratorRoleArn: orchestrator }).callers).toEqual({
        kind: 'single-orchestrator',
        orchestratorRoleArn: orchestrator,
      });
      expect(() => resolveDeploymentConfig('dev', { orchestratorRoleArn: orchestrator })).toThrowError(/an explicit choice: pass -c tenantBinding=single-orchestrator/);
      expect(() => resolveDeploymentConfig('dev', { tenantBinding: 'single-orchestrator' })).toThrowError(/needs -c orchestratorRoleArn=/);
      expect(() => resolveDeploymentConfig('dev', { tenantBinding: 'single-orchestrator', orchestratorRoleArn: orchestrator, tenantRoleArn: orchestrator })).toThrowError(
        /a single orchestrator binds no tenant role/,
      );
      expect(() => resolveDeploymentConfig('dev', { tenantBinding: 'anyone' })).toThrowError(/tenantBinding: "anyone" is not identity or single-orchestrator/);
    });
  });

  it.each([undefined, '', 'production', 42])('refuses an unknown environment %j, naming the choices', (env) => {
    expect(() => resolveDeploymentConfig(env)).toThrowError(/pass -c env=dev\|staging\|prod/);
  });

  it('applies context overrides and ignores empty ones', () => {
    const config = resolveDeploymentConfig('staging', {
      ...DEPLOY_OVERRIDES.staging,
      account: '123456789012',
      tenantRoleArn: 'arn:aws:iam::123456789012:role/platform/jube-r-tenants',
      region: '',
    });
    expect(config).toMatchObject({ account: '123456789012', callers: { tenantRoleArn: 'arn:aws:iam::123456789012:role/platform/jube-r-tenants' }, region: 'eu-west-1' });
  });

  it('refuses a region override without that region\'s S3 prefix list, naming the key and the lookup', () => {
    expect(() => resolveDeploymentConfig('dev', { region: 'us-east-2' })).toThrowError(DeploymentConfigError);
    expect(() => resolveDeploymentConfig('dev', { region: 'us-east-2' })).toThrowError(
      /s3PrefixListId: pl-6da54004 is eu-west-1's S3 prefix list; with -c region=us-east-2 also pass -c s3PrefixListId=.*com\.amazonaws\.us-east-2\.s3/,
    );
  });

  it('accepts a region override together with its S3 prefix list', () => {
    const config = resolveDeploymentConfig('dev', { region: 'us-east-2', s3PrefixListId: 'pl-7ba54012' });
    expect(config).toMatchObject({ region: 'us-east-2', s3PrefixListId: 'pl-7ba54012' });
  });

  it('reads the account-wide API Gateway role opt-in and the alarm topic from context strings', () => {
    expect(resolveDeploymentConfig('dev').manageApiGatewayAccount).toBe(false);
    expect(resolveDeploymentConfig('dev').alarmTopicArn).toBeUndefined();
    const config = resolveDeploymentConfig('dev', {
      manageApiGatewayAccount: 'true',
      alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:jube-r-alarms',
    });
    expect(config).toMatchObject({ manageApiGatewayAccount: true, alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:jube-r-alarms' });
  });

  it.each([
    ['a malformed account', { account: '12345' }, /account/],
    ['a base image pinned by tag only', { executeBaseImage: 'debian:trixie-slim' }, /executeBaseImage: must be pinned by digest/],
    ['an alarm topic that is not an SNS ARN', { alarmTopicArn: 'jube-r-alarms' }, /alarmTopicArn/],
    ['an opt-in that is not a boolean', { manageApiGatewayAccount: 'maybe' }, /manageApiGatewayAccount/],
    ['a user instead of a role', { tenantRoleArn: 'arn:aws:iam::123456789012:user/bob' }, /tenantRoleArn: must be an IAM role ARN/],
    ['a malformed prefix list', { s3PrefixListId: 'com.amazonaws.eu-west-1.s3' }, /s3PrefixListId/],
    ['a prebuilt image pinned by tag only', { executeImageUri: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/jube-r:latest' }, /executeImageUri: must be an ECR image pinned by digest/],
  ])('refuses %s, naming the key', (_name, overrides, message) => {
    expect(() => resolveDeploymentConfig('dev', overrides)).toThrowError(DeploymentConfigError);
    expect(() => resolveDeploymentConfig('dev', overrides)).toThrowError(message);
  });
});

describe('DeploymentConfigSchema', () => {
  it('accepts shared tenancy only with its reason, which the config keeps', () => {
    const reason = 'sandbox account: runs only the service\'s own smoke tests';
    const parsed = DeploymentConfigSchema.parse(withChanges((c) => ({ ...c, execute: { ...c.execute, tenancy: { kind: 'shared', reason } } })));
    expect(parsed.execute.tenancy).toEqual({ kind: 'shared', reason });
  });

  it.each(ENVIRONMENT_NAMES)('%s uses PER_TENANT tenancy', (env) => {
    expect(resolveDeploymentConfig(env, DEPLOY_OVERRIDES[env]).execute.tenancy).toBe('per-tenant');
  });

  it.each<[string, DeploymentConfigInput, RegExp]>([
    ['a quota above 29 s without stating it was raised', withChanges((c) => ({ ...c, timeouts: { ...c.timeouts, integrationQuota: { seconds: 60 } } })), /raisedBy/],
    ['a quota above 300 s', withChanges((c) => ({ ...c, timeouts: { ...c.timeouts, integrationQuota: { seconds: 301, raisedBy: 'case' } } })), /seconds/],
    ['a default script time above the maximum', withChanges((c) => ({ ...c, timeouts: { ...c.timeouts, defaultScriptSeconds: 21 } })), /defaultScriptSeconds/],
    ['a log retention CloudWatch does not offer', withChanges((c) => ({ ...c, logRetentionDays: 10 })), /logRetentionDays/],
    ['an unknown key', withChanges((c) => ({ ...c, natGateways: 1 }) as DeploymentConfigInput), /natGateways/],
    ['shared tenancy without a reason', withChanges((c) => ({ ...c, execute: { ...c.execute, tenancy: 'shared' } }) as unknown as DeploymentConfigInput), /"path":\["execute","tenancy"/],
    ['shared tenancy with an empty reason', withChanges((c) => ({ ...c, execute: { ...c.execute, tenancy: { kind: 'shared', reason: '   ' } } })), /say why/],
    ['an isolation mode that does not exist', withChanges((c) => ({ ...c, execute: { ...c.execute, isolation: 'call' } }) as unknown as DeploymentConfigInput), /"path":\["execute","isolation"\]/],
    [
      'an existing VPC with a subnet missing for one AZ',
      withChanges((c) => ({ ...c, vpc: { ...SHARED_VPC, availabilityZones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'] } })),
      /one isolated subnet id per availability zone/,
    ],
    [
      'associating the DNS firewall with an existing (shared) VPC',
      withChanges((c) => ({ ...c, vpc: { ...SHARED_VPC, dnsFirewall: 'associate' } })),
      /"path":\["vpc","dnsFirewall"\].*answer NXDOMAIN to every other workload/,
    ],
    [
      'an existing VPC reached only through callers\' endpoints when none is named',
      withChanges((c) => ({ ...c, vpc: { ...SHARED_VPC, executeApiEndpoint: 'callers-only' } })),
      /"path":\["vpc","executeApiEndpoint"\].*nobody can reach the API/,
    ],
    [
      // The execute function's egress to S3 must go through an endpoint whose policy names only the data bucket.
      'an existing VPC without the route tables of its isolated subnets',
      withChanges((c) => ({ ...c, vpc: { ...SHARED_VPC, isolatedRouteTableIds: undefined } }) as DeploymentConfigInput),
      /"path":\["vpc","isolatedRouteTableIds"\].*S3 gateway endpoint there whose policy names only the data bucket/,
    ],
    [
      'an existing VPC with fewer route tables than isolated subnets',
      withChanges((c) => ({ ...c, vpc: { ...SHARED_VPC, isolatedRouteTableIds: ['rtb-0a1b2c3d4e5f60733'] } })),
      /one route table id per isolated subnet/,
    ],
    [
      'the single-orchestrator binding without its role',
      withChanges((c) => ({ ...c, callers: { kind: 'single-orchestrator' } }) as unknown as DeploymentConfigInput),
      /"path":\["callers","orchestratorRoleArn"\]/,
    ],
  ])('refuses %s', (_name, input, message) => {
    const parsed = DeploymentConfigSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toMatch(message);
  });
});

describe('synthesis and the timeout chain', () => {
  it('fails with a clear message when MAX 300 s cannot nest under the 29 s quota', () => {
    // Prepare
    const config = DeploymentConfigSchema.parse(
      withChanges((c) => ({ ...c, timeouts: { ...c.timeouts, maxScriptSeconds: 300 } })),
    );

    // Act / Assess: the stack refuses before anything is bundled or written.
    expect(() => buildApp({ config, builtinCloudFormationValidation: false })).toThrowError(TimeoutChainError);
    expect(() => buildApp({ config, builtinCloudFormationValidation: false })).toThrowError(
      /cannot nest under an integration-timeout quota of 29 s.*lower maxScriptSeconds to at most 15, lower the cold-start headroom, or raise the quota/,
    );
  });
});
