/**
 * Synthesizes an environment's stack the way `cdk synth` does (same buildApp, AwsSolutions
 * checks included, real handler and image paths) into a temporary directory, once per call.
 * CDK's built-in CloudFormation schema validation is off here: its engine takes many seconds to
 * start and these tests assert the template directly.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { buildApp, DEFAULT_PATHS, REPOSITORY_ROOT, type BuildAppOptions } from '../../../infra/lib/app.ts';
import { resolveDeploymentConfig, type ContextOverrides, type DeploymentConfig, type EnvironmentName } from '../../../infra/lib/config.ts';
import type { JubeRStack } from '../../../infra/lib/jube-r-stack.ts';
import { IMAGE_SOURCE_SUFFIX } from '../../../infra/lib/package-facts.ts';

export interface Synthesized {
  readonly config: DeploymentConfig;
  readonly stack: JubeRStack;
  readonly template: Template;
  /** The raw template JSON. */
  readonly json: CfnTemplate;
  readonly outdir: string;
  cleanup(): void;
}

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}
export interface CfnTemplate {
  readonly Resources: Record<string, CfnResource>;
}

/** The prebuilt image staging and prod run in these tests, and the digest its package facts record. */
export const FIXTURE_IMAGE_DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
export const FIXTURE_IMAGE_URI = `123456789012.dkr.ecr.eu-west-1.amazonaws.com/jube-r-execute@${FIXTURE_IMAGE_DIGEST}`;

/**
 * What an operator passes for staging and prod (which need a prebuilt image, and prod its raised
 * quota): the same values as `-c executeImageUri=... -c integrationQuotaRaisedBy=...`.
 */
export const DEPLOY_OVERRIDES: Readonly<Record<EnvironmentName, ContextOverrides>> = {
  dev: {},
  staging: { executeImageUri: FIXTURE_IMAGE_URI },
  prod: { executeImageUri: FIXTURE_IMAGE_URI, integrationQuotaRaisedBy: 'Service Quotas request 0123456789abcdef' },
};

/** The config `cdk synth -c env=<env>` resolves with DEPLOY_OVERRIDES. */
export const deployableConfig = (env: EnvironmentName): DeploymentConfig => resolveDeploymentConfig(env, DEPLOY_OVERRIDES[env]);

/** A shared VPC as the platform describes it (two AZs, one isolated subnet each, their own route table). */
export const SHARED_VPC: {
  kind: 'existing';
  vpcId: string;
  cidr: string;
  availabilityZones: string[];
  isolatedSubnetIds: string[];
  isolatedRouteTableIds: string[];
  dnsFirewall: 'rule-group-only';
} = {
  kind: 'existing',
  vpcId: 'vpc-0a1b2c3d4e5f60718',
  cidr: '10.0.0.0/16',
  availabilityZones: ['eu-west-1a', 'eu-west-1b'],
  isolatedSubnetIds: ['subnet-0a1b2c3d4e5f60711', 'subnet-0a1b2c3d4e5f60722'],
  isolatedRouteTableIds: ['rtb-0a1b2c3d4e5f60733', 'rtb-0a1b2c3d4e5f60733'],
  dnsFirewall: 'rule-group-only',
};

/** The R version the fixture's package facts claim: no real R's, so a bundle that serves it came from them. */
export const FIXTURE_IMAGE_R_VERSION = '0.0.0-image-fixture';
const factsDirectories = new Map<string, string>();

/**
 * A package-facts directory as scripts/image-facts.sh extracts it (manifest.json and a neighbour,
 * and beside it the record of the image they came from, `digest`), made once per process and digest
 * from the host's manifest with the R version replaced.
 */
export function fixturePackageFacts(digest: string = FIXTURE_IMAGE_DIGEST): string {
  const made = factsDirectories.get(digest);
  if (made) return made;
  const base = mkdtempSync(join(tmpdir(), 'jube-r-package-facts-'));
  const directory = join(base, 'image-packages');
  mkdirSync(join(directory, 'help'), { recursive: true });
  const host = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'layers/packages/manifest.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(directory, 'manifest.json'), `${JSON.stringify({ ...host, rVersion: FIXTURE_IMAGE_R_VERSION }, null, 2)}\n`);
  writeFileSync(join(directory, 'help', 'stats.json'), '{"fixture":"a neighbour of the manifest"}\n');
  writeFileSync(`${directory}${IMAGE_SOURCE_SUFFIX}`, `${JSON.stringify({ image: `fixture@${digest}`, id: `sha256:${'9'.repeat(64)}`, digest })}\n`);
  process.on('exit', () => rmSync(base, { recursive: true, force: true }));
  factsDirectories.set(digest, directory);
  return directory;
}

export function synthesize(
  envOrConfig: EnvironmentName | DeploymentConfig,
  extend?: (stack: JubeRStack) => void,
  options: Partial<BuildAppOptions> = {},
): Synthesized {
  const config = typeof envOrConfig === 'string' ? deployableConfig(envOrConfig) : envOrConfig;
  const outdir = mkdtempSync(join(tmpdir(), `jube-r-cdk-${config.envName}-`));
  try {
    // Facts pulled from the very image the stack runs (its digest), as scripts/image-facts.sh records them.
    const digest = config.executeImageUri?.split('@')[1];
    const paths = { ...DEFAULT_PATHS, packageFactsDirectory: fixturePackageFacts(digest) };
    const { app, stack } = buildApp({ config, outdir, paths, builtinCloudFormationValidation: false, ...options });
    extend?.(stack);
    const assembly = app.synth();
    const json = assembly.getStackArtifact(stack.artifactId).template as CfnTemplate;
    return { config, stack, template: Template.fromJSON(json), json, outdir, cleanup: () => rmSync(outdir, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(outdir, { recursive: true, force: true });
    throw error;
  }
}

/** Resources of one type, by logical id. */
export function resourcesOf(json: CfnTemplate, type: string): [string, CfnResource][] {
  return Object.entries(json.Resources).filter(([, r]) => r.Type === type);
}

/** The logical id of a construct's CloudFormation resource (its default child). */
export function logicalIdOf(construct: IConstruct): string {
  const element = construct instanceof CfnElement ? construct : construct.node.defaultChild;
  if (!(element instanceof CfnElement)) throw new Error(`${construct.node.path} has no CloudFormation resource`);
  return Stack.of(construct).getLogicalId(element);
}

export interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource?: unknown;
  readonly Principal?: unknown;
  readonly Condition?: unknown;
  readonly Sid?: string;
}

export const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);

/** Every IAM statement granted to a role: its inline policies and every AWS::IAM::Policy attached to it. */
export function statementsOfRole(json: CfnTemplate, roleLogicalId: string): Statement[] {
  const role = json.Resources[roleLogicalId];
  if (!role) throw new Error(`no role ${roleLogicalId}`);
  const inline = ((role.Properties?.['Policies'] ?? []) as { PolicyDocument: { Statement: Statement[] } }[]).flatMap(
    (p) => p.PolicyDocument.Statement,
  );
  const attached = resourcesOf(json, 'AWS::IAM::Policy')
    .filter(([, p]) => JSON.stringify(p.Properties?.['Roles']).includes(`"${roleLogicalId}"`))
    .flatMap(([, p]) => (p.Properties?.['PolicyDocument'] as { Statement: Statement[] }).Statement);
  return [...inline, ...attached];
}

/** Every identity-policy statement in the template, with the role it belongs to. */
export function allRoleStatements(json: CfnTemplate): { role: string; statement: Statement }[] {
  return resourcesOf(json, 'AWS::IAM::Role').flatMap(([id]) =>
    statementsOfRole(json, id).map((statement) => ({ role: id, statement })),
  );
}
