/**
 * The API function (functions/api/): the API-facing Node 24 handler (middy + zod +
 * tree-sitter-r), bundled by the locally installed esbuild as one ESM file. Its data files ship beside the bundle (not in
 * a Lambda layer): the loaders look beside the running module, the files are ~1.5 MB and change
 * with the code, so one artifact keeps code and rules from ever disagreeing.
 *
 * The AWS SDK is bundled too (`bundleAwsSDK`): otherwise the runtime's own SDK would run, not the
 * version package-lock.json pins and the tests mock, and one that predates `TenantId` would fail
 * every PER_TENANT invoke.
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { TREE_SITTER_WASM_FILES } from '../../../layers/parser/wasm-files.ts';
import { ESM_REQUIRE_BANNER } from '../esm-bundle.ts';
import { readPackageFacts } from '../package-facts.ts';
import { acknowledgeXrayWildcard, functionIdentity } from './function-identity.ts';

/**
 * Repository-relative files copied beside the bundle (the loaders' default locations). The package
 * manifest and help pages are not among them: they come from the image (packageFactsDirectory).
 */
export const API_BUNDLE_FILES = ['layers/rules/script-rules.json', 'layers/rules/capabilities.json', ...TREE_SITTER_WASM_FILES] as const;

/** The Lambda runtime and the esbuild target that matches it. */
export const API_RUNTIME = lambda.Runtime.NODEJS_24_X;
export const API_ESBUILD_TARGET = 'node24';

export interface ApiFunctionProps {
  readonly repositoryRoot: string;
  /** The handler module (functions/api/handler.ts), exporting `handler`. */
  readonly entry: string;
  /** The image's package facts (infra/lib/package-facts.ts), copied whole beside the bundle. */
  readonly packageFactsDirectory: string;
  /** The digest of the prebuilt image the execute function runs, which the facts must be pulled from. */
  readonly imageDigest: string | undefined;
  readonly memoryMiB: number;
  readonly architecture: 'x86_64' | 'arm64';
  readonly timeoutSeconds: number;
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

export class ApiFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    // Read now, so a missing or malformed directory stops synthesis before anything is bundled.
    const facts = readPackageFacts(props.packageFactsDirectory, { imageDigest: props.imageDigest });
    ({ logGroup: this.logGroup, role: this.role } = functionIdentity(this, {
      roleDescription: 'jube-r validate function: its log group, invoking the execute function, reading the data bucket',
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
    }));

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      description: 'jube-r validate: the private API handler (health, packages, validate, execute)',
      entry: props.entry,
      handler: 'handler',
      runtime: API_RUNTIME,
      architecture: props.architecture === 'arm64' ? lambda.Architecture.ARM_64 : lambda.Architecture.X86_64,
      memorySize: props.memoryMiB,
      timeout: Duration.seconds(props.timeoutSeconds),
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      tracing: lambda.Tracing.ACTIVE,
      projectRoot: props.repositoryRoot,
      depsLockFilePath: `${props.repositoryRoot}/package-lock.json`,
      environment: { ...props.environment },
      bundling: {
        format: nodejs.OutputFormat.ESM,
        target: API_ESBUILD_TARGET,
        bundleAwsSDK: true,
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        minify: true,
        sourceMap: false,
        // The installed esbuild bundles on this machine; synthesis never needs Docker.
        forceDockerBundling: false,
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir: string, outputDir: string) => [
            ...API_BUNDLE_FILES.map((file) => `cp "${inputDir}/${file}" "${outputDir}/"`),
            // Every file the image's package-facts step wrote, as laid out beside its manifest.
            `cp -R "${facts.directory}/." "${outputDir}/"`,
          ],
        },
      },
    });
    acknowledgeXrayWildcard(this.role);
  }
}
