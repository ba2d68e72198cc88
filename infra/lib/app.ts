/**
 * Builds the CDK app for one environment: the stack plus cdk-nag's AwsSolutions checks. Used by
 * infra/bin/app.ts (the real entry) and by the tests, so both synthesize exactly the same thing.
 */
import { App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { DeploymentConfig } from './config.ts';
import { JubeRStack, type JubeRPaths } from './jube-r-stack.ts';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const DEFAULT_PATHS: JubeRPaths = {
  repositoryRoot: REPOSITORY_ROOT,
  validateEntry: join(REPOSITORY_ROOT, 'functions/validate/handler.ts'),
  imageDirectory: join(REPOSITORY_ROOT, 'r-image'),
};

/**
 * Context every jube-r app synthesizes with, set here rather than only in cdk.json so the tests'
 * App and the CLI's App build the same template.
 */
export const APP_CONTEXT = {
  // The CLI enables asset metadata by default; SAM reads it, so a bare App (tests) does too.
  'aws:cdk:enable-asset-metadata': true,
  // Server access logs are granted to the logging service by bucket policy, not by ACL.
  '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy': true,
  '@aws-cdk/aws-iam:minimizePolicies': true,
  '@aws-cdk/aws-apigateway:disableCloudWatchRole': false,
  // Would add a custom-resource Lambda; nothing in the stack uses the default security group.
  '@aws-cdk/aws-ec2:restrictDefaultSecurityGroup': false,
} as const;

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
  });
  Tags.of(stack).add('service', 'jube-r');
  Tags.of(stack).add('environment', config.envName);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { app, stack };
}
