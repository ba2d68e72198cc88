/**
 * The execute function: ExecuteEvent -> ExecuteResponse (DESIGN.md sections 2-4). It trusts no
 * caller: the event is zod-parsed (event.ts), the script validated again, then exactly one Rscript
 * runs the runner in a private workdir (run-in-workdir.ts); the outcome becomes the response
 * (response.ts). Afterwards the workdir is removed, whatever happened, and one structured log line
 * is written per invocation (invocation-log.ts). Configuration is read once, when the module loads,
 * and a bad value fails the load naming its key.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { readServiceConfig, type ServiceConfig } from '../../layers/config/service-config.ts';
import type { ExecuteResponse } from '../../layers/contract/execute.ts';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { getParser } from '../../layers/parser/tree-sitter.ts';
import { allowedPackages, loadRules, type SandboxRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator, type Validator } from '../../layers/validator/validator.ts';
import { parseExecuteEvent } from './event.ts';
import { invocationLogAttributes, type LambdaContextLike } from './invocation-log.ts';
import type { GroupKillReport } from './process-group.ts';
import { executeResponse, rejectedResponse, type ResponseBase } from './response.ts';
import { runInWorkdir, type RunResult } from './run-in-workdir.ts';
import { readRuntimePaths, type RuntimePaths } from './runtime-paths.ts';
import { resolveSandbox, sandboxLayers } from './sandbox.ts';
import { createWorkdir, removeWorkdir } from './workdir.ts';

/** What happened to the processes and the workdir of one run; for tests and logs. */
export interface RunReport {
  readonly workdir: string;
  readonly pid: number | undefined;
  readonly group: GroupKillReport | undefined;
}

export interface ExecuteHandlerOptions {
  readonly config?: ServiceConfig;
  readonly paths?: RuntimePaths;
  readonly rules?: SandboxRules;
  /** Packages packages.R declares; default from the manifest. */
  readonly declaredPackages?: readonly string[];
  readonly validator?: Validator | Promise<Validator>;
  /** Never wait past the invocation's remaining time minus this. */
  readonly safetyMarginMs?: number;
  readonly onRunReport?: (report: RunReport) => void;
  readonly logger?: Logger;
}

export type ExecuteHandler = (event: unknown, context?: LambdaContextLike) => Promise<ExecuteResponse>;

/** The manifest, or undefined where it was never generated (tests pass what they need). */
function manifestOrUndefined() {
  try {
    return loadManifest();
  } catch {
    return undefined;
  }
}

export function createExecuteHandler(options: ExecuteHandlerOptions = {}): ExecuteHandler {
  const config = options.config ?? readServiceConfig();
  const paths = options.paths ?? readRuntimePaths();
  const rules = options.rules ?? loadRules(paths.rulesFile);
  const manifest = manifestOrUndefined();
  const declared = options.declaredPackages ?? manifest?.declared ?? [];
  const allowed = [...allowedPackages(rules, declared)].sort();
  const safetyMarginMs = options.safetyMarginMs ?? 1500;
  const logger = options.logger ?? new Logger({ serviceName: 'jube-r' });
  let validator: Promise<Validator> | undefined =
    options.validator === undefined ? undefined : Promise.resolve(options.validator);
  // Learned from the first run; before that the manifest's (the same R) or nothing.
  let rVersion = manifest?.rVersion ?? 'unknown';

  async function respond(event: unknown, context: LambdaContextLike | undefined, started: number) {
    const e = parseExecuteEvent(event, rules);
    const base = (): ResponseBase => ({ durationMs: Date.now() - started, rVersion, timestamp: new Date(started).toISOString() });

    // The installed list comes from the manifest, which must exist by now (it names the command that writes it).
    validator ??= loadValidator({ rules, ...manifestPackages(loadManifest()), declaredPackages: declared });
    const validation = (await validator)(e.script);
    if (!validation.valid) return { apiRequestId: e.requestId, response: rejectedResponse(validation, base()), layers: undefined };

    const [parser, sandbox] = await Promise.all([getParser(), resolveSandbox(paths.sandbox)]);
    const layout = await createWorkdir(paths.tmpRoot);
    let run: RunResult | undefined;
    try {
      run = await runInWorkdir(e, layout, {
        config, paths, allowedPackages: allowed, parser, sandbox,
        remainingMs: () => (context ? context.getRemainingTimeInMillis() - safetyMarginMs : Number.POSITIVE_INFINITY),
      });
    } finally {
      await removeWorkdir(layout);
      const report: RunReport = { workdir: layout.root, pid: run?.pid, group: run?.group };
      options.onRunReport?.(report);
      if (report.group && report.group.survivors.length > 0) {
        logger.error('processes survived the group kill', { ...report.group });
      }
    }
    if (run.outcome.kind === 'envelope') rVersion = run.outcome.envelope.rVersion;
    const limits = { timeoutSeconds: e.timeoutSeconds, killGraceSeconds: config.killGraceSeconds, caps: config.caps };
    return {
      apiRequestId: e.requestId,
      response: executeResponse(run.outcome, limits, base()),
      layers: run.outcome.kind === 'not-staged' ? undefined : sandboxLayers(paths, sandbox),
    };
  }

  return async function executeHandler(event, context) {
    const started = Date.now();
    try {
      const { apiRequestId, response, layers } = await respond(event, context, started);
      const facts = { context, apiRequestId, response, durationMs: Date.now() - started, sandboxLayers: layers };
      logger.info('execute', invocationLogAttributes(facts));
      return response;
    } catch (error) {
      const tenant = context?.tenantId === undefined ? {} : { tenant: context.tenantId };
      logger.error('execute failed', { requestId: context?.awsRequestId, ...tenant, durationMs: Date.now() - started, error });
      throw error;
    }
  };
}

/** The Lambda entry point, created (and its configuration read) when the module loads. */
export const handler: ExecuteHandler = createExecuteHandler();
