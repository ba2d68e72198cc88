/**
 * What the stack tells the validate function about isolation, for each tenancy: PER_TENANT with the
 * configured mode, or SHARED with the reason the config had to state (the three real environments
 * are all PER_TENANT, stack.test.ts; this covers the shared path without a synth).
 */
import { describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../../layers/config/service-config.ts';
import { DeploymentConfigSchema, ENVIRONMENTS, type DeploymentConfigInput } from '../../../infra/lib/config.ts';
import { declaredSandboxLayers, validateEnvironment } from '../../../infra/lib/environment-variables.ts';
import { timeoutChainOrThrow } from '../../../infra/lib/timeout-chain.ts';

function environmentOf(execute: Partial<DeploymentConfigInput['execute']>) {
  const config = DeploymentConfigSchema.parse({ ...ENVIRONMENTS.dev, execute: { ...ENVIRONMENTS.dev.execute, ...execute } });
  const chain = timeoutChainOrThrow({
    maxScriptSeconds: config.timeouts.maxScriptSeconds,
    killGraceSeconds: config.timeouts.killGraceSeconds,
    executeOverheadSeconds: config.timeouts.executeOverheadSeconds,
    executeColdStartHeadroomMs: config.timeouts.executeColdStartHeadroomSeconds * 1000,
    integrationQuotaSeconds: config.timeouts.integrationQuota.seconds,
  });
  return { config, variables: validateEnvironment(config, chain, { executeFunctionName: 'fn', dataBucketName: 'bucket', sessionBucketName: 'sessions', callerRoleArn: 'arn:aws:iam::123456789012:role/jube-r-tenants' }) };
}

describe('isolation settings the stack passes to the validate function', () => {
  it.each(['tenant', 'session', 'run'] as const)('PER_TENANT with isolation %s', (isolation) => {
    const { config, variables } = environmentOf({ tenancy: 'per-tenant', isolation });
    expect(readServiceConfig(variables).isolation).toEqual({ mode: isolation, tenancy: 'PER_TENANT', sharedTenancyReason: undefined });
    expect(declaredSandboxLayers(config)).toContain('lambda-per-tenant-isolation');
  });

  it('SHARED carries its stated reason, and the deployment claims no per-tenant layer', () => {
    const reason = 'sandbox account that runs only the smoke tests';
    const { config, variables } = environmentOf({ tenancy: { kind: 'shared', reason } });
    expect(variables['JUBE_R_SHARED_TENANCY_REASON']).toBe(reason);
    expect(readServiceConfig(variables).isolation).toEqual({ mode: 'session', tenancy: 'SHARED', sharedTenancyReason: reason });
    expect(declaredSandboxLayers(config)).not.toContain('lambda-per-tenant-isolation');
  });
});
