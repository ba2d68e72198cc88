/**
 * cdk-nag's AwsSolutions pack runs inside every jube-r app (the same buildApp as `cdk synth`):
 * an unacknowledged finding stops synthesis, and every acknowledgment carries a written reason.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import type { CfnRestApi } from 'aws-cdk-lib/aws-apigateway';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, DEFAULT_PATHS } from '../../../infra/lib/app.ts';
import { resolveDeploymentConfig } from '../../../infra/lib/config.ts';
import { fixturePackageFacts, synthesize, type Synthesized } from './synth-fixture.ts';

/** Every acknowledgment recorded under `root`: rule id -> reason, with the construct it sits on. */
function acknowledgmentsUnder(root: IConstruct): { path: string; id: string; reason: string }[] {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
      .map(([id, reason]) => ({ path: construct.node.path, id, reason })),
  );
}

describe('cdk-nag AwsSolutions checks', () => {
  let dev: Synthesized;
  beforeAll(() => {
    dev = synthesize('dev');
  }, 60_000);
  afterAll(() => dev?.cleanup());

  it('pass for the real stack: synthesis succeeded with the pack registered and no unacknowledged finding', () => {
    expect(dev.template).toBeDefined();
  });

  it('acknowledge each finding on the construct it concerns, with a written reason', () => {
    // CDK acknowledges a few of its own CloudFormation-Validate false positives; these are ours.
    const acknowledged = acknowledgmentsUnder(dev.stack).filter((a) => a.id.startsWith('AwsSolutions::'));

    expect(acknowledged.map((a) => `${a.id.replace(/^AwsSolutions::/, '')} at ${a.path.replace(`${dev.stack.stackName}/`, '')}`).sort()).toEqual(
      [
        'AwsSolutions-APIG3 at Api/Api',
        'AwsSolutions-COG4 at Api/Api',
        // X-Ray's actions and ENI descriptions have no resource-level permissions.
        'AwsSolutions-IAM5[Resource::*] at Execute/Role',
        'AwsSolutions-IAM5[Resource::*] at Validate/Role',
        'AwsSolutions-IAM5[Resource::arn:aws:ec2:eu-west-1:<AWS::AccountId>:network-interface/*] at Execute/Role',
        `AwsSolutions-IAM5[Resource::<${dev.stack.getLogicalId(dev.stack.data.bucket.node.defaultChild as s3.CfnBucket)}.Arn>/*] at Validate/Role`,
        `AwsSolutions-IAM5[Resource::<${dev.stack.getLogicalId(dev.stack.sessions.bucket.node.defaultChild as s3.CfnBucket)}.Arn>/*] at Validate/Role`,
        // ABAC: the tenant role's resources end in its own jube-tenant tag.
        `AwsSolutions-IAM5[Resource::<${dev.stack.getLogicalId(dev.stack.data.bucket.node.defaultChild as s3.CfnBucket)}.Arn>/<aws:PrincipalTag/jube-tenant>/*] at Callers/TenantRole`,
        `AwsSolutions-IAM5[Resource::arn:aws:execute-api:eu-west-1:<AWS::AccountId>:<${dev.stack.getLogicalId(dev.stack.api.api.node.defaultChild as CfnRestApi)}>/dev/*/t/<aws:PrincipalTag/jube-tenant>/*] at Callers/TenantRole`,
        'AwsSolutions-S1 at Data/AccessLogs',
      ].sort(),
    );
    for (const { path, id, reason } of acknowledged) {
      expect(path.startsWith(`${dev.stack.stackName}/`), path).toBe(true);
      expect(reason.length, `${id} at ${path}`).toBeGreaterThan(40);
    }
  });

  it('stop synthesis at a new unacknowledged finding', () => {
    // Prepare: the real app plus one bucket that breaks AwsSolutions-S1/S10.
    const outdir = mkdtempSync(join(tmpdir(), 'jube-r-cdk-nag-'));
    try {
      const paths = { ...DEFAULT_PATHS, packageFactsDirectory: fixturePackageFacts() };
      const { app, stack } = buildApp({ config: resolveDeploymentConfig('dev'), outdir, paths, builtinCloudFormationValidation: false });
      new s3.Bucket(stack, 'UnloggedBucket');

      // Act
      let failure: unknown;
      try {
        app.synth();
      } catch (error) {
        failure = error;
      }

      // Assess
      expect(failure).toBeInstanceOf(Error);
      const message = (failure as Error).message;
      expect(message).toContain('AwsSolutions-S1');
      expect(message).toContain(`${stack.stackName}/UnloggedBucket`);
      // Nothing else in the stack is reported.
      expect(message).not.toMatch(/JubeR-dev\/(Network|Data|Execute|Validate|Api|Callers)\//);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 60_000);
});
