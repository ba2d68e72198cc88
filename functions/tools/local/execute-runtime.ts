/**
 * How the local stack runs the execute function behind its Lambda Invoke endpoint: in-process with
 * host R (the default) or inside the r-image container through the Lambda Runtime API emulator
 * (JUBE_R_EXECUTE_RUNTIME=container). Either way the endpoint sees the same outcome shape that
 * Lambda's Invoke API reports: a payload, or a function error.
 */
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context } from 'aws-lambda';
import { readServiceConfig } from '../../../layers/config/service-config.ts';
import { tenantEnvironmentCap } from '../../../layers/contract/isolation.ts';
import { lambdaContext } from './api-gateway-event.ts';
import { killDescendantGroups } from './process-tree.ts';
import type { WarmStatus } from '../../../layers/contract/api.ts';
import type { ExecuteRuntime, InvokeAnswer } from './runtime.ts';

export type ExecuteHandler = ((event: unknown, context: Context) => Promise<unknown>) & {
  readonly warmStatus?: () => WarmStatus;
  readonly close?: () => Promise<void>;
};

export interface ProcessRuntimeOptions {
  readonly functionName: string;
  /** The execute handler; by default the Lambda's (create-handler.ts), created on first use. */
  readonly loadHandler?: () => Promise<ExecuteHandler>;
  /** The configuration the default handler reads (localStackEnv's defaults apply). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * What the local stack runs with where its environment does not say (an empty value counts as
 * unset, as everywhere, layers/config/environment.ts): the warm start on, as in the image
 * (docs/execute-runtime.md, "Warm start"), and in the container runtime PER_TENANT tenancy, as every
 * deployed stack (one container per isolation key; every invoke carries its TenantId). The
 * host-process runtime keeps SHARED: it runs every key in one process tree and cannot isolate them
 * (GET /health says `boundary: none`).
 */
export function localStackEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const unset = (key: string) => env[key] === undefined || env[key] === '';
  return {
    ...env,
    ...(unset('JUBE_R_WARM') ? { JUBE_R_WARM: 'on' } : {}),
    ...(runtimeKindOf(env) === 'container' && unset('JUBE_R_EXECUTE_TENANCY') ? { JUBE_R_EXECUTE_TENANCY: 'PER_TENANT' } : {}),
  };
}

/**
 * The Lambda's own handler (create-handler.ts), configured from `env` with the local stack's
 * defaults (localStackEnv): warm unless JUBE_R_WARM says otherwise, one warm runner per execution
 * slot (JUBE_R_MAX_INFLIGHT_EXECUTE).
 */
const defaultLoadHandler = (env: NodeJS.ProcessEnv) => async (): Promise<ExecuteHandler> => {
  const { createInitializedExecuteHandler, readRuntimeSettings } = await import('../../execute/create-handler.ts');
  const local = localStackEnv(env);
  return createInitializedExecuteHandler({ config: readServiceConfig(local), runtime: readRuntimeSettings(local) });
};

/**
 * The execute handler in this process, with host R. It cannot isolate keys: every TenantId runs in
 * this one process tree on the host (GET /health says `boundary: none`); use the container runtime
 * to see keys kept apart. Lambda's own timeout is emulated: an
 * invocation still running at `timeoutMs` is answered as Lambda answers (`Sandbox.Timedout`).
 */
export function createProcessRuntime(options: ProcessRuntimeOptions): ExecuteRuntime {
  const load = options.loadHandler ?? defaultLoadHandler(options.env ?? process.env);
  let handler: Promise<ExecuteHandler> | undefined;
  const inflight = new Set<Promise<unknown>>();
  let closing = false;

  // Loaded once; a load that failed (a bad configuration) is tried again by the next call.
  const loaded = (): Promise<ExecuteHandler> =>
    (handler ??= load().catch((error: unknown) => {
      handler = undefined;
      throw error;
    }));

  return {
    kind: 'process',
    async warm() {
      await loaded();
    },
    async warmStatus() {
      if (!handler) return { state: 'not-loaded' };
      const loaded = await handler.catch(() => undefined);
      return loaded?.warmStatus?.() ?? { state: 'unknown' };
    },
    async invoke(payload, context) {
      if (closing) return { ok: false, errorType: 'Runtime.ExitError', errorMessage: 'the local stack is shutting down' };
      const ready = loaded();
      const run = (async () => (await ready)(payload, lambdaContext(options.functionName, context.requestId, context.timeoutMs, context.tenantId)))();
      inflight.add(run);
      void run.catch(() => undefined).finally(() => inflight.delete(run));
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<InvokeAnswer>((resolve) => {
        timer = setTimeout(
          () => resolve({ ok: false, errorType: 'Sandbox.Timedout', errorMessage: `Task timed out after ${(context.timeoutMs / 1000).toFixed(2)} seconds` }),
          context.timeoutMs,
        );
      });
      const finished = run.then(
        (result): InvokeAnswer => ({ ok: true, payload: result }),
        (error: unknown): InvokeAnswer => ({
          ok: false,
          errorType: error instanceof Error ? error.name : 'Error',
          errorMessage: error instanceof Error ? error.message : String(error),
        }),
      );
      try {
        return await Promise.race([finished, timedOut]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      closing = true;
      // The handler kills its own process groups when a run ends; on shutdown runs end early, so
      // every group this process started is killed here, then the handlers are let finish.
      await (await handler?.catch(() => undefined))?.close?.();
      await killDescendantGroups();
      await Promise.race([Promise.allSettled([...inflight]), new Promise((r) => setTimeout(r, 5_000).unref())]);
      await killDescendantGroups();
    },
  };
}

export type RuntimeKind = ExecuteRuntime['kind'];

export function runtimeKindOf(env: NodeJS.ProcessEnv): RuntimeKind {
  const kind = env['JUBE_R_EXECUTE_RUNTIME'] ?? 'process';
  if (kind !== 'process' && kind !== 'container') {
    throw new Error(`JUBE_R_EXECUTE_RUNTIME must be process or container, not ${JSON.stringify(kind)}`);
  }
  return kind;
}

function realDirOrUndefined(dir: string): string | undefined {
  try {
    return statSync(dir).isDirectory() ? realpathSync(dir) : undefined;
  } catch {
    return undefined;
  }
}

/** The runtime JUBE_R_EXECUTE_RUNTIME asks for (`process` by default). */
export async function createExecuteRuntime(env: NodeJS.ProcessEnv, functionName: string): Promise<ExecuteRuntime> {
  if (runtimeKindOf(env) === 'container') {
    const { startContainerRuntime } = await import('./container-runtime.ts');
    // Only the limits and the containment switches: host paths (R, tmp, data dir, the capsule
    // library) mean nothing inside the image.
    const passOn = Object.fromEntries(
      Object.entries(env).filter(
        (e): e is [string, string] =>
          /^JUBE_R_(SCRIPT_TIMEOUT|KILL_GRACE|MAX_|RLIMIT_|CAPSULE$|CAPSULE_KERNEL$|TEST_ESCAPED_RUNNER$|WARM)/.test(e[0]) &&
          e[1] !== undefined,
      ),
    );
    const config = readServiceConfig(env);
    // Resolved `file` dataframes name real paths under the data dir: mount it at the same path.
    const dataDir = realDirOrUndefined(resolve(config.data.dir));
    return startContainerRuntime({
      // The tag `npm run image:build` gave the image (JUBE_R_IMAGE, as scripts/image-build.sh reads it).
      ...(env['JUBE_R_IMAGE'] ? { image: env['JUBE_R_IMAGE'] } : {}),
      // ... and name it the data root there, the one place file sources may come from.
      env: { ...passOn, ...(dataDir ? { JUBE_R_DATA_DIR: dataDir } : {}) },
      readOnlyMounts: dataDir ? [dataDir] : [],
      // PER_TENANT: a container per TenantId, capped as Lambda caps tenant environments.
      ...(config.executePerTenant ? { eager: false, maxEnvironments: tenantEnvironmentCap(config.maxInflightExecute) } : {}),
    });
  }
  return createProcessRuntime({ functionName, env });
}
