/**
 * Staging and spawning for one invocation, in its private workdir: the dataframes, the inputs
 * the runner reads, exactly one Rscript under the backstop deadline, then (once every process of
 * the run, and in the image of the environment, is dead) the envelope and what the run left behind
 * (plots, out/ files). Returns an RunOutcome (and what happened to the
 * processes); the caller owns the workdir's cleanup.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import { backstopSeconds } from '../../../layers/config/timeouts.ts';
import type { ExecuteEvent } from '../../../layers/contract/execute.ts';
import { RUNNER_FILES } from '../../../layers/contract/runner.ts';
import { collectArtifacts } from '../output/artifacts.ts';
import { readRegularFile } from '../output/safe-read.ts';
import type { StagedSession } from '../session.ts';
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
  /**
   * Runs once the run's process group and marked processes are killed and before anything the run
   * left is read (console, envelope, plots, out/): the handler's environment-wide kill and IPC
   * sweep, so that no process that escaped both (a setsid survivor that cleaned its environment)
   * is alive to change what is read (output/safe-read.ts relies on it).
   */
  readonly beforeReading?: ((budget: PostRunBudget) => Promise<unknown>) | undefined;
  /** A session's call (functions/execute/session.ts): its snapshot staged, the one it writes read back. */
  readonly session?: StagedSession | undefined;
}

export interface WorkdirRun {
  readonly outcome: RunOutcome;
  /** Set once an Rscript was spawned. */
  readonly pid?: number | undefined;
  readonly group?: GroupKillReport | undefined;
  /** Started when R ended; the handler's cleanup runs under the same one. */
  readonly budget?: PostRunBudget | undefined;
  /** A session's call that finished: the snapshot the runner wrote, if one within the cap. */
  readonly sessionSnapshot?: Buffer | undefined;
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
    ...(setup.session ? { session: setup.session.input } : {}),
  });
  if (setup.session?.snapshot) await writeFile(join(layout.root, RUNNER_FILES.sessionIn), setup.session.snapshot, { mode: 0o600 });

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
  const run = await runScript(command, layout, env, nonce, capture, deadlineMs, setup.warm?.hand(nonce), setup.namespaces.kind === 'bwrap');
  const budget = PostRunBudget.after(setup.remainingMs, config.postRun);
  const processes = { pid: run.pid, group: run.group, budget };
  await setup.beforeReading?.(budget);

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
  // Only a run that answered keeps its workspace: its envelope says what the snapshot holds.
  const sessionSnapshot = setup.session && read.envelope.session?.saved
    ? await readRegularFile(join(layout.root, RUNNER_FILES.sessionOut), setup.session.input.maxBytes)
    : undefined;
  return { ...processes, sessionSnapshot, outcome: { kind: 'envelope', envelope: read.envelope, output, artifacts } };
}
