/**
 * The warm start of one execute handler (docs/execute-runtime.md, "Warm start"): the pool of warm
 * runners, filled after init's hygiene and again after every answered call, which comes after that
 * call's after-run hygiene. In Lambda the refill runs in the internal extension after the response
 * has left (lambda-extension.ts); elsewhere (the local stack) on the turn after the answer.
 * Undefined where it is off (JUBE_R_WARM=off) or cannot apply (the red-team native runner, which
 * is not R).
 */
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import type { RuntimeSettings } from '../runtime-settings.ts';
import { resolveNamespaces } from '../run/bwrap.ts';
import { startWarmExtension, type WarmExtension } from './lambda-extension.ts';
import { WarmPool } from './warm-pool.ts';
import { WarmRunner } from './warm-runner.ts';
import { warmPackages } from './warm-settings.ts';

export interface WarmStartSetup {
  readonly config: ServiceConfig;
  readonly runtime: RuntimeSettings;
  readonly declaredPackages: readonly string[];
  /** Init's hygiene: no runner starts before it is done. */
  readonly initCleaning: Promise<unknown> | undefined;
  /** AWS_LAMBDA_RUNTIME_API: set, the refill goes through the Extensions API. */
  readonly runtimeApi: string | undefined;
  readonly log?: (message: string, detail?: Record<string, unknown>) => void;
}

export interface WarmStart {
  readonly pool: WarmPool;
  /** Settles once the extension registered (Lambda) or at once; the entry awaits it during init. */
  readonly initialized: Promise<unknown>;
  /** The call was answered (after its hygiene): start the next runner once the answer has left. */
  answered(): void;
  /** The environment is retired: no runner is left and none is started. */
  retire(): Promise<void>;
}

export function createWarmStart(setup: WarmStartSetup): WarmStart | undefined {
  const { config, runtime } = setup;
  if (!config.warm.enabled || runtime.containment.testNativeRunner) return undefined;
  const packages = warmPackages(config.warm, setup.declaredPackages);
  const namespaces = resolveNamespaces(runtime.namespaces);
  const pool = new WarmPool(async () => WarmRunner.start({ runtime, rlimits: config.rlimits, namespaces: await namespaces, packages }), {
    // Lambda sends an environment one invocation at a time; the local stack runs this many at once.
    slots: setup.runtimeApi ? 1 : config.maxInflightExecute,
    maxAgeMs: config.warm.maxAgeMs,
    readyMs: config.warm.readyMs,
  });
  const first = pool.refillAfter(setup.initCleaning ?? Promise.resolve());
  let extension: WarmExtension | undefined;
  let registered: Promise<boolean> = Promise.resolve(false);
  if (setup.runtimeApi) {
    extension = startWarmExtension(setup.runtimeApi, { init: first, afterInvoke: () => pool.refill(), ...(setup.log ? { log: setup.log } : {}) });
    registered = extension.registered;
  }
  return {
    pool,
    initialized: registered,
    answered() {
      if (!extension) return pool.refillSoon();
      extension.answered();
      // An extension the Extensions API refused holds no freeze: refill on the next turn regardless.
      void registered.then((held) => (held ? undefined : pool.refillSoon()));
    },
    retire: () => pool.clear(true),
  };
}
