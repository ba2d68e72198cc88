/** GET /health: liveness plus the live rules, limits and sandbox layers of this deployment. */
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import { CONTEXT_MAX_DEPTH, VALUE_LIMITS, PLOT_LIMITS } from '../../../layers/contract/execute.ts';
import { ENVELOPE_LIMITS } from '../../../layers/contract/runner.ts';
import { capabilitySummary } from '../../../layers/rules/capabilities.ts';
import type { ScriptRules } from '../../../layers/rules/rules.ts';
import type { ApiDeps } from './deps.ts';
import { HealthQuerySchema, type HealthResponse, type HealthSummary, type IsolationStatus, type Limits } from '../../../layers/contract/api.ts';
import { parseBody } from '../http/parse-body.ts';
import { isSandboxed } from '../../../layers/contract/sandbox-layers.ts';
import { tenantEnvironmentCap, type IsolationBoundary, type TenantBinding } from '../../../layers/contract/isolation.ts';

export function limitsOf(config: ServiceConfig, rules: ScriptRules): Limits {
  return {
    scriptTimeoutSecondsDefault: config.scriptTimeoutSeconds,
    scriptTimeoutSecondsMax: config.scriptTimeoutSecondsMax,
    killGraceSeconds: config.killGraceSeconds,
    maxInflightExecute: config.maxInflightExecute,
    maxRequestBodyBytes: config.maxRequestBodyBytes,
    maxConsoleOutputBytes: config.caps.consoleOutputBytes,
    budgetConsoleBytesDefault: config.outputBudget.consoleBytes,
    budgetValueBytesDefault: config.outputBudget.valueBytes,
    budgetWarningsDefault: config.outputBudget.warnings,
    budgetMessagesDefault: config.outputBudget.messages,
    maxErrorBytes: config.caps.errorBytes,
    maxWarnings: config.caps.warnings,
    maxWarningBytes: config.caps.warningBytes,
    maxResultBytes: config.caps.resultBytes,
    maxMessages: config.caps.messages,
    maxMessageBytes: config.caps.messageBytes,
    maxValueBytes: config.caps.valueBytes,
    maxCallBytes: config.caps.callBytes,
    maxTracebackFrames: config.caps.tracebackFrames,
    maxNotes: config.caps.notes,
    maxNoteBytes: config.caps.noteBytes,
    maxValidationErrors: config.caps.validationErrors,
    maxResponseBytes: config.caps.responseBytes,
    maxOutEntries: config.files.maxEntries,
    postRunMaxMs: config.postRun.maxMs,
    postRunReserveMs: config.postRun.reserveMs,
    warmMaxAgeSeconds: config.warm.maxAgeMs / 1000,
    warmReadyMs: config.warm.readyMs,
    maxEnvelopeBytes: ENVELOPE_LIMITS.maxBytes,
    maxEnvelopeDepth: ENVELOPE_LIMITS.maxDepth,
    maxPlots: config.plots.maxCount,
    maxPlotsBytes: config.plots.maxBytes,
    plotWidthDefault: config.plots.width,
    plotHeightDefault: config.plots.height,
    plotDpiDefault: config.plots.dpi,
    minPlotPixels: PLOT_LIMITS.minPixels,
    maxPlotPixels: PLOT_LIMITS.maxPixels,
    minPlotDpi: PLOT_LIMITS.minDpi,
    maxPlotDpi: PLOT_LIMITS.maxDpi,
    maxFiles: config.files.maxCount,
    maxFilesBytes: config.files.maxBytes,
    maxContextDepth: CONTEXT_MAX_DEPTH,
    maxValueDepth: VALUE_LIMITS.maxDepth,
    maxValueTypes: VALUE_LIMITS.maxTypes,
    maxVariables: rules.variables.maxCount,
    maxVariableArrayLength: rules.variables.maxArrayLength,
    maxVariableStringBytes: rules.variables.maxStringBytes,
    maxDataframes: rules.dataframes.maxCount,
    maxDataframeBytes: config.data.maxDataframeBytes,
    maxDataframesTotalBytes: config.data.maxTotalBytes,
    maxSessionBytes: config.sessions.maxBytes,
    maxSessionObjects: config.sessions.maxObjects,
    sessionIdleSeconds: config.sessions.idleSeconds,
    maxScriptBytes: rules.script.maxBytes,
    maxScriptNestingDepth: rules.script.maxNestingDepth,
    rlimitAddressSpaceBytes: config.rlimits.addressSpaceBytes,
    rlimitFileSizeBytes: config.rlimits.fileSizeBytes,
    rlimitOpenFiles: config.rlimits.openFiles,
    rlimitProcesses: config.rlimits.processes,
    maxHelpBytes: config.maxHelpBytes,
  };
}

/** How calls are keyed here and what keeps two keys apart (`boundary`, from where the API runs). */
export function isolationOf(config: ServiceConfig, boundary: IsolationBoundary, tenantBinding: TenantBinding): IsolationStatus {
  const { tenancy, mode, sharedTenancyReason } = config.isolation;
  return {
    tenancy,
    ...(tenancy === 'SHARED' && sharedTenancyReason !== undefined ? { sharedTenancyReason } : {}),
    mode,
    boundary,
    ...(tenancy === 'PER_TENANT' ? { maxTenantEnvironments: tenantEnvironmentCap(config.maxInflightExecute) } : {}),
    tenantBinding,
  };
}

/** GET /health: the summary, or with `?detail=full` the whole answer (HealthQuerySchema). */
export async function healthAnswer(deps: ApiDeps, query: Record<string, string | undefined> | null): Promise<HealthSummary | HealthResponse> {
  const { detail } = parseBody(HealthQuerySchema, query ?? {});
  const full = await health(deps);
  if (detail === 'full') return full;
  const { rules: _rules, capabilities: _capabilities, limits: _limits, ...summary } = full;
  return summary;
}

export async function health(deps: ApiDeps): Promise<HealthResponse> {
  const rules = deps.rules();
  const sandbox = await deps.sandbox();
  return {
    status: 'ok',
    service: 'jube-r',
    version: deps.version,
    rVersion: deps.manifest().rVersion,
    uptimeSeconds: Math.round((deps.now() - deps.startedAt) / 1000),
    rules,
    capabilities: capabilitySummary(),
    limits: limitsOf(deps.config, rules),
    sandbox: { ...sandbox, sandboxed: isSandboxed(sandbox.layers) },
    isolation: isolationOf(deps.config, deps.isolationBoundary, deps.callers.mode),
    warm: await deps.warm(),
  };
}
