/**
 * The execute function: ExecuteEvent -> ExecuteResponse (DESIGN.md sections 2-4). It trusts no
 * caller: the event is zod-parsed (event.ts), the script validated again, then exactly one Rscript
 * runs the runner in a private workdir (run-in-workdir.ts); the outcome becomes the response
 * (response.ts). Afterwards the workdir is removed and the environment cleaned (hygiene.ts),
 * whatever happened, and one structured log line is written per invocation (invocation-log.ts).
 * An environment that could not be cleaned, or every environment with
 * JUBE_R_FRESH_ENVIRONMENT_PER_RUN, is retired after answering (retire.ts). Configuration is read
 * once, when the module loads, and a bad value fails the load naming its key.
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
import { sweepEnvironment, wipeDirectories, type SweepReport, type WipeReport } from './hygiene.ts';
import type { GroupKillReport } from './process-group.ts';
import { canRetire, respondAndExit } from './retire.ts';
import type { RunnerEnvelope } from './envelope.ts';
import { parseCapsuleReport } from '../../layers/contract/runner.ts';
import { BACKGROUND_REMOVAL_MS, markEnvironmentForCleaning, PostRunBudget, withBudgetNote, withinBudget } from './post-run-budget.ts';
import { serviceRVersion } from './r-version.ts';
import { executeResponse, rejectedResponse, unarmedResponse, type ResponseBase } from './response.ts';
import { runInWorkdir, type RunResult } from './run-in-workdir.ts';
import { readRuntimePaths, type RuntimePaths } from './runtime-paths.ts';
import { resolveSandbox, sandboxLayers } from './sandbox.ts';
import { createWorkdir, removeWorkdir, type WorkdirLayout } from './workdir.ts';

/** What happened to the processes and the workdir of one run; for tests and logs. */
export interface RunReport {
  readonly workdir: string;
  readonly pid: number | undefined;
  readonly group: GroupKillReport | undefined;
  /** JUBE_R_SWEEP=environment: every other process of the environment, killed. */
  readonly sweep?: SweepReport | undefined;
  /** JUBE_R_WIPE_AFTER_RUN: what was removed from the writable places. */
  readonly wipe?: WipeReport | undefined;
  /** The capsule's report from the envelope, when R reached the arming. */
  readonly capsule?: string | undefined;
  /** Why this environment is retired after answering, if it is. */
  readonly retire?: string | undefined;
  /** The post-run budget, and what it cut short. */
  readonly budget?: PostRunBudget | undefined;
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
  const rVersion = serviceRVersion(manifest);

  async function respond(event: unknown, context: LambdaContextLike | undefined, started: number) {
    const e = parseExecuteEvent(event, rules);
    const base = (): ResponseBase => ({ durationMs: Date.now() - started, rVersion, timestamp: new Date(started).toISOString() });

    // The installed list comes from the manifest, which must exist by now (it names the command that writes it).
    validator ??= loadValidator({ rules, ...manifestPackages(loadManifest()), declaredPackages: declared });
    // The test-only escaped runner (containment.ts) is meant to run what validation would refuse.
    const validation = paths.containment.testEscapedRunner ? undefined : (await validator)(e.script);
    if (validation && !validation.valid) {
      return { apiRequestId: e.requestId, response: rejectedResponse(validation, base()), layers: undefined, retire: undefined };
    }

    const [parser, sandbox] = await Promise.all([getParser(), resolveSandbox(paths.sandbox)]);
    const layout = await createWorkdir(paths.tmpRoot);
    let run: RunResult | undefined;
    let report: RunReport = { workdir: layout.root, pid: undefined, group: undefined };
    const remainingMs = () => (context ? context.getRemainingTimeInMillis() - safetyMarginMs : Number.POSITIVE_INFINITY);
    try {
      run = await runInWorkdir(e, layout, { config, paths, allowedPackages: allowed, parser, sandbox, remainingMs });
    } finally {
      // A run that never reached R (or threw) still gets its cleanup bounded.
      const budget = run?.budget ?? PostRunBudget.after(remainingMs, config.postRun);
      report = { ...report, pid: run?.pid, group: run?.group, ...(await cleanUp(layout, budget)), budget };
    }
    const envelope = run.outcome.kind === 'envelope' ? run.outcome.envelope : undefined;
    const capsule = envelope?.sandbox;
    report = { ...report, capsule };
    options.onRunReport?.(report);
    if (report.group && report.group.survivors.length > 0) logger.error('processes survived the group kill', { ...report.group });
    const limits = { timeoutSeconds: e.timeoutSeconds, killGraceSeconds: config.killGraceSeconds, caps: config.caps };
    const response = withBudgetNote(unarmed(envelope, base()) ?? executeResponse(run.outcome, limits, base()), report.budget);
    return {
      apiRequestId: e.requestId,
      response,
      layers: run.outcome.kind === 'not-staged' ? undefined : sandboxLayers(paths, sandbox, capsule),
      retire: report.retire,
    };
  }

  /**
   * The workdir goes, then (in the image) every process but the handler's chain and every file in
   * the writable places. Whatever could not be removed retires the environment.
   */
  async function cleanUp(layout: WorkdirLayout, budget: PostRunBudget): Promise<Pick<RunReport, 'sweep' | 'wipe' | 'retire'>> {
    const { containment } = paths;
    const sweep = containment.sweep === 'environment' ? await sweepEnvironment() : undefined;
    const removed = await removeWorkdir(layout, budget.deadline);
    if (removed === 'deadline') {
      budget.stop('removing the workdir');
      // After the answer: where the environment is not retired (the local stack), the rest goes
      // in the background, a batch at a time, touching nothing but this run's workdir.
      void removeWorkdir(layout, Date.now() + BACKGROUND_REMOVAL_MS);
    }
    const wipe = containment.wipeAfterRun.length > 0 ? await withinBudget(wipeDirectories(containment.wipeAfterRun), budget, 'the wipe') : undefined;
    if (budget.cutShort.length > 0) markEnvironmentForCleaning(`post-run work cut short: ${budget.cutShort.join(', ')}`);
    const dirty = [
      ...(removed === 'removed' ? [] : [`the workdir ${layout.root} could not be removed${removed === 'deadline' ? ' within the post-run budget' : ''}`]),
      ...(wipe === 'deadline' ? ['the wipe did not finish within the post-run budget'] : []),
      ...(sweep && sweep.survivors.length > 0 ? [`processes ${sweep.survivors.join(', ')} survived the sweep`] : []),
      ...(wipe && wipe !== 'deadline' && wipe.failures.length > 0 ? [`${wipe.failures.slice(0, 10).join(', ')} could not be removed`] : []),
    ];
    if (dirty.length > 0) logger.error('the environment is not clean after a run', { problems: dirty });
    const retire = dirty.length > 0 ? dirty.join('; ') : containment.freshEnvironmentPerRun ? 'JUBE_R_FRESH_ENVIRONMENT_PER_RUN' : undefined;
    return { sweep, wipe: wipe === 'deadline' ? undefined : wipe, retire };
  }

  /**
   * The capsule is required but the envelope of a run that reached the script does not report it
   * armed: the result is withheld. (A capsule that fails to arm stops the runner before the script,
   * which reports that itself as the service's failure, errorType "interpreter".)
   */
  function unarmed(envelope: RunnerEnvelope | undefined, responseBase: ResponseBase): ExecuteResponse | undefined {
    if (!paths.containment.capsule || !envelope || envelope.status === 'rejected' || envelope.errorType === 'interpreter') return undefined;
    const report = parseCapsuleReport(envelope.sandbox);
    if (report?.armed) return undefined;
    const detail = report?.text ?? 'no report';
    logger.error('the capsule did not arm', { report: detail });
    return unarmedResponse(detail, responseBase);
  }

  return async function executeHandler(event, context) {
    const started = Date.now();
    try {
      const { apiRequestId, response, layers, retire } = await respond(event, context, started);
      const facts = { context, apiRequestId, response, durationMs: Date.now() - started, sandboxLayers: layers };
      logger.info('execute', { ...invocationLogAttributes(facts), ...(retire ? { retire } : {}) });
      const target = { runtimeApi: process.env['AWS_LAMBDA_RUNTIME_API'], requestId: context?.awsRequestId };
      if (retire && canRetire(target)) {
        logger.warn('retiring this execution environment after answering', { reason: retire });
        return await respondAndExit(target, response);
      }
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
