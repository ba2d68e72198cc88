/** Shared set-up for the runner tier: the real execute handler with host R and small limits. */
import { Logger } from '@aws-lambda-powertools/logger';
import { readServiceConfig, type ServiceConfig } from '../../layers/config/service-config.ts';
import type { ExecuteEventInput, ExecutePayload } from '../../layers/contract/execute.ts';
import type { Validator } from '../../layers/validator/validator.ts';
import { createExecuteHandler, type ExecuteHandlerOptions, type ContainmentReport } from '../../functions/execute/create-handler.ts';
import type { Containment } from '../../functions/execute/run/containment.ts';
import { readRuntimeSettings, type NamespacesMode, type RuntimeSettings } from '../../functions/execute/runtime-settings.ts';

export function testConfig(env: Record<string, string> = {}): ServiceConfig {
  return readServiceConfig({ JUBE_R_KILL_GRACE_SECONDS: '2', ...env });
}

/** Lets everything through, so the runner's own re-validation in R is what decides. */
export const acceptEverything: Validator = () => ({ valid: true, errors: [], lint: [], durationMs: 0 });

export interface Harness {
  /** The execute function's payload: the response, and for a session's call the snapshot it wrote. */
  run(script: string, event?: Partial<ExecuteEventInput>, context?: { getRemainingTimeInMillis(): number }): Promise<ExecutePayload>;
  readonly reports: ContainmentReport[];
  /** The idle warm runners' pids once ready (JUBE_R_WARM=on), and the end of them. */
  warmRunners(): Promise<number[]>;
  close(): Promise<void>;
}

export function harness(
  options: Omit<ExecuteHandlerOptions, 'onContainmentReport' | 'runtime'> & {
    namespaces?: NamespacesMode;
    env?: Record<string, string>;
    /** Overrides of the containment settings (e.g. `{ capsule: undefined }` to test a layer below it alone). */
    containment?: Partial<Containment>;
    /** Overrides of the other runtime settings (e.g. `{ rLibs }` for a test's own package library). */
    runtimeOverrides?: Partial<Omit<RuntimeSettings, 'containment' | 'namespaces'>>;
  } = {},
): Harness {
  const reports: ContainmentReport[] = [];
  const defaults = readRuntimeSettings();
  const runtime = {
    ...defaults,
    ...options.runtimeOverrides,
    namespaces: options.namespaces ?? 'none',
    containment: { ...defaults.containment, ...options.containment },
  };
  const handler = createExecuteHandler({
    config: testConfig(options.env),
    logger: new Logger({ serviceName: 'jube-r-test', logLevel: 'SILENT' }),
    ...options,
    runtime,
    onContainmentReport: (report) => reports.push(report),
  });
  return {
    reports,
    run: (script, event = {}, context) => handler({ script, timeoutSeconds: 5, ...event }, context),
    warmRunners: () => handler.warmRunners?.() ?? Promise.resolve([]),
    close: () => handler.close?.() ?? Promise.resolve(),
  };
}
