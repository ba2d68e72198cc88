/**
 * The whole service on one machine: the API server (validate handler) and, unless
 * JUBE_R_LAMBDA_ENDPOINT points elsewhere (e.g. `sam local start-lambda`), a local Lambda Invoke
 * endpoint running the execute handler. The validate handler is wired to that endpoint by
 * configuration alone, exactly as it would be to SAM or to AWS.
 */
import { localExecuteTimeoutMs, readServiceConfig, type ServiceConfig } from '../../../layers/config/service-config.ts';
import type { SandboxStatus } from '../../../layers/contract/api.ts';
import { configuredSandbox } from '../../../layers/contract/sandbox-layers.ts';
import { createApi } from '../../api/create-api.ts';
import { startApiServer, type ApiServer } from './api-server.ts';
import { createExecuteRuntime, localStackEnv } from './execute-runtime.ts';
import type { ExecuteRuntime } from './runtime.ts';
import { startLambdaEndpoint, type LambdaEndpoint } from './lambda-endpoint.ts';
import { localSigV4FromEnv } from './sigv4-verifier.ts';

export interface LocalStackOptions {
  readonly host: string;
  readonly port: number;
  /** Port of the local Lambda endpoint; 0 picks a free one. */
  readonly lambdaPort: number;
  readonly env: NodeJS.ProcessEnv;
}

export interface LocalStack {
  readonly url: string;
  /** The Lambda endpoint the validate handler invokes (local or external). */
  readonly lambdaEndpoint: string;
  readonly localLambda: boolean;
  readonly runtimeKind: ExecuteRuntime['kind'] | undefined;
  readonly config: ServiceConfig;
  /** Requests must be SigV4-signed with JUBE_R_LOCAL_SIGV4_* keys. */
  readonly sigV4: boolean;
  /** Loads the validator and the execute handler (with its warm runners) in the background. */
  warm(): Promise<void>;
  close(): Promise<void>;
}


/** The execute side's own report of its layers (imported late: it brings execa). */
async function detectSandbox(env: NodeJS.ProcessEnv): Promise<string[]> {
  const { readRuntimeSettings, activeSandboxLayers } = await import('../../execute/create-handler.ts');
  return activeSandboxLayers(readRuntimeSettings(env));
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const env = localStackEnv(options.env);
  const baseConfig = readServiceConfig(env);
  const sigV4 = localSigV4FromEnv(env);
  let runtime: ExecuteRuntime | undefined;
  let lambda: LambdaEndpoint | undefined;
  let api: ApiServer | undefined;
  let sandbox: () => Promise<SandboxStatus>;

  try {
    if (baseConfig.lambdaEndpoint === undefined) {
      runtime = await createExecuteRuntime(env, baseConfig.executeFunctionName);
      lambda = await startLambdaEndpoint({
        host: '127.0.0.1',
        port: options.lambdaPort,
        functionName: baseConfig.executeFunctionName,
        runtime,
        maxInflight: baseConfig.maxInflightExecute,
        perTenant: baseConfig.executePerTenant,
        functionTimeoutMs: localExecuteTimeoutMs(baseConfig.scriptTimeoutSecondsMax, baseConfig.killGraceSeconds),
      });
    }
    const config: ServiceConfig = { ...baseConfig, lambdaEndpoint: baseConfig.lambdaEndpoint ?? lambda!.url };

    const configured = configuredSandbox(config.declaredSandboxLayers);
    const kind = runtime?.kind;
    let detected: Promise<SandboxStatus> | undefined;
    sandbox = async () => {
      if (configured) return configured;
      if (kind !== 'process') return { source: 'unknown', layers: [] };
      detected ??= detectSandbox(env).then(
        (layers): SandboxStatus => ({ source: 'detected', layers }),
        (): SandboxStatus => ({ source: 'unknown', layers: [] }),
      );
      return detected;
    };

    // The host-R runtime runs every key in this one process tree: it cannot isolate keys, and says so.
    const isolationBoundary = kind === 'container' && config.executePerTenant ? 'container-per-key' : 'none';
    const app = createApi({
      config, env, sandbox, isolationBoundary,
      warm: async () => (runtime ? runtime.warmStatus() : { state: 'unknown' }),
    });
    api = await startApiServer({
      host: options.host,
      port: options.port,
      handler: app.handler,
      maxRequestBodyBytes: config.maxRequestBodyBytes,
      functionTimeoutMs: config.lambdaClientTimeoutMs + 5_000,
      sigV4,
    });
    const started = { api, lambda, runtime };

    return {
      url: api.url,
      lambdaEndpoint: config.lambdaEndpoint!,
      localLambda: lambda !== undefined,
      runtimeKind: kind,
      config,
      sigV4: sigV4 !== undefined,
      warm: async () => {
        // The host-R runtime's handler starts its warm runners as it is created: before the first call.
        await Promise.all([app.warm(), sandbox(), started.runtime?.warm?.()]);
      },
      close: async () => {
        // Stop accepting, end every R run, then let the answers already under way go out.
        const closing = [started.api.close(), started.lambda?.close()];
        await started.runtime?.close();
        const deadline = Date.now() + 5_000;
        while (started.api.inflight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
        started.api.dropConnections();
        started.lambda?.dropConnections();
        await Promise.race([Promise.all(closing), new Promise((r) => setTimeout(r, 2_000).unref())]);
      },
    };
  } catch (error) {
    await api?.close();
    await lambda?.close();
    await runtime?.close();
    throw error;
  }
}
