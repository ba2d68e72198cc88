/**
 * The execute function: ExecuteEvent -> ExecuteResponse (DESIGN.md sections 2-4). It trusts no
 * caller: the event is zod-parsed, the script validated again, then exactly one Rscript runs the
 * runner in a private workdir with a scrubbed environment, rlimits and its own process group;
 * afterwards the group is killed and verified empty and the workdir removed, whatever happened.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { executeEventSchema, type ExecuteEvent, type ExecuteResponse } from '../../layers/contract/execute.ts';
import type { ValidationResult } from '../../layers/contract/validation.ts';
import { readServiceConfig, type ServiceConfig } from '../../layers/config/service-config.ts';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { getParser } from '../../layers/parser/tree-sitter.ts';
import { treeSitterSymbols } from '../../layers/parser/symbol-inventory.ts';
import { allowedPackages, loadRules, type SandboxRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator, type Validator } from '../../layers/validator/validator.ts';
import { ConsoleCapture, capText, capWarnings } from './caps.ts';
import { buildChildEnv } from './child-env.ts';
import { DataframeStagingError, stageDataframes } from './dataframes.ts';
import { readEnvelope } from './envelope.ts';
import type { GroupKillReport } from './process-group.ts';
import { runScript } from './run-script.ts';
import { readRuntimePaths, type RuntimePaths } from './runtime-paths.ts';
import { resolveSandbox } from './sandbox.ts';
import { rscriptCommand } from './spawn-rscript.ts';
import { createWorkdir, removeWorkdir, writeInputs, type WorkdirLayout } from './workdir.ts';

/** The part of the Lambda context the handler uses. */
export interface LambdaContextLike {
  getRemainingTimeInMillis(): number;
  readonly awsRequestId?: string;
}

/** The event is not an ExecuteEvent: a function error, mapped by the caller (never a script outcome). */
export class InvalidExecuteEventError extends Error {
  override readonly name = 'InvalidExecuteEventError';
}

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
}

export type ExecuteHandler = (event: unknown, context?: LambdaContextLike) => Promise<ExecuteResponse>;

/** The runner's result file; its fields are capped again here, this only bounds the read. */
const ENVELOPE_MAX_BYTES = 16 * 1024 * 1024;
/** Fetching the dataframes never takes longer than this, nor past the invocation's remaining time. */
const MAX_STAGING_MS = 60_000;

/** The manifest, or undefined where it was never generated (tests pass what they need). */
function manifestOrUndefined() {
  try {
    return loadManifest();
  } catch {
    return undefined;
  }
}

export function parseExecuteEvent(event: unknown, rules: SandboxRules): ExecuteEvent {
  const parsed = executeEventSchema(rules).safeParse(event);
  if (!parsed.success) {
    throw new InvalidExecuteEventError(`invalid execute event: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

export function createExecuteHandler(options: ExecuteHandlerOptions = {}): ExecuteHandler {
  const config = options.config ?? readServiceConfig();
  const paths = options.paths ?? readRuntimePaths();
  const rules = options.rules ?? loadRules(paths.rulesFile);
  const manifest = manifestOrUndefined();
  const declared = options.declaredPackages ?? manifest?.declared ?? [];
  const allowed = [...allowedPackages(rules, declared)].sort();
  const safetyMarginMs = options.safetyMarginMs ?? 1500;
  let validator: Promise<Validator> | undefined =
    options.validator === undefined ? undefined : Promise.resolve(options.validator);
  // Learned from the first run; before that the manifest's (the same R) or nothing.
  let rVersion = manifest?.rVersion ?? 'unknown';

  return async function executeHandler(event, context) {
    const started = Date.now();
    const e = parseExecuteEvent(event, rules);
    const base = (): Pick<ExecuteResponse, 'durationMs' | 'rVersion' | 'timestamp'> => ({
      durationMs: Date.now() - started,
      rVersion,
      timestamp: new Date(started).toISOString(),
    });

    // The installed list comes from the manifest, which must exist by now (it names the command that writes it).
    validator ??= loadValidator({ rules, ...manifestPackages(loadManifest()), declaredPackages: declared });
    const validation: ValidationResult = (await validator)(e.script);
    if (!validation.valid) {
      return { status: 'rejected', consoleOutput: '', error: null, warnings: [], timedOut: false, validation, ...base() };
    }

    const [parser, sandbox] = await Promise.all([getParser(), resolveSandbox(paths.sandbox)]);
    const layout = await createWorkdir(paths.tmpRoot);
    let report: RunReport = { workdir: layout.root, pid: undefined, group: undefined };
    try {
      return await runInWorkdir(e, layout, context, base, (r) => {
        report = { ...report, ...r };
        if (r.rVersion) rVersion = r.rVersion;
      }, { parser, sandbox });
    } finally {
      await removeWorkdir(layout);
      options.onRunReport?.(report);
      if (report.group && report.group.survivors.length > 0) {
        console.error(JSON.stringify({ level: 'ERROR', message: 'processes survived the group kill', ...report.group }));
      }
    }
  };

  async function runInWorkdir(
    e: ExecuteEvent,
    layout: WorkdirLayout,
    context: LambdaContextLike | undefined,
    base: () => Pick<ExecuteResponse, 'durationMs' | 'rVersion' | 'timestamp'>,
    note: (r: { pid?: number | undefined; group?: GroupKillReport | undefined; rVersion?: string }) => void,
    tools: { parser: Awaited<ReturnType<typeof getParser>>; sandbox: Awaited<ReturnType<typeof resolveSandbox>> },
  ): Promise<ExecuteResponse> {
    const remaining = () => (context ? context.getRemainingTimeInMillis() - safetyMarginMs : Number.POSITIVE_INFINITY);
    const failure = (message: string): ExecuteResponse => ({
      status: 'error', consoleOutput: '', error: message, warnings: [], timedOut: false, ...base(),
    });

    let staged;
    try {
      staged = await stageDataframes(e.dataframes, layout.dataDir, config.data, AbortSignal.timeout(Math.max(1, Math.min(remaining(), MAX_STAGING_MS))));
    } catch (error) {
      if (error instanceof DataframeStagingError) return failure(`${error.message}; the script was not run`);
      throw error;
    }

    const nonce = randomBytes(32).toString('hex');
    await writeInputs(layout, e.script, {
      timeoutSeconds: e.timeoutSeconds,
      allowedPackages: allowed,
      treeSitterSymbols: treeSitterSymbols(tools.parser, e.script) ?? null,
      variables: e.variables,
      dataframes: staged,
      caps: { errorBytes: config.caps.errorBytes, warnings: config.caps.warnings, warningBytes: config.caps.warningBytes },
    });

    const backstopMs = (e.timeoutSeconds + config.killGraceSeconds) * 1000;
    // remaining() is live (the context counts down), so the time staging took is already gone from it.
    const deadlineMs = Math.min(backstopMs, remaining());
    const capture = new ConsoleCapture(config.caps.consoleOutputBytes, config.caps.resultBytes);
    const command = rscriptCommand(paths, config.rlimits, tools.sandbox, layout);
    const env = buildChildEnv(layout, { path: process.env['PATH'], rLibs: paths.rLibs, runMarker: randomBytes(12).toString('hex') });
    const outcome = await runScript(command, layout, env, nonce, capture, deadlineMs);
    note({ pid: outcome.pid, group: outcome.group });

    const consoleOutput = capture.consoleText();
    let truncated = capture.truncated;
    const extracted = capture.result();
    const resultFields: Pick<ExecuteResponse, 'result' | 'resultWarning'> =
      extracted.kind === 'ok' ? { result: extracted.value } : extracted.kind === 'invalid' ? { resultWarning: extracted.warning } : {};
    if (extracted.kind === 'invalid' && extracted.overflow) truncated = true;

    if (outcome.killedAfterMs !== undefined) {
      const after = Math.round(outcome.killedAfterMs / 100) / 10;
      const message =
        deadlineMs < backstopMs
          ? `script was killed by the runtime backstop after ${after} s: the invocation's remaining time ran out before its ${e.timeoutSeconds} s limit`
          : `script exceeded its ${e.timeoutSeconds} s limit and was killed by the runtime backstop after ${e.timeoutSeconds + config.killGraceSeconds} s`;
      return finish({ status: 'error', consoleOutput, error: message, warnings: [], timedOut: true, ...resultFields, ...base() }, truncated);
    }

    const read = await readEnvelope(layout.envelope, nonce, ENVELOPE_MAX_BYTES);
    if (!read.ok) {
      const how = outcome.signal ? `signal ${outcome.signal}` : `exit code ${outcome.exitCode ?? 'unknown'}`;
      const lastWords = outcome.stderrTail.trim().split('\n').slice(-5).join('\n');
      const detail = lastWords ? `; R said: ${lastWords}` : '';
      const error = capText(`R exited without a result (${how}; ${read.reason})${detail}`, config.caps.errorBytes);
      return finish({ status: 'error', consoleOutput, error: error.value, warnings: [], timedOut: false, ...resultFields, ...base() }, truncated || error.truncated);
    }

    const envelope = read.envelope;
    note({ rVersion: envelope.rVersion });
    if (envelope.status === 'rejected') {
      return finish({
        status: 'rejected', consoleOutput: '', error: null, warnings: [], timedOut: false,
        validation: { valid: false, errors: envelope.validation ?? [], lint: [], durationMs: 0 },
        ...base(), rVersion: envelope.rVersion,
      }, false);
    }
    const error = envelope.error === null ? { value: null, truncated: false } : capText(envelope.error, config.caps.errorBytes);
    const warnings = capWarnings(envelope.warnings, config.caps.warnings, config.caps.warningBytes);
    return finish({
      status: envelope.status,
      consoleOutput,
      error: error.value,
      warnings: warnings.value,
      timedOut: envelope.timedOut,
      ...resultFields,
      ...base(),
      rVersion: envelope.rVersion,
    }, truncated || error.truncated || warnings.truncated || (envelope.warningsDropped ?? 0) > 0);
  }
}

function finish(response: ExecuteResponse, truncated: boolean): ExecuteResponse {
  return truncated ? { ...response, truncated: true } : response;
}

let defaultHandler: ExecuteHandler | undefined;

/** The Lambda entry point; configuration is read on the first invocation. */
export async function handler(event: unknown, context?: LambdaContextLike): Promise<ExecuteResponse> {
  defaultHandler ??= createExecuteHandler();
  return defaultHandler(event, context);
}
