/**
 * The execute function: ExecuteEvent -> ExecuteResponse. It trusts no caller: the event is
 * zod-parsed (event.ts), the script validated again, then exactly one Rscript runs the runner in a
 * private workdir (run-in-workdir.ts); the outcome becomes the response (response.ts). The
 * environment is cleaned at init, before and after every run (environment-hygiene.ts); everything
 * after R ends runs under one post-run budget (post-run-budget.ts), and one structured log line is
 * written per invocation (invocation-log.ts). An environment that could not be cleaned is retired
 * after answering (retire.ts): Lambda resets it and initialises it again in the same microVM, so the
 * next init's hygiene is what cleans it; a fresh microVM per run is the API function's
 * `isolation: run`. Configuration is read once, when the handler is created, and a bad value fails
 * the creation naming its key. Importing this module reads nothing: the entry (handler.ts) creates
 * the Lambda's handler; the local stack, the CLI, tests and benchmarks create their own.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { resolveOutputBudget } from '../../layers/config/output-budget.ts';
import { readServiceConfig, type ServiceConfig } from '../../layers/config/service-config.ts';
import type { WarmStatus } from '../../layers/contract/api.ts';
import type { ExecutePayload, ExecuteResponse } from '../../layers/contract/execute.ts';
import { DATAFRAME_STAGING_FAILED } from '../../layers/contract/log-events.ts';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { getParser } from '../../layers/parser/tree-sitter.ts';
import { allowedPackages, loadRules, type ScriptRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { DEFAULT_PARSE_BUDGET_MS, loadValidator, type Validator } from '../../layers/validator/validator.ts';
import { treeSitterSymbols } from '../../layers/parser/symbol-inventory.ts';
import { parseExecuteEvent } from './event.ts';
import { invocationLogAttributes, type LambdaContextLike } from './invocation-log.ts';
import type { SweepReport, WipeReport } from './environment/hygiene.ts';
import { cleanEnvironment, hygieneSettings, joinReports, type HygieneReport } from './environment/environment-hygiene.ts';
import { notCleanResponse } from './environment/hygiene-response.ts';
import type { GroupKillReport } from './run/process-group.ts';
import { canRetire, respondAndExit } from './environment/retire.ts';
import type { RunnerEnvelope } from './output/envelope.ts';
import { s3Host, type DataSourcePolicy } from './run/data-sources.ts';
import { tenantOfKey } from '../../layers/contract/isolation.ts';
import type { SourceAccess } from './run/dataframes.ts';
import { parseCapsuleReport } from '../../layers/contract/runner.ts';
import { BACKGROUND_REMOVAL_MS, clearEnvironmentMark, markEnvironmentForCleaning, PostRunBudget, withBudgetNote, withinBudget } from './output/post-run-budget.ts';
import { serviceRVersion } from './r-version.ts';
import { executeResponse, rejectedResponse, unarmedResponse, withRequestNotes, type ResponseBase } from './output/response.ts';
import { runInWorkdir, type WorkdirRun } from './run/run-in-workdir.ts';
import { readRuntimeSettings, type RuntimeSettings } from './runtime-settings.ts';
import { runSandboxLayers } from './run/active-layers.ts';
import { resolveNamespaces } from './run/bwrap.ts';
import { createWorkdir, removeWorkdir, type WorkdirLayout } from './run/workdir.ts';
import { createWarmStart } from './warm/warm-start.ts';
import { notSavedNote, responseSession, snapshotForTransit, stageSession, withSession } from './session.ts';

// What the local stack and the CLI use besides the factory: they reach this function only through
// this module and the entry (test/unit/layout.test.ts holds them to it).
export { InvalidExecuteEventError } from './event.ts';
export { readRuntimeSettings } from './runtime-settings.ts';
export { activeSandboxLayers } from './run/active-layers.ts';
export { WARM_EXTENSION_NAME } from './warm/lambda-extension.ts';

/** What happened to the processes and the workdir of one run; for tests and logs. */
export interface ContainmentReport {
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
  /** The environment's cleanings around this run (environment-hygiene.ts), each with its cost. */
  readonly hygiene?: { readonly init?: HygieneReport; readonly before?: HygieneReport; readonly after?: HygieneReport } | undefined;
  /** The post-run budget, and what it cut short. */
  readonly budget?: PostRunBudget | undefined;
  /** `warm`: a warm runner took the call; else why it ran cold (functions/execute/warm/warm-pool.ts). */
  readonly start?: string | undefined;
}

export interface ExecuteHandlerOptions {
  readonly config?: ServiceConfig;
  readonly runtime?: RuntimeSettings;
  readonly rules?: ScriptRules;
  /** Packages packages.R declares; default from the manifest. */
  readonly declaredPackages?: readonly string[];
  readonly validator?: Validator | Promise<Validator>;
  /** Never wait past the invocation's remaining time minus this. */
  readonly safetyMarginMs?: number;
  readonly onContainmentReport?: (report: ContainmentReport) => void;
  readonly logger?: Logger;
  /** Where `file` dataframe sources may come from; default the data root (JUBE_R_DATA_DIR). */
  readonly dataRoots?: readonly string[];
  /** Replaces the HTTPS download of an allowed URL source (tests: nothing here is the bucket's host). */
  readonly dataDownload?: SourceAccess['download'];
}

export type ExecuteHandler = ((event: unknown, context?: LambdaContextLike) => Promise<ExecutePayload>) & {
  /** Settles when init's own work that must precede the runtime's first Next is done (the warm start's extension). */
  readonly initialized?: Promise<unknown>;
  /** The idle warm runners' pids once they are ready; empty where the warm start is off (tests, benchmarks). */
  readonly warmRunners?: () => Promise<number[]>;
  /** The warm start now, without waiting (the local stack's GET /health `warm`). */
  readonly warmStatus?: () => WarmStatus;
  /** Ends the idle warm runners and starts no more (a local stack or a test that is done). */
  readonly close?: () => Promise<void>;
};

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
  const runtime = options.runtime ?? readRuntimeSettings();
  const rules = options.rules ?? loadRules(runtime.rulesFile);
  const manifest = manifestOrUndefined();
  const declared = options.declaredPackages ?? manifest?.declared ?? [];
  const installed = manifest ? manifestPackages(manifest).installedPackages : new Set(declared);
  const allowed = [...allowedPackages(rules, installed)].sort();
  const safetyMarginMs = options.safetyMarginMs ?? 1500;
  const logger = options.logger ?? new Logger({ serviceName: 'jube-r' });
  let validator: Promise<Validator> | undefined =
    options.validator === undefined ? undefined : Promise.resolve(options.validator);
  const rVersion = serviceRVersion(manifest);
  // Init-time cleaning starts with the module: what a crashed or timed-out predecessor left in
  // this microVM (Lambda's reset keeps /tmp and kernel objects) is gone before the first run.
  const hygiene = hygieneSettings(runtime.containment);
  const dataPolicy: DataSourcePolicy = {
    deployed: runtime.containment.deployment !== undefined,
    fileRoots: options.dataRoots ?? [config.data.dir],
    urlHost: s3Host(config.data.bucket, process.env['AWS_REGION']),
  };
  let init: Promise<HygieneReport> | undefined = hygiene
    ? cleanEnvironment('init', hygiene).catch((error: unknown) => ({ phase: 'init' as const, ms: 0, problems: [`init cleaning failed: ${String(error)}`] }))
    : undefined;
  const warm = createWarmStart({
    config, runtime, declaredPackages: declared, initCleaning: init,
    runtimeApi: process.env['AWS_LAMBDA_RUNTIME_API'], log: (message, detail) => logger.warn(message, detail ?? {}),
  });

  async function respond(event: unknown, context: LambdaContextLike | undefined, started: number) {
    const e = parseExecuteEvent(event, rules);
    const base = (): ResponseBase => ({ durationMs: Date.now() - started, rVersion, timestamp: new Date(started).toISOString() });

    // The installed list comes from the manifest, which must exist by now (it names the command that writes it).
    validator ??= loadValidator({ rules, ...manifestPackages(loadManifest()) });
    // The test-only escaped runner (containment.ts) is meant to run what validation would refuse.
    let symbols: string[] | undefined;
    const validation = runtime.containment.testEscapedRunner ? undefined : (await validator)(e.script, (names) => (symbols = names));
    if (validation && !validation.valid) {
      return { apiRequestId: e.requestId, response: withRequestNotes(rejectedResponse(validation, base()), { requestNotes: e.notes, caps: config.caps }), layers: undefined, retire: undefined };
    }

    // The validator hands on the symbols of its own parse; only a validator that does not (a test's,
    // or none for the escaped runner) leaves a second, equally budgeted, parse to do.
    const inventory = async () => symbols ?? treeSitterSymbols(await getParser(), e.script, DEFAULT_PARSE_BUDGET_MS) ?? null;
    const [treeSitter, namespaces, prepared] = await Promise.all([inventory(), resolveNamespaces(runtime.namespaces), prepareEnvironment()]);
    const failed = prepared?.init?.problems.length ? prepared.init : prepared?.before;
    if (failed && failed.problems.length > 0) {
      logger.error('the environment is not clean before a run', { phase: failed.phase, problems: failed.problems });
      const retire = `not clean (${failed.phase}): ${failed.problems.join('; ')}`;
      await warm?.pool.clear();
      options.onContainmentReport?.({ workdir: '', pid: undefined, group: undefined, hygiene: prepared, retire });
      return { apiRequestId: e.requestId, response: withRequestNotes(notCleanResponse(failed, base()), { requestNotes: e.notes, caps: config.caps }), layers: undefined, retire, hygieneMs: hygieneCost(prepared) };
    }
    const taken = warm ? await warm.pool.take() : undefined;
    const layout = taken?.runner?.layout ?? (await createWorkdir(runtime.tmpRoot));
    let run: WorkdirRun | undefined;
    const start = taken === undefined ? undefined : (taken.runner ? 'warm' : `cold: ${taken.cold}`);
    let report: ContainmentReport = { workdir: layout.root, pid: undefined, group: undefined, hygiene: prepared, start };
    const remainingMs = () => (context ? context.getRemainingTimeInMillis() - safetyMarginMs : Number.POSITIVE_INFINITY);
    // The request's budget replaces four caps for this run, on both sides of the seam.
    const outputBudget = resolveOutputBudget(e.outputBudget, config);
    const session = e.session ? stageSession(e.session, config.sessions) : undefined;
    // The environment-wide kill and the IPC sweep, once R ended and before any output is read.
    let stopped: HygieneReport | 'deadline' | undefined;
    const beforeReading = hygiene
      ? async (budget: PostRunBudget) => {
          stopped = await withinBudget(cleanEnvironment('after-run', hygiene, await warm?.pool.spared(), 'stop'), budget, 'the after-run cleaning');
        }
      : undefined;
    try {
      run = await runInWorkdir(e, layout, {
        config: { ...config, caps: outputBudget.caps }, runtime, allowedPackages: allowed, treeSitterSymbols: treeSitter, namespaces, remainingMs, warm: taken?.runner, beforeReading, session,
        dataAccess: {
          policy: dataPolicy,
          tenant: context?.tenantId === undefined ? undefined : tenantOfKey(context.tenantId),
          ...(options.dataDownload ? { download: options.dataDownload } : {}),
        },
      });
    } finally {
      // A run that never reached R (or threw) still gets its cleanup bounded.
      const budget = run?.budget ?? PostRunBudget.after(remainingMs, config.postRun);
      const { after, ...cleaned } = await cleanUp(layout, budget, stopped);
      report = { ...report, pid: run?.pid, group: run?.group, ...cleaned, budget, hygiene: { ...report.hygiene, ...(after ? { after } : {}) } };
    }
    const envelope = run.outcome.kind === 'envelope' ? run.outcome.envelope : undefined;
    const capsule = envelope?.capsule;
    report = { ...report, capsule };
    options.onContainmentReport?.(report);
    if (report.group && report.group.survivors.length > 0) logger.error('processes survived the group kill', { ...report.group });
    // Counted by a metric filter (monitoring.ts): a presigned host the network does not let through fails every download.
    if (run.outcome.kind === 'not-staged') logger.warn(DATAFRAME_STAGING_FAILED, { requestId: context?.awsRequestId, reason: run.outcome.message });
    // The post-run budget is spent by now: its note, if any, is one the notes cap must keep.
    const budgetNote = report.budget?.note();
    // A session's snapshot rides beside the response in the payload: the response leaves it room.
    const sessionSnapshot = snapshotForTransit(run.sessionSnapshot);
    const caps = { ...outputBudget.caps, responseBytes: outputBudget.caps.responseBytes - (sessionSnapshot?.length ?? 0) };
    const limits = {
      timeoutSeconds: e.timeoutSeconds, timeoutSecondsMax: config.scriptTimeoutSecondsMax, killGraceSeconds: config.killGraceSeconds,
      caps, budget: outputBudget, requestNotes: [...(e.notes ?? []), ...(session?.notes ?? [])], pinnedNotes: budgetNote === undefined ? [] : [budgetNote],
    };
    const answered = unarmed(envelope, base()) ?? executeResponse(run.outcome, limits, base());
    let response = withBudgetNote(withRequestNotes(answered, limits), report.budget);
    if (e.session) {
      const unsaved = sessionSnapshot !== undefined ? undefined
        : run.outcome.kind !== 'envelope' ? 'the run did not finish'
        : !envelope?.session ? 'the script did not reach its workspace'
        : envelope.session.saved ? `it is larger than ${config.sessions.maxBytes} bytes (GET /health?detail=full limits.maxSessionBytes)`
        : 'it could not be written';
      response = withSession(response, responseSession(e.session, envelope, sessionSnapshot !== undefined), unsaved ? [notSavedNote(e.session, unsaved)] : [], caps.notes);
    }
    return {
      apiRequestId: e.requestId,
      response,
      sessionSnapshot,
      layers: run.outcome.kind === 'not-staged' ? undefined : runSandboxLayers(runtime, namespaces, capsule),
      retire: report.retire,
      hygieneMs: hygieneCost(report.hygiene),
      start: report.start,
    };
  }

  /** Init once (awaited by the first run), then the cleaning before every run; undefined: nothing to clean here. */
  async function prepareEnvironment(): Promise<{ init?: HygieneReport; before?: HygieneReport } | undefined> {
    if (!hygiene) return undefined;
    const initReport = init ? await init : undefined;
    init = undefined;
    if (initReport && initReport.problems.length > 0) return { init: initReport };
    // The idle warm runners were started after the previous run's hygiene, by this handler: spared.
    const before = await cleanEnvironment('before-run', hygiene, await warm?.pool.spared());
    // What a cut-short predecessor left is now gone (or this run is refused as not clean).
    if (before.problems.length === 0) clearEnvironmentMark();
    return initReport ? { init: initReport, before } : { before };
  }

  /**
   * (In the image) every process but the handler's chain and every IPC object (`stopped`: done
   * before the reads, else here), every file in the writable places, then the workdir. Whatever
   * could not be removed retires the environment.
   */
  async function cleanUp(
    layout: WorkdirLayout,
    budget: PostRunBudget,
    stopped: HygieneReport | 'deadline' | undefined,
  ): Promise<Pick<ContainmentReport, 'sweep' | 'wipe' | 'retire'> & { after?: HygieneReport }> {
    // Processes first, so nothing writes into the workdir while it goes.
    const spared = async () => warm?.pool.spared();
    const files = async (first: HygieneReport) => joinReports(first, await cleanEnvironment('after-run', hygiene!, await spared(), 'files'));
    const cleaned = !hygiene || stopped === 'deadline'
      ? stopped
      : await withinBudget(stopped ? files(stopped) : cleanEnvironment('after-run', hygiene, await spared()), budget, 'the after-run cleaning');
    const after = cleaned === 'deadline' ? undefined : cleaned;
    const removed = await removeWorkdir(layout, budget.deadline);
    if (removed === 'deadline') {
      budget.stop('removing the workdir');
      // After the answer: where the environment is not retired (the local stack), the rest goes
      // in the background, a batch at a time, touching nothing but this run's workdir.
      void removeWorkdir(layout, Date.now() + BACKGROUND_REMOVAL_MS);
    }
    if (budget.cutShort.length > 0) markEnvironmentForCleaning(`post-run work cut short: ${budget.cutShort.join(', ')}`);
    const dirty = [
      ...(removed === 'removed' ? [] : [`the workdir ${layout.root} could not be removed${removed === 'deadline' ? ' within the post-run budget' : ''}`]),
      ...(cleaned === 'deadline' ? ['the after-run cleaning did not finish within the post-run budget'] : []),
      ...(after?.problems ?? []),
    ];
    if (dirty.length > 0) logger.error('the environment is not clean after a run', { problems: dirty });
    const retire = dirty.length > 0 ? dirty.join('; ') : undefined;
    return { sweep: after?.sweep, wipe: after?.wipe, retire, ...(after ? { after } : {}) };
  }

  /**
   * The capsule is required but the envelope of a run that reached the script does not report it
   * armed: the result is withheld. (A capsule that fails to arm stops the runner before the script,
   * which reports that itself as the service's failure, errorType "interpreter".)
   */
  function unarmed(envelope: RunnerEnvelope | undefined, responseBase: ResponseBase): ExecuteResponse | undefined {
    if (!runtime.containment.capsule || !envelope || envelope.status === 'rejected' || envelope.errorType === 'interpreter') return undefined;
    const report = parseCapsuleReport(envelope.capsule);
    if (report?.armed) return undefined;
    const detail = report?.text ?? 'no report';
    logger.error('the capsule did not arm', { report: detail });
    return unarmedResponse(detail, responseBase);
  }

  const executeHandler: ExecuteHandler = async (event, context) => {
    const started = Date.now();
    let retiring = false;
    try {
      const answer = await respond(event, context, started);
      const { apiRequestId, response, layers, retire } = answer;
      const payload: ExecutePayload = 'sessionSnapshot' in answer && answer.sessionSnapshot !== undefined ? { ...response, sessionSnapshot: answer.sessionSnapshot } : response;
      const facts = { context, apiRequestId, response, durationMs: Date.now() - started, sandboxLayers: layers };
      const hygieneMs = 'hygieneMs' in answer ? answer.hygieneMs : undefined;
      const start = 'start' in answer ? answer.start : undefined;
      logger.info('execute', { ...invocationLogAttributes(facts), ...(retire ? { retire } : {}), ...(hygieneMs ? { hygieneMs } : {}), ...(start ? { start } : {}) });
      const target = { runtimeApi: process.env['AWS_LAMBDA_RUNTIME_API'], requestId: context?.awsRequestId };
      if (retire && canRetire(target)) {
        logger.warn('retiring this execution environment after answering', { reason: retire });
        retiring = true;
        await warm?.retire();
        return await respondAndExit(target, payload);
      }
      return payload;
    } catch (error) {
      const tenant = context?.tenantId === undefined ? {} : { tenant: context.tenantId };
      logger.error('execute failed', { requestId: context?.awsRequestId, ...tenant, durationMs: Date.now() - started, error });
      throw error;
    } finally {
      if (!retiring) warm?.answered();
    }
  };
  return Object.assign(executeHandler, {
    initialized: warm?.initialized ?? Promise.resolve(),
    warmRunners: async () => (warm ? warm.pool.readyPids() : []),
    warmStatus: (): WarmStatus => {
      if (!warm) return { enabled: false, state: 'off' };
      const { ready, starting } = warm.pool.counts();
      return { enabled: true, state: ready > 0 ? 'ready' : starting > 0 ? 'starting' : 'cold', idleRunners: ready };
    },
    close: async () => warm?.retire(),
  });
}

/** createExecuteHandler, resolved once its init work that must precede the runtime's first Next is done. */
export async function createInitializedExecuteHandler(options: ExecuteHandlerOptions = {}): Promise<ExecuteHandler> {
  const handler = createExecuteHandler(options);
  await handler.initialized;
  return handler;
}

/** Milliseconds each cleaning took, for the invocation's log line; undefined where none ran. */
function hygieneCost(reports: ContainmentReport['hygiene']): Record<string, number> | undefined {
  const entries = Object.values(reports ?? {}).map((r) => [r.phase, r.ms] as const);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}
