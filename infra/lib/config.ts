/**
 * Per-environment deployment configuration, typed and validated with zod. `infra/bin/app.ts`
 * resolves it once (from `-c env=...` and a few context overrides) and passes it down as readonly
 * props; constructs never read process.env or context themselves.
 *
 * Values marked PLACEHOLDER must be replaced (or overridden with `-c key=value`) before a real
 * deploy; synthesis never needs them to be real, so `cdk synth` works offline.
 */
import { z } from 'zod';
import { DEFAULT_INTEGRATION_QUOTA_SECONDS, MAX_INTEGRATION_QUOTA_SECONDS } from './timeout-chain.ts';

export const ENVIRONMENT_NAMES = ['dev', 'staging', 'prod'] as const;
export const EnvironmentNameSchema = z.enum(ENVIRONMENT_NAMES);
export type EnvironmentName = z.infer<typeof EnvironmentNameSchema>;

/** The values CloudWatch Logs accepts for a retention period. */
const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653] as const;
const retentionDays = z
  .number()
  .int()
  .refine((d) => (RETENTION_DAYS as readonly number[]).includes(d), `must be one of ${RETENTION_DAYS.join(', ')}`);

const int = (min: number, max: number) => z.number().int().min(min).max(max);

const CreatedVpcSchema = z.strictObject({
  kind: z.literal('create'),
  cidr: z.string().regex(/^\d{1,3}(\.\d{1,3}){3}\/(1[6-9]|2[0-4])$/, 'must be an IPv4 CIDR between /16 and /24'),
  /** Isolated subnets are spread over this many AZs (Fn::GetAZs, so no lookup at synth). */
  maxAzs: int(1, 3),
});

/** An existing VPC, described fully so nothing is looked up at synth (Vpc.fromVpcAttributes). */
const ExistingVpcSchema = z
  .strictObject({
    kind: z.literal('existing'),
    vpcId: z.string().regex(/^vpc-[0-9a-f]{8,17}$/),
    cidr: z.string().regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/),
    availabilityZones: z.array(z.string().min(1)).min(1),
    isolatedSubnetIds: z.array(z.string().regex(/^subnet-[0-9a-f]{8,17}$/)).min(1),
    /** Route tables of those subnets, for the S3 gateway endpoint's routes. */
    isolatedSubnetRouteTableIds: z.array(z.string().regex(/^rtb-[0-9a-f]{8,17}$/)).min(1),
  })
  .refine(
    (v) => v.isolatedSubnetIds.length === v.availabilityZones.length && v.isolatedSubnetRouteTableIds.length === v.availabilityZones.length,
    'give one isolated subnet id and one route table id per availability zone',
  );

const IntegrationQuotaSchema = z
  .strictObject({
    seconds: int(1, MAX_INTEGRATION_QUOTA_SECONDS),
    /** Required above 29 s: the Service Quotas request (or case) that raised it for this account and region. */
    raisedBy: z.string().min(1).optional(),
  })
  .refine((q) => q.seconds <= DEFAULT_INTEGRATION_QUOTA_SECONDS || q.raisedBy !== undefined, {
    message: `above ${DEFAULT_INTEGRATION_QUOTA_SECONDS} s the config must state the raised quota in raisedBy`,
    path: ['raisedBy'],
  });

export const DeploymentConfigSchema = z
  .strictObject({
    envName: EnvironmentNameSchema,
    /** CloudFormation stack name; also the SAM template name (cdk.out/<stackName>.template.json). */
    stackName: z.string().regex(/^[A-Za-z][A-Za-z0-9-]{0,127}$/),
    /** Unset: account-agnostic (the deploying credentials decide). */
    account: z.string().regex(/^\d{12}$/).optional(),
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/),
    /** The orchestrator's IAM role: the only principal allowed to call the API. */
    orchestratorRoleArn: z.string().regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/),
    vpc: z.union([CreatedVpcSchema, ExistingVpcSchema]),
    /**
     * The region's S3 managed prefix list (com.amazonaws.<region>.s3): the execute function's only
     * egress. Given here rather than looked up so synthesis stays offline.
     */
    s3PrefixListId: z.string().regex(/^pl-[0-9a-f]{8,17}$/),
    execute: z.strictObject({
      architecture: z.enum(['x86_64', 'arm64']),
      memoryMiB: int(128, 10_240),
      ephemeralStorageMiB: int(512, 10_240),
      /** Reserved concurrency of the execute function = JUBE_R_MAX_INFLIGHT_EXECUTE. */
      maxInflight: int(1, 1000),
      /** 'per-tenant': Lambda tenant isolation, an execution environment never serves two tenants. */
      tenancy: z.enum(['shared', 'per-tenant']),
    }),
    validate: z.strictObject({ memoryMiB: int(128, 10_240) }),
    timeouts: z.strictObject({
      defaultScriptSeconds: int(1, 900),
      maxScriptSeconds: int(1, 900),
      killGraceSeconds: int(1, 60),
      executeOverheadSeconds: int(1, 120),
      integrationQuota: IntegrationQuotaSchema,
    }),
    api: z.strictObject({
      throttlingRateLimit: int(1, 10_000),
      throttlingBurstLimit: int(1, 5_000),
      maxRequestBodyBytes: int(1024, 6 * 1024 * 1024),
    }),
    data: z.strictObject({
      /** Objects in the data bucket expire this many days after they were written. */
      expireAfterDays: int(1, 3650),
      accessLogExpireAfterDays: int(1, 3650),
      presignTtlSeconds: int(10, 3600),
    }),
    logRetentionDays: retentionDays,
    /** What happens to the data bucket and the log groups when the stack is deleted. */
    removalPolicy: z.enum(['destroy', 'retain']),
  })
  .refine((c) => c.timeouts.defaultScriptSeconds <= c.timeouts.maxScriptSeconds, {
    message: 'timeouts.defaultScriptSeconds must not exceed timeouts.maxScriptSeconds',
    path: ['timeouts', 'defaultScriptSeconds'],
  });

export type DeploymentConfig = Readonly<z.infer<typeof DeploymentConfigSchema>>;
export type DeploymentConfigInput = z.input<typeof DeploymentConfigSchema>;

/**
 * What every environment shares. Region eu-west-1 and its S3 prefix list are PLACEHOLDERS; the
 * orchestrator role is a PLACEHOLDER named after the environment.
 */
const common = (envName: EnvironmentName) =>
  ({
    envName,
    stackName: `JubeR-${envName}`,
    region: 'eu-west-1',
    orchestratorRoleArn: `arn:aws:iam::111111111111:role/jube-r-orchestrator-${envName}`,
    s3PrefixListId: 'pl-6da54004',
  }) as const;

/** The API Gateway default integration quota (29 s) bounds dev and staging: short scripts only. */
const DEFAULT_QUOTA_TIMEOUTS = {
  defaultScriptSeconds: 10,
  maxScriptSeconds: 20,
  killGraceSeconds: 2,
  executeOverheadSeconds: 3,
  integrationQuota: { seconds: DEFAULT_INTEGRATION_QUOTA_SECONDS },
} as const;

const MAX_REQUEST_BODY_BYTES = 2 * 1024 * 1024;
const PRESIGN_TTL_SECONDS = 120;

/** The three environments; the differences between them are deliberate and tested. */
export const ENVIRONMENTS: Readonly<Record<EnvironmentName, DeploymentConfigInput>> = {
  dev: {
    ...common('dev'),
    vpc: { kind: 'create', cidr: '10.40.0.0/16', maxAzs: 2 },
    execute: { architecture: 'x86_64', memoryMiB: 2048, ephemeralStorageMiB: 1024, maxInflight: 2, tenancy: 'shared' },
    validate: { memoryMiB: 1024 },
    timeouts: DEFAULT_QUOTA_TIMEOUTS,
    api: { throttlingRateLimit: 5, throttlingBurstLimit: 10, maxRequestBodyBytes: MAX_REQUEST_BODY_BYTES },
    data: { expireAfterDays: 7, accessLogExpireAfterDays: 30, presignTtlSeconds: PRESIGN_TTL_SECONDS },
    logRetentionDays: 7,
    removalPolicy: 'destroy',
  },
  staging: {
    ...common('staging'),
    vpc: { kind: 'create', cidr: '10.41.0.0/16', maxAzs: 2 },
    execute: { architecture: 'x86_64', memoryMiB: 3008, ephemeralStorageMiB: 2048, maxInflight: 5, tenancy: 'per-tenant' },
    validate: { memoryMiB: 1024 },
    timeouts: DEFAULT_QUOTA_TIMEOUTS,
    api: { throttlingRateLimit: 20, throttlingBurstLimit: 40, maxRequestBodyBytes: MAX_REQUEST_BODY_BYTES },
    data: { expireAfterDays: 14, accessLogExpireAfterDays: 90, presignTtlSeconds: PRESIGN_TTL_SECONDS },
    logRetentionDays: 30,
    removalPolicy: 'retain',
  },
  prod: {
    ...common('prod'),
    // PLACEHOLDER ids: prod joins the platform's existing VPC (its isolated subnets).
    vpc: {
      kind: 'existing',
      vpcId: 'vpc-0a1b2c3d4e5f60718',
      cidr: '10.0.0.0/16',
      availabilityZones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'],
      isolatedSubnetIds: ['subnet-0a1b2c3d4e5f60711', 'subnet-0a1b2c3d4e5f60722', 'subnet-0a1b2c3d4e5f60733'],
      isolatedSubnetRouteTableIds: ['rtb-0a1b2c3d4e5f60711', 'rtb-0a1b2c3d4e5f60722', 'rtb-0a1b2c3d4e5f60733'],
    },
    execute: { architecture: 'x86_64', memoryMiB: 4096, ephemeralStorageMiB: 4096, maxInflight: 20, tenancy: 'per-tenant' },
    validate: { memoryMiB: 1536 },
    timeouts: {
      defaultScriptSeconds: 30,
      maxScriptSeconds: 120,
      killGraceSeconds: 2,
      executeOverheadSeconds: 5,
      // PLACEHOLDER: prod's account must really have this quota raised before deploying.
      integrationQuota: { seconds: 180, raisedBy: 'PLACEHOLDER: Service Quotas request for API Gateway "Maximum integration timeout in milliseconds"' },
    },
    api: { throttlingRateLimit: 50, throttlingBurstLimit: 100, maxRequestBodyBytes: MAX_REQUEST_BODY_BYTES },
    data: { expireAfterDays: 30, accessLogExpireAfterDays: 365, presignTtlSeconds: PRESIGN_TTL_SECONDS },
    logRetentionDays: 365,
    removalPolicy: 'retain',
  },
};

/** Context keys that may override a single value at synth time (`-c key=value`). */
export const CONTEXT_OVERRIDES = ['account', 'region', 'orchestratorRoleArn', 's3PrefixListId'] as const;
export type ContextOverrides = Partial<Record<(typeof CONTEXT_OVERRIDES)[number], string>>;

export class DeploymentConfigError extends Error {
  override readonly name = 'DeploymentConfigError';
}

/**
 * The validated config for one environment. `envName` comes from `-c env=...`; overrides from
 * context. Throws DeploymentConfigError naming every bad key, so `cdk synth` fails fast.
 */
export function resolveDeploymentConfig(envName: unknown, overrides: ContextOverrides = {}): DeploymentConfig {
  const name = EnvironmentNameSchema.safeParse(envName);
  if (!name.success) {
    throw new DeploymentConfigError(
      `unknown environment ${JSON.stringify(envName)}: pass -c env=${ENVIRONMENT_NAMES.join('|')}`,
    );
  }
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = DeploymentConfigSchema.safeParse({ ...ENVIRONMENTS[name.data], ...defined });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new DeploymentConfigError(`invalid jube-r deployment config for ${name.data}: ${problems}`);
  }
  return parsed.data;
}
