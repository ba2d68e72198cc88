/**
 * Staging and spawning for one invocation, in its private workdir: the dataframes, the inputs
 * the runner reads, exactly one Rscript under the backstop deadline, then the envelope and what
 * the run left behind (plots, out/ files). Returns an RunOutcome (and what happened to the
 * processes); the caller owns the workdir's cleanup.
 */
import { randomBytes } from 'node:crypto';
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import { backstopSeconds } from '../../../layers/config/timeouts.ts';
import type { ExecuteEvent } from '../../../layers/contract/execute.ts';
import { collectArtifacts } from '../output/artifacts.ts';
import { ConsoleCapture } from '../output/caps.ts';
import { buildChildEnv } from './child-env.ts';
import { DataframeStagingError, stageDataframes, type SourceAccess } from './dataframes.ts';
import { readEnvelope } from '../output/envelope.ts';
import { PostRunBudget } from '../output/post-run-budget.ts';
import type { RunOutcome } from '../outcome.ts';
import { resolvePlotSettings } from './plot-settings.ts';
import type { GroupKillReport } from './process-group.ts';
import { runScript } from './run-script.ts';
import type { RuntimeSettings } from '../runtime-settings.ts';
import type { ActiveNamespaces } from './bwrap.ts';
import { rscriptCommand } from './spawn-rscript.ts';
import { runnerCaps, writeInputs, type WorkdirLayout } from './workdir.ts';
import type { WarmRunner } from '../warm/warm-runner.ts';

/** Fetching the dataframes never takes longer than this, nor past the invocation's remaining time. */
const MAX_STAGING_MS = 60_000;

export interface RunSetup {
  readonly config: ServiceConfig;
  readonly runtime: RuntimeSettings;
  /** Sorted; what library() and pkg:: may name. */
  readonly allowedPackages: readonly string[];
  /** The symbols of the script's tree-sitter parse (layers/parser/symbol-inventory.ts); null: a syntax error. */
  readonly treeSitterSymbols: readonly string[] | null;
  readonly namespaces: ActiveNamespaces;
  /** Milliseconds the invocation may still wait (live: it counts down). */
  readonly remainingMs: () => number;
  /** Which dataframe sources may be read (data-sources.ts). */
  readonly dataAccess: SourceAccess;
  /** A warm runner waiting in `layout` (functions/execute/warm/): handed the inputs instead of a spawn. */
  readonly warm?: WarmRunner | undefined;
}

export interface WorkdirRun {
  readonly outcome: RunOutcome;
  /** Set once an Rscript was spawned. */
  readonly pid?: number | undefined;
  readonly group?: GroupKillReport | undefined;
  /** Started when R ended; the handler's cleanup runs under the same one. */
  readonly budget?: PostRunBudget | undefined;
}

export async function runInWorkdir(event: ExecuteEvent, layout: WorkdirLayout, setup: RunSetup): Promise<WorkdirRun> {
  const { config, runtime } = setup;
  let staged;
  try {
    const budget = Math.max(1, Math.min(setup.remainingMs(), MAX_STAGING_MS));
    staged = await stageDataframes(event.dataframes, layout.dataDir, config.data, AbortSignal.timeout(budget), setup.dataAccess);
  } catch (error) {
    if (error instanceof DataframeStagingError) return { outcome: { kind: 'not-staged', message: error.message } };
    throw error;
  }

  const nonce = randomBytes(32).toString('hex');
  const plots = resolvePlotSettings(event.plots, config.plots);
  await writeInputs(layout, event.script, {
    timeoutSeconds: event.timeoutSeconds,
    deadlineSeconds: event.timeoutSeconds + config.killGraceSeconds / 2,
    allowedPackages: [...setup.allowedPackages],
    treeSitterSymbols: setup.treeSitterSymbols === null ? null : [...setup.treeSitterSymbols],
    variables: event.variables,
    dataframes: staged,
    caps: runnerCaps(config.caps),
    plots,
    ...(event.context === undefined ? {} : { contextJson: JSON.stringify(event.context), contextEncoding: event.contextEncoding ?? 'json' }),
    ...(runtime.containment.testEscapedRunner ? { testEscaped: true } : {}),
  });

  const backstopMs = backstopSeconds(event.timeoutSeconds, config.killGraceSeconds) * 1000;
  // remainingMs() is live, so the time staging took is already gone from it.
  const deadlineMs = Math.min(backstopMs, setup.remainingMs());
  const capture = new ConsoleCapture(config.caps.consoleOutputBytes, config.caps.resultBytes);
  const command = rscriptCommand(runtime, config.rlimits, setup.namespaces, layout);
  const env = setup.warm?.env ?? buildChildEnv(layout, {
    path: process.env['PATH'],
    rLibs: runtime.rLibs,
    runMarker: randomBytes(12).toString('hex'),
    capsule: runtime.containment.capsule,
  });
  const run = await runScript(command, layout, env, nonce, capture, deadlineMs, setup.warm?.hand(nonce));
  const budget = PostRunBudget.after(setup.remainingMs, config.postRun);
  const processes = { pid: run.pid, group: run.group, budget };

  const output = capture.snapshot();
  // Whatever happened, the pages drawn and files written so far go back: they help fix the script.
  if (run.killedAfterMs !== undefined) {
    const artifacts = await collectArtifacts(layout, plots, config, undefined, budget);
    return { ...processes, outcome: { kind: 'killed', afterMs: run.killedAfterMs, byRemainingTime: deadlineMs < backstopMs, output, artifacts } };
  }
  const read = await readEnvelope(layout.envelope, nonce);
  const artifacts = await collectArtifacts(layout, plots, config, read.ok ? (read.envelope.plotPages ?? []) : undefined, budget);
  if (!read.ok) {
    const { exitCode, signal, stderrTail } = run;
    return { ...processes, outcome: { kind: 'no-envelope', reason: read.reason, exitCode, signal, stderrTail, output, artifacts } };
  }
  return { ...processes, outcome: { kind: 'envelope', envelope: read.envelope, output, artifacts } };
}
