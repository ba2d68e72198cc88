/**
 * The validate function: the API-facing Node 20 handler (middy + zod + tree-sitter-r), bundled
 * by the locally installed esbuild as one ESM file. Its data files ship beside the bundle (not in
 * a Lambda layer): the loaders look beside the running module, the files are ~1.5 MB and change
 * with the code, so one artifact keeps code and rules from ever disagreeing.
 */
import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { TREE_SITTER_WASM_FILES } from '../../../layers/parser/wasm-files.ts';
import { ESM_REQUIRE_BANNER } from '../esm-bundle.ts';
import { functionIdentity } from './function-identity.ts';

/** Repository-relative files copied beside the bundle (the loaders' default locations). */
export const VALIDATE_BUNDLE_FILES = [
  'layers/rules/sandbox-rules.json',
  'layers/packages/manifest.json',
  ...TREE_SITTER_WASM_FILES,
] as const;

export interface ValidateFunctionProps {
  readonly repositoryRoot: string;
  /** The handler module (functions/validate/handler.ts), exporting `handler`. */
  readonly entry: string;
  readonly memoryMiB: number;
  readonly timeoutSeconds: number;
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

export class ValidateFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ValidateFunctionProps) {
    super(scope, id);
    ({ logGroup: this.logGroup, role: this.role } = functionIdentity(this, {
      roleDescription: 'jube-r validate function: its log group, invoking the execute function, reading the data bucket',
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
    }));

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      description: 'jube-r validate: the private API handler (health, packages, validate, execute)',
      entry: props.entry,
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_20_X,
      architecture: lambda.Architecture.X86_64,
      memorySize: props.memoryMiB,
      timeout: Duration.seconds(props.timeoutSeconds),
      role: this.role,
      logGroup: this.logGroup,
      projectRoot: props.repositoryRoot,
      depsLockFilePath: `${props.repositoryRoot}/package-lock.json`,
      environment: { ...props.environment },
      bundling: {
        format: nodejs.OutputFormat.ESM,
        target: 'node20',
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        minify: true,
        sourceMap: false,
        // The installed esbuild bundles on this machine; synthesis never needs Docker.
        forceDockerBundling: false,
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir: string, outputDir: string) =>
            VALIDATE_BUNDLE_FILES.map((file) => `cp "${inputDir}/${file}" "${outputDir}/"`),
        },
      },
    });
    const node20 =
      'The project targets Node 20 (package.json engines, esbuild target node20). Lambda deprecated nodejs20.x on 2026-04-30 and ' +
      'blocks creating functions with it from 2027-02-01: move the codebase and this runtime to Node 22/24 together before then.';
    Validations.of(this.function).acknowledge(
      { id: 'AwsSolutions::AwsSolutions-L1', reason: node20 },
      { id: 'CloudFormation-Validate::W2531', reason: node20 },
    );
  }
}
