/**
 * Builds the CDK app for one environment: the stack plus cdk-nag's AwsSolutions checks. Used by
 * infra/bin/app.ts (the real entry) and by the tests, so both synthesize exactly the same thing.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import cdkJson from '../../cdk.json' with { type: 'json' };
import type { DeploymentConfig } from './config.ts';
import { JubeRStack, type JubeRPaths } from './jube-r-stack.ts';
import { DEFAULT_PACKAGE_FACTS_DIR } from './package-facts.ts';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const DEFAULT_PATHS: JubeRPaths = {
  repositoryRoot: REPOSITORY_ROOT,
  apiEntry: join(REPOSITORY_ROOT, 'functions/api/handler.ts'),
  imageDirectory: join(REPOSITORY_ROOT, 'r-image'),
  packageFactsDirectory: join(REPOSITORY_ROOT, DEFAULT_PACKAGE_FACTS_DIR),
};

/** cdk.json's context without the environment selector, which `-c env=` owns. */
const { env: _defaultEnv, ...CDK_JSON_FLAGS } = cdkJson.context;

/**
 * Context every jube-r app synthesizes with: cdk.json's feature flags (the ones `cdk init` writes
 * for this aws-cdk-lib), applied here too so the tests' App and the CLI's App build the same
 * template, plus asset metadata, which the CLI enables by default and SAM reads.
 */
export const APP_CONTEXT: Readonly<Record<string, unknown>> = {
  'aws:cdk:enable-asset-metadata': true,
  ...CDK_JSON_FLAGS,
};

export interface BuildAppOptions {
  readonly config: DeploymentConfig;
  readonly paths?: JubeRPaths;
  /** An existing App (the CLI's); tests let buildApp create one. */
  readonly app?: App;
  readonly outdir?: string;
  /**
   * CDK's built-in CloudFormation schema validation (on by default, as in `cdk synth`). Its engine
   * takes seconds to start, so unit tests that assert the template directly may turn it off.
   */
  readonly builtinCloudFormationValidation?: boolean;
}

export function buildApp(options: BuildAppOptions): { app: App; stack: JubeRStack } {
  const app =
    options.app ??
    new App({
      ...(options.outdir ? { outdir: options.outdir } : {}),
      builtinCloudFormationValidation: options.builtinCloudFormationValidation ?? true,
    });
  for (const [key, value] of Object.entries(APP_CONTEXT)) {
    if (app.node.tryGetContext(key) === undefined) app.node.setContext(key, value);
  }
  const { config } = options;
  const stack = new JubeRStack(app, config.stackName, {
    config,
    paths: options.paths ?? DEFAULT_PATHS,
    env: { region: config.region, ...(config.account ? { account: config.account } : {}) },
    description: `jube-r (${config.envName}): sandboxed R analytics behind a private API`,
    // Stack tags (@aws-cdk/core:explicitStackTags): CloudFormation puts them on every resource it can.
    tags: { service: 'jube-r', environment: config.envName },
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { app, stack };
}
