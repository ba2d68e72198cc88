/**
 * Per-environment deployment configuration, typed and validated with zod. `infra/bin/app.ts`
 * resolves it once (from `-c env=...` and a few context overrides) and passes it down as readonly
 * props; constructs never read process.env or context themselves.
 *
 * Values marked PLACEHOLDER must be replaced (or overridden with `-c key=value`) before a real
 * deploy; synthesis never needs them to be real, so `cdk synth` works offline.
 */
import { z } from 'zod';
import { MIN_EXECUTE_MEMORY_MIB } from './execute-memory.ts';
import { ROLE_ARN_PATTERN } from '../../layers/contract/iam-arns.ts';
import { ISOLATION_MODES } from '../../layers/contract/isolation.ts';
import { DEFAULT_INTEGRATION_QUOTA_SECONDS, LAMBDA_INIT_LIMIT_MS, MAX_INTEGRATION_QUOTA_SECONDS } from './timeout-chain.ts';

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
const roleArn = z.string().regex(ROLE_ARN_PATTERN, 'must be an IAM role ARN');
/** An ECR image pinned by digest; groups: account, region, repository, digest. */
export const ECR_IMAGE_URI = /^(\d{12})\.dkr\.ecr\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?\/([a-z0-9][a-z0-9._/-]*)@(sha256:[0-9a-f]{64})$/;

/** The account the shipped configs use as a stand-in; refused outside dev (resolveDeploymentConfig). */
export const PLACEHOLDER_ACCOUNT = '111111111111';
/** How a config value says it is a stand-in; refused outside dev. */
export const PLACEHOLDER = 'PLACEHOLDER';

const CreatedVpcSchema = z.strictObject({
  kind: z.literal('create'),
  cidr: z.string().regex(/^\d{1,3}(\.\d{1,3}){3}\/(1[6-9]|2[0-4])$/, 'must be an IPv4 CIDR between /16 and /24'),
  /**
   * Isolated subnets are spread over the region's first this-many AZs, as `Fn::GetAZs` picks them at
   * deploy time: the stack never asks CDK for the AZs (JubeRStack.availabilityZones), so `-c account=`
   * neither looks them up nor writes cdk.context.json.
   */
  maxAzs: int(1, 3),
});

/**
 * An existing VPC that other workloads share, described fully so nothing is looked up at synth
 * (Vpc.fromVpcAttributes). The stack changes nothing that is the VPC's: it creates no execute-api
 * endpoint with private DNS (that name would capture every execute-api call in the VPC, and a second
 * one cannot be created), associates no DNS Firewall with the VPC (every workload in it would get
 * NXDOMAIN for every other name), and adds no route to the VPC's route tables (an S3 gateway
 * endpoint there would narrow every workload's S3 to this bucket's reads). docs/deploying.md lists
 * what the VPC's owner provides instead.
 */
const ExistingVpcSchema = z.strictObject({
  kind: z.literal('existing'),
  vpcId: z.string().regex(/^vpc-[0-9a-f]{8,17}$/),
  cidr: z.string().regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/),
  availabilityZones: z.array(z.string().min(1)).min(1),
  isolatedSubnetIds: z.array(z.string().regex(/^subnet-[0-9a-f]{8,17}$/)).min(1),
  /**
   * The route tables of those subnets, one per subnet, which must serve jube-r's subnets only: the stack adds its own
   * S3 gateway endpoint to them, whose policy names only the data bucket, so the execute function's one
   * egress rule (HTTPS to the S3 prefix list) reaches that bucket and nothing else. Without it an
   * escaped script could PUT to any writable bucket by address (the DNS firewall never sees that).
   */
  isolatedRouteTableIds: z.array(z.string().regex(/^rtb-[0-9a-f]{8,17}$/)).optional(),
  /**
   * 'rule-group-only': the stack creates the DNS Firewall rule group and outputs its id for the VPC's
   * owner to associate; /health does not claim the layer. 'associate' is refused here (see above).
   */
  dnsFirewall: z.enum(['associate', 'rule-group-only']),
  /**
   * 'own': the stack creates an execute-api interface endpoint without private DNS, reached by its
   * `{api}-{vpce}` name (ApiVpcEndpointUrl); 'callers-only': no endpoint of the stack's own, callers
   * come through the endpoints in api.additionalVpcEndpointIds (private DNS of theirs, or their alias).
   */
  executeApiEndpoint: z.enum(['own', 'callers-only']).default('own'),
})
  .refine((v) => v.isolatedSubnetIds.length === v.availabilityZones.length, 'give one isolated subnet id per availability zone')
  .refine((v) => v.isolatedRouteTableIds === undefined || v.isolatedRouteTableIds.length === v.isolatedSubnetIds.length, {
    message: 'give one route table id per isolated subnet (the same id again where subnets share one)',
    path: ['isolatedRouteTableIds'],
  });

/** Why a shared VPC refuses a setting that would change it for every other workload. */
export const SHARED_VPC_REFUSALS = {
  dnsFirewall:
    "an existing VPC is shared: associating the DNS firewall would answer NXDOMAIN to every other workload's names; " +
    "use dnsFirewall: 'rule-group-only' and have the VPC's owner associate the rule group (output DnsFirewallRuleGroupId), or let the stack create a dedicated VPC",
  callersOnly: "executeApiEndpoint 'callers-only' needs at least one endpoint in api.additionalVpcEndpointIds, or nobody can reach the API",
  s3Egress:
    "an existing VPC needs isolatedRouteTableIds (the route tables of jube-r's isolated subnets, serving those subnets only): the stack adds an S3 " +
    "gateway endpoint there whose policy names only the data bucket, the one path the execute function's HTTPS-to-S3 egress may take. Without " +
    'it that egress reaches every S3 address, and an escaped script could write to any bucket that lets it (docs/deploying.md, "VPC modes")',
} as const;

/**
 * Who may name which tenant in the API's `/t/{tenant}/` (layers/contract/isolation.ts TENANT_BINDINGS):
 * - `identity` (every environment): callers are sessions of the tenant role, named and tagged
 *   (`jube-tenant`) after their tenant; IAM and the API admit each only to its own tenant's path and
 *   data prefix. The stack creates that role unless `tenantRoleArn` names one (another account's).
 * - `single-orchestrator`: one trusted role names every tenant, an explicit choice that moves the
 *   tenant decision into that role's code (docs/deploying.md, "Tenants and identities").
 */
const CallersSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('identity'), tenantRoleArn: roleArn.optional() }),
  z.strictObject({ kind: z.literal('single-orchestrator'), orchestratorRoleArn: roleArn }),
]);

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

/** 'per-tenant', or an object that says why this environment shares execution environments between keys. */
const TenancySchema = z.union([
  z.literal('per-tenant'),
  z.strictObject({ kind: z.literal('shared'), reason: z.string().trim().min(10, 'say why this environment may share execution environments between isolation keys') }),
]);

export const DeploymentConfigSchema = z
  .strictObject({
    envName: EnvironmentNameSchema,
    /** CloudFormation stack name; also the SAM template name (cdk.out/<stackName>.template.json). */
    stackName: z.string().regex(/^[A-Za-z][A-Za-z0-9-]{0,127}$/),
    /** Unset: account-agnostic (the deploying credentials decide). */
    account: z.string().regex(/^\d{12}$/).optional(),
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/),
    /** Who may call the API, and for which tenants (CallersSchema). */
    callers: CallersSchema,
    vpc: z.union([CreatedVpcSchema, ExistingVpcSchema]),
    /**
     * The region's S3 managed prefix list (com.amazonaws.<region>.s3): the execute function's only
     * egress. Given here rather than looked up so synthesis stays offline.
     */
    s3PrefixListId: z.string().regex(/^pl-[0-9a-f]{8,17}$/),
    /**
     * The execute image's base, pinned by digest (`debian:trixie-slim@sha256:...`), passed to the
     * Dockerfile as BASE_IMAGE; unset: the Dockerfile's default tag (resolved when the image is built).
     */
    executeBaseImage: z.string().regex(/^[\w./:-]+@sha256:[0-9a-f]{64}$/, 'must be pinned by digest: name@sha256:<64 hex>').optional(),
    /**
     * A prebuilt execute image in ECR, pinned by digest (`<account>.dkr.ecr.<region>.amazonaws.com/<repo>@sha256:...`):
     * the function runs exactly that image (DockerImageCode.fromEcr) instead of one `cdk deploy` builds.
     */
    executeImageUri: z
      .string()
      .regex(ECR_IMAGE_URI, 'must be an ECR image pinned by digest: <account>.dkr.ecr.<region>.amazonaws.com/<repository>@sha256:<64 hex>')
      .optional(),
    /**
     * Let the stack set API Gateway's account-wide CloudWatch role (AWS::ApiGateway::Account). Off by
     * default: it is one setting per account and region, and the last stack to deploy it wins.
     */
    manageApiGatewayAccount: z.union([z.boolean(), z.stringbool()]).default(false),
    /** SNS topic for alarm notifications; unset: the alarms only change state. */
    alarmTopicArn: z.string().regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]{1,256}$/).optional(),
    execute: z.strictObject({
      architecture: z.enum(['x86_64', 'arm64']),
      /** R's address-space limit is derived from it (execute-memory.ts), so it must leave R room. */
      memoryMiB: int(MIN_EXECUTE_MEMORY_MIB, 10_240),
      ephemeralStorageMiB: int(512, 10_240),
      /** Reserved concurrency of the execute function = JUBE_R_MAX_INFLIGHT_EXECUTE. */
      maxInflight: int(1, 1000),
      /**
       * 'per-tenant': Lambda tenant isolation (TenancyConfig PER_TENANT), an execution environment, and
       * so its Firecracker microVM, never serves two isolation keys. The boundary in Lambda is that
       * microVM, so every environment uses it; 'shared' only with the reason written down (e.g. a
       * sandbox account that runs no caller's code), reported by GET /health. Lambda cannot change it
       * in place: switching replaces the function (docs/deploying.md).
       */
      tenancy: TenancySchema,
      /**
       * What one isolation key (one TenantId, one set of microVMs) stands for: 'tenant' (the path's),
       * 'session' (the tenant plus X-Jube-Session), 'run' (a fresh key, and so a new microVM and a cold
       * start, per call; each holds a slot of Lambda's tenant-environment cap until it ages out).
       */
      isolation: z.enum(ISOLATION_MODES),
    }),
    validate: z.strictObject({
      memoryMiB: int(128, 10_240),
      /** The validate bundle is plain JavaScript and WASM, so either works; arm64 costs less per GB-second. */
      architecture: z.enum(['x86_64', 'arm64']),
    }),
    timeouts: z.strictObject({
      defaultScriptSeconds: int(1, 900),
      maxScriptSeconds: int(1, 900),
      killGraceSeconds: int(1, 60),
      executeOverheadSeconds: int(1, 120),
      /** Room for an execute cold start, which Lambda does not count in the function timeout (timeout-chain.ts). */
      executeColdStartHeadroomSeconds: int(0, LAMBDA_INIT_LIMIT_MS / 1000),
      integrationQuota: IntegrationQuotaSchema,
    }),
    api: z.strictObject({
      throttlingRateLimit: int(1, 10_000),
      throttlingBurstLimit: int(1, 5_000),
      maxRequestBodyBytes: int(1024, 6 * 1024 * 1024),
      /**
       * execute-api interface endpoints of other VPCs (an orchestrator's own VPC, in this account or
       * another) allowed next to the stack's own: bound to the API and admitted by its resource policy.
       */
      additionalVpcEndpointIds: z.array(z.string().regex(/^vpce-[0-9a-f]{8,17}$/)).default([]),
      /** Networks (peered VPCs, a transit gateway's) whose callers use this VPC's execute-api endpoint. */
      peeredCallerCidrs: z.array(z.string().regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/)).default([]),
    }),
    data: z.strictObject({
      /** Objects in the data bucket expire this many days after they were written. */
      expireAfterDays: int(1, 3650),
      accessLogExpireAfterDays: int(1, 3650),
      presignTtlSeconds: int(10, 3600),
      /**
       * A principal besides the callers that may put tenant tables (s3:PutObject under `<tenant>/`, TLS and
       * SSE-S3 only; an ingestion pipeline). The callers write too: tenant sessions under their own
       * prefix only (identity), the orchestrator under any (single-orchestrator).
       */
      writerRoleArn: roleArn.optional(),
      /** Tenants the writer may put under; unset: any `<tenant>/` prefix (the API scopes every read to the caller's tenant). */
      writerTenants: z.array(z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/)).min(1).optional(),
    }),
    logRetentionDays: retentionDays,
    /** What happens to the data bucket and the log groups when the stack is deleted. */
    removalPolicy: z.enum(['destroy', 'retain']),
  })
  .refine((c) => c.timeouts.defaultScriptSeconds <= c.timeouts.maxScriptSeconds, {
    message: 'timeouts.defaultScriptSeconds must not exceed timeouts.maxScriptSeconds',
    path: ['timeouts', 'defaultScriptSeconds'],
  })
  .refine((c) => c.vpc.kind !== 'existing' || c.vpc.dnsFirewall !== 'associate', { message: SHARED_VPC_REFUSALS.dnsFirewall, path: ['vpc', 'dnsFirewall'] })
  .refine((c) => c.vpc.kind !== 'existing' || c.vpc.executeApiEndpoint !== 'callers-only' || c.api.additionalVpcEndpointIds.length > 0, {
    message: SHARED_VPC_REFUSALS.callersOnly,
    path: ['vpc', 'executeApiEndpoint'],
  })
  .refine((c) => c.vpc.kind !== 'existing' || (c.vpc.isolatedRouteTableIds !== undefined && c.vpc.isolatedRouteTableIds.length > 0), {
    message: SHARED_VPC_REFUSALS.s3Egress,
    path: ['vpc', 'isolatedRouteTableIds'],
  });

export type DeploymentConfig = Readonly<z.infer<typeof DeploymentConfigSchema>>;
export type DeploymentConfigInput = z.input<typeof DeploymentConfigSchema>;

/**
 * What every environment shares: eu-west-1 and its S3 prefix list (`-c region=` with
 * `-c s3PrefixListId=` moves both), and callers bound to tenants by identity through a tenant role the
 * stack creates, so no environment names a principal that does not exist.
 */
const common = (envName: EnvironmentName) =>
  ({
    envName,
    stackName: `JubeR-${envName}`,
    region: 'eu-west-1',
    callers: { kind: 'identity' },
    s3PrefixListId: 'pl-6da54004',
  }) as const;

/**
 * The API Gateway default integration quota (29 s) bounds dev and staging: short scripts only, and
 * 5 s of it kept for an execute cold start (the largest MAX that then nests is 15 s).
 */
const DEFAULT_QUOTA_TIMEOUTS = {
  defaultScriptSeconds: 10,
  maxScriptSeconds: 15,
  killGraceSeconds: 2,
  executeOverheadSeconds: 3,
  executeColdStartHeadroomSeconds: 5,
  integrationQuota: { seconds: DEFAULT_INTEGRATION_QUOTA_SECONDS },
} as const;

const MAX_REQUEST_BODY_BYTES = 2 * 1024 * 1024;
const PRESIGN_TTL_SECONDS = 120;

/** The three environments; the differences between them are deliberate and tested. */
export const ENVIRONMENTS: Readonly<Record<EnvironmentName, DeploymentConfigInput>> = {
  dev: {
    ...common('dev'),
    vpc: { kind: 'create', cidr: '10.40.0.0/16', maxAzs: 2 },
    execute: { architecture: 'x86_64', memoryMiB: 2048, ephemeralStorageMiB: 1024, maxInflight: 2, tenancy: 'per-tenant', isolation: 'session' },
    // x86_64 in dev so `sam local` runs the function natively on the usual workstation.
    validate: { memoryMiB: 1024, architecture: 'x86_64' },
    timeouts: DEFAULT_QUOTA_TIMEOUTS,
    api: { throttlingRateLimit: 5, throttlingBurstLimit: 10, maxRequestBodyBytes: MAX_REQUEST_BODY_BYTES },
    data: { expireAfterDays: 7, accessLogExpireAfterDays: 30, presignTtlSeconds: PRESIGN_TTL_SECONDS },
    logRetentionDays: 7,
    removalPolicy: 'destroy',
  },
  staging: {
    ...common('staging'),
    vpc: { kind: 'create', cidr: '10.41.0.0/16', maxAzs: 2 },
    // Sessions, as prod: `run` would make every call a cold start and a new tenant environment, and
    // at 5 reserved concurrency AWS's stated ratio allows about a dozen of those before throttling.
    execute: { architecture: 'x86_64', memoryMiB: 3008, ephemeralStorageMiB: 2048, maxInflight: 5, tenancy: 'per-tenant', isolation: 'session' },
    validate: { memoryMiB: 1024, architecture: 'arm64' },
    timeouts: DEFAULT_QUOTA_TIMEOUTS,
    api: { throttlingRateLimit: 20, throttlingBurstLimit: 40, maxRequestBodyBytes: MAX_REQUEST_BODY_BYTES },
    data: { expireAfterDays: 14, accessLogExpireAfterDays: 90, presignTtlSeconds: PRESIGN_TTL_SECONDS },
    logRetentionDays: 30,
    removalPolicy: 'retain',
  },
  prod: {
    ...common('prod'),
    // A VPC of its own: the DNS firewall, the private-DNS execute-api endpoint and the S3 gateway
    // endpoint's narrow policy then bind only jube-r. Joining a shared VPC: kind 'existing' (docs/deploying.md).
    vpc: { kind: 'create', cidr: '10.42.0.0/16', maxAzs: 2 },
    execute: { architecture: 'x86_64', memoryMiB: 4096, ephemeralStorageMiB: 4096, maxInflight: 20, tenancy: 'per-tenant', isolation: 'session' },
    validate: { memoryMiB: 1536, architecture: 'arm64' },
    timeouts: {
      defaultScriptSeconds: 30,
      maxScriptSeconds: 120,
      killGraceSeconds: 2,
      executeOverheadSeconds: 5,
      // The raised quota affords Lambda's whole init limit, so an init that succeeds within it never
      // costs a near-limit script its time; an init that fails and is retried (or a restore) can still
      // take longer, and then API Gateway answers 504 first (docs/deploying.md, "Timeouts").
      executeColdStartHeadroomSeconds: 10,
      // PLACEHOLDER: prod's account must really have this quota raised before deploying.
      // Refused outside dev until -c integrationQuotaRaisedBy= names the real request.
      integrationQuota: { seconds: 180, raisedBy: `${PLACEHOLDER}: Service Quotas request for API Gateway "Maximum integration timeout in milliseconds"` },
    },
    api: { throttlingRateLimit: 50, throttlingBurstLimit: 100, maxRequestBodyBytes: MAX_REQUEST_BODY_BYTES },
    data: { expireAfterDays: 30, accessLogExpireAfterDays: 365, presignTtlSeconds: PRESIGN_TTL_SECONDS },
    logRetentionDays: 365,
    removalPolicy: 'retain',
  },
};

/** Context keys that may override a single value at synth time (`-c key=value`). */
export const CONTEXT_OVERRIDES = [
  'account',
  'region',
  'tenantBinding',
  'tenantRoleArn',
  'orchestratorRoleArn',
  's3PrefixListId',
  'executeBaseImage',
  'executeImageUri',
  'manageApiGatewayAccount',
  'alarmTopicArn',
  'integrationQuotaRaisedBy',
  'dataWriterRoleArn',
  'callerVpcEndpointIds',
  'peeredCallerCidrs',
] as const;
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
  const base = ENVIRONMENTS[name.data];
  // The S3 prefix list is the region's: a region override without its prefix list would leave the
  // execute function's only egress rule pointing at another region's S3.
  if (defined['region'] !== undefined && defined['region'] !== base.region && defined['s3PrefixListId'] === undefined) {
    throw new DeploymentConfigError(
      `invalid jube-r deployment config for ${name.data}: s3PrefixListId: ${base.s3PrefixListId} is ${base.region}'s S3 prefix list; ` +
        `with -c region=${defined['region']} also pass -c s3PrefixListId=<that region's>: ` +
        `aws ec2 describe-managed-prefix-lists --region ${defined['region']} --filters Name=prefix-list-name,Values=com.amazonaws.${defined['region']}.s3 --query 'PrefixLists[0].PrefixListId'`,
    );
  }
  const { integrationQuotaRaisedBy, dataWriterRoleArn, tenantBinding, tenantRoleArn, orchestratorRoleArn, callerVpcEndpointIds, peeredCallerCidrs, ...flat } = defined;
  const callers = callersFromContext(name.data, base.callers, { tenantBinding, tenantRoleArn, orchestratorRoleArn });
  const parsed = DeploymentConfigSchema.safeParse({
    ...base,
    ...flat,
    callers,
    timeouts: { ...base.timeouts, integrationQuota: { ...base.timeouts.integrationQuota, ...(integrationQuotaRaisedBy ? { raisedBy: integrationQuotaRaisedBy } : {}) } },
    api: {
      ...base.api,
      ...(callerVpcEndpointIds ? { additionalVpcEndpointIds: commaList(callerVpcEndpointIds) } : {}),
      ...(peeredCallerCidrs ? { peeredCallerCidrs: commaList(peeredCallerCidrs) } : {}),
    },
    data: { ...base.data, ...(dataWriterRoleArn ? { writerRoleArn: dataWriterRoleArn } : {}) },
  });
  const problems = parsed.success
    ? placeholderProblems(parsed.data)
    : parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  if (problems.length > 0) throw new DeploymentConfigError(`invalid jube-r deployment config for ${name.data}: ${problems.join('; ')}`);
  return parsed.data!;
}

/** `a,b, c` -> ['a', 'b', 'c']: how a list arrives as one context value. */
const commaList = (value: string): string[] => value.split(',').map((item) => item.trim()).filter(Boolean);

/**
 * The callers from context: `-c tenantBinding=identity|single-orchestrator`, with `-c tenantRoleArn=`
 * (identity, an existing role) or `-c orchestratorRoleArn=` (single-orchestrator, required there).
 * Naming an orchestrator is never enough to switch modes: a single orchestrator is an explicit choice.
 */
function callersFromContext(
  envName: EnvironmentName,
  base: DeploymentConfigInput['callers'],
  context: { tenantBinding?: string | undefined; tenantRoleArn?: string | undefined; orchestratorRoleArn?: string | undefined },
): unknown {
  const refuse = (message: string): never => {
    throw new DeploymentConfigError(`invalid jube-r deployment config for ${envName}: ${message}`);
  };
  const kind = context.tenantBinding ?? base.kind;
  if (kind === 'single-orchestrator') {
    if (context.tenantRoleArn !== undefined) refuse('tenantRoleArn: a single orchestrator binds no tenant role; drop it, or use -c tenantBinding=identity');
    const orchestratorRoleArn = context.orchestratorRoleArn ?? (base.kind === 'single-orchestrator' ? base.orchestratorRoleArn : undefined);
    if (orchestratorRoleArn === undefined) refuse('callers: -c tenantBinding=single-orchestrator needs -c orchestratorRoleArn=<the one role that names tenants>');
    return { kind, orchestratorRoleArn };
  }
  if (kind === 'identity') {
    if (context.orchestratorRoleArn !== undefined) {
      refuse('orchestratorRoleArn: one role naming every tenant is the single-orchestrator binding, an explicit choice: pass -c tenantBinding=single-orchestrator with it');
    }
    const tenantRoleArn = context.tenantRoleArn ?? (base.kind === 'identity' ? base.tenantRoleArn : undefined);
    return { kind, ...(tenantRoleArn ? { tenantRoleArn } : {}) };
  }
  return refuse(`tenantBinding: ${JSON.stringify(kind)} is not identity or single-orchestrator`);
}

/**
 * What a config that is not dev's still lacks: stand-in values (the placeholder account, an unstated
 * quota) and a prebuilt image. Synthesis stays offline and needs no real value, but a staging or prod
 * template with them would deploy a stack nobody can call, one whose timeouts the account does not
 * allow, or one whose /packages describes another build than the one it runs. Pure.
 */
export function placeholderProblems(config: z.infer<typeof DeploymentConfigSchema>): string[] {
  if (config.envName === 'dev') return [];
  const inPlaceholderAccount = (arn: string | undefined) => arn !== undefined && arn.split(':')[4] === PLACEHOLDER_ACCOUNT;
  const callerRole = config.callers.kind === 'identity' ? config.callers.tenantRoleArn : config.callers.orchestratorRoleArn;
  const callerKey = config.callers.kind === 'identity' ? 'tenantRoleArn' : 'orchestratorRoleArn';
  return [
    ...(config.account === PLACEHOLDER_ACCOUNT ? [`account: ${PLACEHOLDER_ACCOUNT} is the placeholder account; pass -c account=<the real one>`] : []),
    ...(inPlaceholderAccount(callerRole) ? [`${callerKey}: ${callerRole} is in the placeholder account ${PLACEHOLDER_ACCOUNT}; pass -c ${callerKey}=<the real role>`] : []),
    ...(inPlaceholderAccount(config.data.writerRoleArn)
      ? [`data.writerRoleArn: in the placeholder account ${PLACEHOLDER_ACCOUNT}; pass -c dataWriterRoleArn=<the uploader's role>`]
      : []),
    ...(config.executeImageUri === undefined
      ? [
          'executeImageUri: staging and prod run a prebuilt image whose package facts were pulled from that very image; push one and pass ' +
            '-c executeImageUri=<account>.dkr.ecr.<region>.amazonaws.com/<repository>@sha256:<digest> with its facts (scripts/image-facts.sh; docs/deploying.md, "One image, one set of facts")',
        ]
      : []),
    ...(config.timeouts.integrationQuota.raisedBy?.startsWith(PLACEHOLDER)
      ? ['timeouts.integrationQuota.raisedBy: still the placeholder; pass -c integrationQuotaRaisedBy=<the Service Quotas request id or support case that raised it in this account and region>']
      : []),
  ];
}
