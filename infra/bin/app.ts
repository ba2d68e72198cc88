/**
 * The CDK entry point (cdk.json: `npx tsx infra/bin/app.ts`). Resolves the environment from
 * `-c env=dev|staging|prod` (plus the overrides config.ts allows), stages the r-image build
 * context, and builds the stack. Nothing here needs AWS credentials or Docker.
 */
import { resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { buildApp, DEFAULT_PATHS } from '../lib/app.ts';
import { CONTEXT_OVERRIDES, resolveDeploymentConfig, type ContextOverrides } from '../lib/config.ts';
import { stageImageContext } from '../lib/image-context.ts';

const app = new App();
const context = (key: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  return value === undefined || value === null ? undefined : String(value);
};
const overrides: ContextOverrides = Object.fromEntries(CONTEXT_OVERRIDES.map((key) => [key, context(key)]));
const config = resolveDeploymentConfig(context('env'), overrides);

const imageDirectory = stageImageContext();
// The image's package facts (npm run image:build or scripts/image-facts.sh extract them, to
// JUBE_R_PACKAGE_FACTS_DIR when that is set); another directory only by intent.
const packageFacts = context('packageFactsDirectory') ?? (process.env['JUBE_R_PACKAGE_FACTS_DIR'] || undefined);
buildApp({ app, config, paths: { ...DEFAULT_PATHS, imageDirectory, ...(packageFacts ? { packageFactsDirectory: resolve(packageFacts) } : {}) } });
app.synth();
