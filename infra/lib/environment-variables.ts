/**
 * The JUBE_R_* variables the stack sets on each function: the timeout chain and the limits that
 * layers/config/service-config.ts reads, so code and infrastructure cannot disagree. Pure.
 */
import {
  CAPSULE_LAYERS,
  EXECUTE_HANDLER_LAYERS,
  HYGIENE_LAYERS,
  PLATFORM_LAYERS,
  R_TIME_LIMIT_LAYER,
  RLIMITS_LAYER,
  VALIDATION_LAYERS,
} from '../../layers/contract/sandbox-layers.ts';
import type { EnvironmentOf } from '../../layers/config/environment.ts';
import type { ServiceConfigKey } from '../../layers/config/service-config.ts';
import type { RuntimeSettingsKey } from '../../functions/execute/runtime-settings.ts';
import type { DeploymentConfig } from './config.ts';
import { rAddressSpaceLimitBytes } from './execute-memory.ts';
import type { TimeoutChain } from './timeout-chain.ts';

/** A variable one of the functions reads: the keys of their environment readers' shapes. */
export type FunctionVariable = ServiceConfigKey | RuntimeSettingsKey;

/**
 * Holds an environment to the variables the code reads: a key that no reader has (a typo, a
 * renamed variable) fails the type-check here instead of being silently ignored in Lambda.
 */
function variables<T extends EnvironmentOf<FunctionVariable>>(vars: T & Record<Exclude<keyof T, FunctionVariable>, never>): Record<string, string> {
  return vars as Record<string, string>;
}

/** Values only known at deploy time (CloudFormation tokens), passed in by the stack. */
export interface DeployTimeNames {
  readonly executeFunctionName: string;
  readonly dataBucketName: string;
  /** The session store's bucket (infra/lib/constructs/session-store.ts). */
  readonly sessionBucketName: string;
  /** The callers' role: the tenant role (identity) or the orchestrator's; a token when the stack creates it. */
  readonly callerRoleArn: string;
}

/**
 * Shared by both functions: the script's time limits as both sides must apply them, and R's memory
 * limit (the execute function applies it; the validate function reports it in GET /health).
 */
function scriptLimits(config: DeploymentConfig, chain: TimeoutChain) {
  return {
    // Marks a deployed function: the execute runtime refuses its test-only switches where it is set.
    JUBE_R_DEPLOYMENT: config.envName,
    JUBE_R_SCRIPT_TIMEOUT_SECONDS: String(config.timeouts.defaultScriptSeconds),
    JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX: String(chain.rLimitMaxSeconds),
    JUBE_R_KILL_GRACE_SECONDS: String(chain.killGraceSeconds),
    JUBE_R_RLIMIT_AS_BYTES: String(rAddressSpaceLimitBytes(config.execute.memoryMiB)),
  };
}

/** The sandbox layers this deployment provides, as GET /health reports them (JUBE_R_SANDBOX_LAYERS). */
export function declaredSandboxLayers(config: DeploymentConfig): string[] {
  return [
    ...VALIDATION_LAYERS,
    ...EXECUTE_HANDLER_LAYERS,
    RLIMITS_LAYER,
    R_TIME_LIMIT_LAYER,
    // Lambda refuses no_new_privs, so of the capsule only what needs no kernel feature arms there
    // (CAPSULE_LAYERS.landlock and .seccomp never appear in a deployment).
    CAPSULE_LAYERS.preload,
    CAPSULE_LAYERS.dispatch,
    CAPSULE_LAYERS.got,
    HYGIENE_LAYERS.environmentSweep,
    HYGIENE_LAYERS.writableWipe,
    HYGIENE_LAYERS.ipcCleanup,
    PLATFORM_LAYERS.microvm,
    ...(config.execute.tenancy === 'per-tenant' ? [PLATFORM_LAYERS.perTenantIsolation] : []),
    PLATFORM_LAYERS.noCredentialsInside,
    PLATFORM_LAYERS.executeRoleLogsOnly,
    PLATFORM_LAYERS.isolatedSubnets,
    ...(dnsFirewallAssociated(config) ? [PLATFORM_LAYERS.dnsFirewall] : []),
    PLATFORM_LAYERS.readOnlyImage,
  ];
}

/** Whether the stack associates its DNS Firewall rule group with the execute function's VPC. */
export function dnsFirewallAssociated(config: Pick<DeploymentConfig, 'vpc'>): boolean {
  return config.vpc.kind === 'create' || config.vpc.dnsFirewall === 'associate';
}

export function validateEnvironment(
  config: DeploymentConfig,
  chain: TimeoutChain,
  names: DeployTimeNames,
): Record<string, string> {
  return variables({
    ...scriptLimits(config, chain),
    JUBE_R_LAMBDA_CLIENT_TIMEOUT_MS: String(chain.lambdaClientTimeoutMs),
    JUBE_R_RESPONSE_RESERVE_MS: String(chain.validateResponseReserveMs),
    JUBE_R_MAX_INFLIGHT_EXECUTE: String(config.execute.maxInflight),
    JUBE_R_MAX_REQUEST_BODY_BYTES: String(config.api.maxRequestBodyBytes),
    JUBE_R_EXECUTE_FUNCTION_NAME: names.executeFunctionName,
    JUBE_R_EXECUTE_TENANCY: config.execute.tenancy === 'per-tenant' ? 'PER_TENANT' : 'SHARED',
    ...(config.execute.tenancy === 'per-tenant' ? {} : { JUBE_R_SHARED_TENANCY_REASON: config.execute.tenancy.reason }),
    JUBE_R_ISOLATION: config.execute.isolation,
    // Who may name which tenant: the API checks the path's tenant against the caller's identity.
    JUBE_R_TENANT_BINDING: config.callers.kind,
    JUBE_R_CALLER_ROLE_ARN: names.callerRoleArn,
    JUBE_R_DATA_BUCKET: names.dataBucketName,
    JUBE_R_PRESIGN_TTL_SECONDS: String(config.data.presignTtlSeconds),
    JUBE_R_SESSION_BUCKET: names.sessionBucketName,
    JUBE_R_SANDBOX_LAYERS: declaredSandboxLayers(config).join(','),
    // Empty means AWS. Declared so `sam local ... --env-vars` can point it at `sam local start-lambda`
    // (SAM only overrides variables the template declares).
    JUBE_R_LAMBDA_ENDPOINT: '',
  });
}

export function executeEnvironment(config: DeploymentConfig, chain: TimeoutChain, names: Pick<DeployTimeNames, 'dataBucketName'>): Record<string, string> {
  return variables({
    ...scriptLimits(config, chain),
    // The one host a `url` dataframe source may name (functions/execute/run/data-sources.ts).
    JUBE_R_DATA_BUCKET: names.dataBucketName,
  });
}
