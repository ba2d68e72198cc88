/**
 * Service configuration: every operational limit, read once from the environment, validated,
 * failing fast with the name of the offending variable. The rules file (layers/rules) holds
 * what a script may *say*; this holds how much it may *use*. Both are published by GET /health.
 *
 * Variable names keep the JUBE_R_* names operators know (docs/execute-runtime.md). In Lambda the CDK
 * stack sets the timeout-chain values (infra/lib/timeout-chain.ts) so code and infrastructure
 * cannot disagree.
 */
import { z } from 'zod';
import { PLOT_LIMITS, SCRIPT_TIMEOUT_SECONDS_LIMIT } from '../contract/execute.ts';
import type { OutputCaps } from '../contract/output-caps.ts';
import { ROLE_ARN_PATTERN } from '../contract/iam-arns.ts';
import { readEnvironment } from './environment.ts';
import { executeTimeoutSeconds, LOCAL_EXECUTE_OVERHEAD_SECONDS } from './timeouts.ts';
import { ISOLATION_MODES, TENANCIES, TENANT_BINDINGS, type IsolationMode, type Tenancy, type TenantBinding } from '../contract/isolation.ts';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** Each entry: environment variable -> schema with its default. */
const ENV_SCHEMA = {
  JUBE_R_SCRIPT_TIMEOUT_SECONDS: int(1, SCRIPT_TIMEOUT_SECONDS_LIMIT).default(10),
  JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX: int(1, SCRIPT_TIMEOUT_SECONDS_LIMIT).default(20),
  /** Seconds between R's own setTimeLimit firing and the handler killing the process group. */
  JUBE_R_KILL_GRACE_SECONDS: int(1, 60).default(2),
  JUBE_R_MAX_INFLIGHT_EXECUTE: int(1, 1000).default(2),
  JUBE_R_MAX_REQUEST_BODY_BYTES: int(1024, 6 * 1024 * 1024).default(2 * 1024 * 1024),
  /** GET /help: a page's text is cut here (the generated file already cuts each page at 32 KiB). */
  JUBE_R_MAX_HELP_BYTES: int(1024, 1024 * 1024).default(16 * 1024),
  JUBE_R_MAX_CONSOLE_OUTPUT_BYTES: int(1024, 4 * 1024 * 1024).default(1024 * 1024),
  JUBE_R_MAX_ERROR_BYTES: int(256, 1024 * 1024).default(64 * 1024),
  JUBE_R_MAX_WARNINGS: int(1, 10_000).default(100),
  JUBE_R_MAX_WARNING_BYTES: int(256, 1024 * 1024).default(64 * 1024),
  JUBE_R_MAX_RESULT_BYTES: int(1024, 4 * 1024 * 1024).default(1024 * 1024),
  /** R message() conditions kept in `messages[]` (they also stay in the console, in order). */
  JUBE_R_MAX_MESSAGES: int(1, 10_000).default(100),
  JUBE_R_MAX_MESSAGE_BYTES: int(256, 1024 * 1024).default(64 * 1024),
  /** `value`: the last expression's value as JSON, or its printed form, at most this many bytes. */
  JUBE_R_MAX_VALUE_BYTES: int(1024, 4 * 1024 * 1024).default(256 * 1024),
  /**
   * The output budget a request gets when it names none (`outputBudget`), sized for a model's
   * context; each at most its cap above (a lower cap lowers it), which is the most a request may ask for.
   */
  JUBE_R_BUDGET_CONSOLE_BYTES: int(256, 4 * 1024 * 1024).default(16 * 1024),
  JUBE_R_BUDGET_VALUE_BYTES: int(256, 4 * 1024 * 1024).default(16 * 1024),
  JUBE_R_BUDGET_WARNINGS: int(1, 10_000).default(20),
  JUBE_R_BUDGET_MESSAGES: int(1, 10_000).default(20),
  /** errorDetails/warningDetails: a deparsed call is cut here; the traceback keeps this many frames. */
  JUBE_R_MAX_CALL_BYTES: int(64, 16 * 1024).default(512),
  JUBE_R_MAX_TRACEBACK_FRAMES: int(1, 100).default(10),
  /** `notes`: how many, and the bytes of each; `validation.errors` from R's re-validation: how many. */
  JUBE_R_MAX_NOTES: int(1, 100).default(20),
  JUBE_R_MAX_NOTE_BYTES: int(64, 16 * 1024).default(1024),
  JUBE_R_MAX_VALIDATION_ERRORS: int(1, 1000).default(50),
  /** The whole serialized response, whatever the caps above add up to; Lambda refuses more than 6 MB. */
  JUBE_R_MAX_RESPONSE_BYTES: int(64 * 1024, 5_900_000).default(5_500_000),
  /** Entries of out/ looked at (listed) per run; beyond this the listing stops. */
  JUBE_R_MAX_OUT_ENTRIES: int(1, 10_000).default(100),
  /**
   * Everything the handler does after R ends (envelope, plots, out/, removal, wipe): at most this
   * long, and never past the invocation's remaining time less JUBE_R_POST_RUN_RESERVE_MS.
   */
  JUBE_R_POST_RUN_MAX_MS: int(100, 600_000).default(5_000),
  JUBE_R_POST_RUN_RESERVE_MS: int(50, 60_000).default(500),
  /** Plots: pages returned per run and their total size (before base64, which adds a third). */
  JUBE_R_MAX_PLOTS: int(0, 100).default(10),
  JUBE_R_MAX_PLOTS_BYTES: int(0, 4 * 1024 * 1024).default(1024 * 1024),
  /** A page's size when the request does not say: 768 px on the long side, for a model to look at. */
  JUBE_R_PLOT_WIDTH_PX: int(PLOT_LIMITS.minPixels, PLOT_LIMITS.maxPixels).default(768),
  JUBE_R_PLOT_HEIGHT_PX: int(PLOT_LIMITS.minPixels, PLOT_LIMITS.maxPixels).default(576),
  JUBE_R_PLOT_DPI: int(PLOT_LIMITS.minDpi, PLOT_LIMITS.maxDpi).default(96),
  /** Files the script writes to out/: how many are returned and their total size (before base64). */
  JUBE_R_MAX_FILES: int(0, 100).default(10),
  JUBE_R_MAX_FILES_BYTES: int(0, 4 * 1024 * 1024).default(512 * 1024),
  /** rlimits applied to the Rscript process (address space, file size, open files, processes). */
  JUBE_R_RLIMIT_AS_BYTES: int(256 * 1024 * 1024, 64 * 1024 * 1024 * 1024).default(3 * 1024 * 1024 * 1024),
  JUBE_R_RLIMIT_FSIZE_BYTES: int(1024 * 1024, 10 * 1024 * 1024 * 1024).default(256 * 1024 * 1024),
  JUBE_R_RLIMIT_NOFILE: int(16, 65_536).default(256),
  JUBE_R_RLIMIT_NPROC: int(1, 65_536).default(64),
  /** Name (or ARN) of the execute function the validate function invokes. */
  JUBE_R_EXECUTE_FUNCTION_NAME: z.string().min(1).default('jube-r-execute'),
  /** PER_TENANT (set by the stack when the execute function uses Lambda tenant isolation): invoke with a TenantId. */
  JUBE_R_EXECUTE_TENANCY: z.enum(TENANCIES).default('SHARED'),
  /** Why a deployment shares execution environments between keys (the stack sets it with SHARED). */
  JUBE_R_SHARED_TENANCY_REASON: z.string().min(1).optional(),
  /** What one isolation key, and so one TenantId, stands for (layers/contract/isolation.ts). */
  JUBE_R_ISOLATION: z.enum(ISOLATION_MODES).default('session'),
  /**
   * Who may name which tenant in `/t/{tenant}/` (layers/contract/isolation.ts). The stack sets it on
   * the API function; unset, only a local API (no IAM in front) runs, as `unchecked`
   * (functions/api/http/caller.ts refuses to start in Lambda without it).
   */
  JUBE_R_TENANT_BINDING: z.enum(TENANT_BINDINGS).optional(),
  /** The role `identity` callers are sessions of, or the one `single-orchestrator` role. */
  JUBE_R_CALLER_ROLE_ARN: z.string().regex(ROLE_ARN_PATTERN, 'must be an IAM role ARN').optional(),
  /** Lambda endpoint override: the local emulation or `sam local start-lambda`; unset means AWS. */
  JUBE_R_LAMBDA_ENDPOINT: z.url().optional(),
  /** Lambda client request timeout; must exceed the execute function's own timeout. */
  JUBE_R_LAMBDA_CLIENT_TIMEOUT_MS: int(1000, 900_000).optional(),
  /** What the validate function keeps of its remaining time to answer after giving up on an invoke. */
  JUBE_R_RESPONSE_RESERVE_MS: int(100, 60_000).default(1000),
  /** Data pointers: a local directory (<dir>/<tenant>/<pointer>.csv) or, in AWS, an S3 bucket. */
  JUBE_R_DATA_DIR: z.string().min(1).default('.jube-data'),
  JUBE_R_DATA_BUCKET: z.string().min(3).optional(),
  JUBE_R_PRESIGN_TTL_SECONDS: int(10, 3600).default(120),
  JUBE_R_MAX_DATAFRAME_BYTES: int(1024, 2 * 1024 * 1024 * 1024).default(50 * 1024 * 1024),
  JUBE_R_MAX_DATAFRAMES_TOTAL_BYTES: int(1024, 8 * 1024 * 1024 * 1024).default(200 * 1024 * 1024),
  /**
   * Sessions (docs/sessions.md): the store of their snapshots (a local directory, or in AWS a bucket
   * of its own), a snapshot's size (its JSON, before gzip; it travels inside the invoke's payload, so
   * the request body and the response leave room for it) and objects, and the idle time after
   * which a session starts new.
   */
  JUBE_R_SESSION_DIR: z.string().min(1).default('.jube-sessions'),
  JUBE_R_SESSION_BUCKET: z.string().min(3).optional(),
  JUBE_R_MAX_SESSION_BYTES: int(64 * 1024, 4 * 1024 * 1024).default(2 * 1024 * 1024),
  JUBE_R_MAX_SESSION_OBJECTS: int(1, 10_000).default(200),
  JUBE_R_SESSION_IDLE_SECONDS: int(1, 86_400).default(1800),
  /** The sandbox layers the deployment provides (comma-separated), for GET /health; unset: not declared. */
  JUBE_R_SANDBOX_LAYERS: z.string().optional(),
  /** The warm start (functions/execute/warm/): an Rscript started before the request; `on` in the image and the local stack. */
  JUBE_R_WARM: z.enum(['on', 'off']).default('off'),
  /** A warm runner older than this is replaced and the call runs cold. */
  JUBE_R_WARM_MAX_AGE_SECONDS: int(1, 86_400).default(900),
  /** A warm runner that does not answer the readiness check this fast is replaced and the call runs cold. */
  JUBE_R_WARM_READY_MS: int(10, 10_000).default(250),
  /** The namespaces a warm runner loads (never attaches) before the request, comma-separated, `none` for none; each must be in packages.R. */
  JUBE_R_WARM_PACKAGES: z.string().optional(),
} as const;

type ServiceConfigEnv = z.infer<z.ZodObject<typeof ENV_SCHEMA>>;

/** The variables readServiceConfig reads (infra/lib/environment-variables.ts sets them). */
export type ServiceConfigKey = keyof typeof ENV_SCHEMA;

export interface ServiceConfig {
  readonly scriptTimeoutSeconds: number;
  readonly scriptTimeoutSecondsMax: number;
  readonly killGraceSeconds: number;
  readonly maxInflightExecute: number;
  readonly maxRequestBodyBytes: number;
  readonly maxHelpBytes: number;
  readonly caps: OutputCaps;
  /**
   * The output budget of a request that names none (layers/config/output-budget.ts); the caps
   * above (consoleOutputBytes, valueBytes, warnings, messages) are its maxima.
   */
  readonly outputBudget: { readonly consoleBytes: number; readonly valueBytes: number; readonly warnings: number; readonly messages: number };
  /** The post-run budget (functions/execute/output/post-run-budget.ts). */
  readonly postRun: { readonly maxMs: number; readonly reserveMs: number };
  /** Plot capture: the caps per run and the page defaults a request may override within PLOT_LIMITS. */
  readonly plots: {
    readonly maxCount: number;
    readonly maxBytes: number;
    readonly width: number;
    readonly height: number;
    readonly dpi: number;
  };
  /** Files returned from out/. */
  readonly files: { readonly maxCount: number; readonly maxBytes: number; readonly maxEntries: number };
  readonly rlimits: {
    readonly addressSpaceBytes: number;
    readonly fileSizeBytes: number;
    readonly openFiles: number;
    readonly processes: number;
  };
  readonly executeFunctionName: string;
  /** Each invocation carries the caller's tenant as its TenantId (JUBE_R_EXECUTE_TENANCY=PER_TENANT). */
  readonly executePerTenant: boolean;
  /** How invocations are keyed (functions/api/invoke/isolation-key.ts), as GET /health reports it. */
  readonly isolation: {
    readonly mode: IsolationMode;
    readonly tenancy: Tenancy;
    readonly sharedTenancyReason: string | undefined;
  };
  /** JUBE_R_TENANT_BINDING and its role, as set; resolved (and refused when missing in Lambda) by the API. */
  readonly tenantBinding: { readonly mode: TenantBinding | undefined; readonly roleArn: string | undefined };
  readonly lambdaEndpoint: string | undefined;
  /** Defaults to the local execute timeout (localExecuteTimeoutMs) + 5 s, so it outlives the execute function. */
  readonly lambdaClientTimeoutMs: number;
  /** The invoke's deadline leaves this much of the validate function's remaining time (infra/lib/timeout-chain.ts). */
  readonly responseReserveMs: number;
  /** JUBE_R_SANDBOX_LAYERS as a list; undefined when the deployment declares none. */
  readonly declaredSandboxLayers: readonly string[] | undefined;
  /** The warm start; `packages` undefined: the default list (functions/execute/warm/warm-settings.ts). */
  readonly warm: {
    readonly enabled: boolean;
    readonly maxAgeMs: number;
    readonly readyMs: number;
    readonly packages: readonly string[] | undefined;
  };
  readonly data: {
    readonly dir: string;
    readonly bucket: string | undefined;
    readonly presignTtlSeconds: number;
    readonly maxDataframeBytes: number;
    readonly maxTotalBytes: number;
  };
  readonly sessions: {
    readonly dir: string;
    readonly bucket: string | undefined;
    readonly maxBytes: number;
    readonly maxObjects: number;
    readonly idleSeconds: number;
  };
}

/** Lambda's cap on a synchronous invoke's request and response payloads. */
export const LAMBDA_PAYLOAD_BYTES = 6 * 1024 * 1024;
/** A snapshot's largest size in transit: base64 of a gzip that never exceeds its JSON by more than this. */
export const sessionTransitBytes = (maxBytes: number): number => Math.ceil(((maxBytes + 1024) * 4) / 3);

/**
 * Where no stack derives the timeout chain (infra/lib/timeout-chain.ts), i.e. the local stack and
 * the default Lambda client timeout: the execute function may live for the longest script's
 * backstop plus the local overhead (timeouts.ts), and the client waits LOCAL_CLIENT_MARGIN_MS longer.
 */
export const localExecuteTimeoutMs = (maxScriptSeconds: number, killGraceSeconds: number): number =>
  executeTimeoutSeconds(maxScriptSeconds, killGraceSeconds, LOCAL_EXECUTE_OVERHEAD_SECONDS) * 1000;
const LOCAL_CLIENT_MARGIN_MS = 5_000;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Validates an environment into a ServiceConfig; throws ConfigError naming every bad key. */
export function readServiceConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const read = readEnvironment(ENV_SCHEMA, env);
  if (!read.ok) throw new ConfigError(`invalid jube-r configuration: ${read.problems.join('; ')}`);
  const e: ServiceConfigEnv = read.values;
  if (e.JUBE_R_TENANT_BINDING !== undefined && e.JUBE_R_TENANT_BINDING !== 'unchecked' && e.JUBE_R_CALLER_ROLE_ARN === undefined) {
    throw new ConfigError(`invalid jube-r configuration: JUBE_R_TENANT_BINDING=${e.JUBE_R_TENANT_BINDING} needs JUBE_R_CALLER_ROLE_ARN (the role its callers are sessions of)`);
  }
  if (e.JUBE_R_SCRIPT_TIMEOUT_SECONDS > e.JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX) {
    throw new ConfigError(
      `invalid jube-r configuration: JUBE_R_SCRIPT_TIMEOUT_SECONDS (${e.JUBE_R_SCRIPT_TIMEOUT_SECONDS}) exceeds JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX (${e.JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX})`,
    );
  }
  // A session's snapshot rides in the invoke's payload both ways, beside the request and the response.
  const transit = sessionTransitBytes(e.JUBE_R_MAX_SESSION_BYTES);
  if (e.JUBE_R_MAX_REQUEST_BODY_BYTES + transit + 64 * 1024 > LAMBDA_PAYLOAD_BYTES) {
    throw new ConfigError(
      `invalid jube-r configuration: JUBE_R_MAX_REQUEST_BODY_BYTES (${e.JUBE_R_MAX_REQUEST_BODY_BYTES}) plus a session snapshot (JUBE_R_MAX_SESSION_BYTES ${e.JUBE_R_MAX_SESSION_BYTES}, ${transit} in transit) exceed Lambda's ${LAMBDA_PAYLOAD_BYTES}-byte invoke payload`,
    );
  }
  return {
    scriptTimeoutSeconds: e.JUBE_R_SCRIPT_TIMEOUT_SECONDS,
    scriptTimeoutSecondsMax: e.JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX,
    killGraceSeconds: e.JUBE_R_KILL_GRACE_SECONDS,
    maxInflightExecute: e.JUBE_R_MAX_INFLIGHT_EXECUTE,
    maxRequestBodyBytes: e.JUBE_R_MAX_REQUEST_BODY_BYTES,
    maxHelpBytes: e.JUBE_R_MAX_HELP_BYTES,
    caps: {
      consoleOutputBytes: e.JUBE_R_MAX_CONSOLE_OUTPUT_BYTES,
      errorBytes: e.JUBE_R_MAX_ERROR_BYTES,
      warnings: e.JUBE_R_MAX_WARNINGS,
      warningBytes: e.JUBE_R_MAX_WARNING_BYTES,
      resultBytes: e.JUBE_R_MAX_RESULT_BYTES,
      messages: e.JUBE_R_MAX_MESSAGES,
      messageBytes: e.JUBE_R_MAX_MESSAGE_BYTES,
      valueBytes: e.JUBE_R_MAX_VALUE_BYTES,
      callBytes: e.JUBE_R_MAX_CALL_BYTES,
      tracebackFrames: e.JUBE_R_MAX_TRACEBACK_FRAMES,
      notes: e.JUBE_R_MAX_NOTES,
      noteBytes: e.JUBE_R_MAX_NOTE_BYTES,
      validationErrors: e.JUBE_R_MAX_VALIDATION_ERRORS,
      responseBytes: e.JUBE_R_MAX_RESPONSE_BYTES,
    },
    // A deployment that lowers a cap below the default budget lowers the budget with it.
    outputBudget: {
      consoleBytes: Math.min(e.JUBE_R_BUDGET_CONSOLE_BYTES, e.JUBE_R_MAX_CONSOLE_OUTPUT_BYTES),
      valueBytes: Math.min(e.JUBE_R_BUDGET_VALUE_BYTES, e.JUBE_R_MAX_VALUE_BYTES),
      warnings: Math.min(e.JUBE_R_BUDGET_WARNINGS, e.JUBE_R_MAX_WARNINGS),
      messages: Math.min(e.JUBE_R_BUDGET_MESSAGES, e.JUBE_R_MAX_MESSAGES),
    },
    postRun: { maxMs: e.JUBE_R_POST_RUN_MAX_MS, reserveMs: e.JUBE_R_POST_RUN_RESERVE_MS },
    plots: {
      maxCount: e.JUBE_R_MAX_PLOTS,
      maxBytes: e.JUBE_R_MAX_PLOTS_BYTES,
      width: e.JUBE_R_PLOT_WIDTH_PX,
      height: e.JUBE_R_PLOT_HEIGHT_PX,
      dpi: e.JUBE_R_PLOT_DPI,
    },
    files: { maxCount: e.JUBE_R_MAX_FILES, maxBytes: e.JUBE_R_MAX_FILES_BYTES, maxEntries: e.JUBE_R_MAX_OUT_ENTRIES },
    rlimits: {
      addressSpaceBytes: e.JUBE_R_RLIMIT_AS_BYTES,
      fileSizeBytes: e.JUBE_R_RLIMIT_FSIZE_BYTES,
      openFiles: e.JUBE_R_RLIMIT_NOFILE,
      processes: e.JUBE_R_RLIMIT_NPROC,
    },
    executeFunctionName: e.JUBE_R_EXECUTE_FUNCTION_NAME,
    executePerTenant: e.JUBE_R_EXECUTE_TENANCY === 'PER_TENANT',
    isolation: {
      mode: e.JUBE_R_ISOLATION,
      tenancy: e.JUBE_R_EXECUTE_TENANCY,
      sharedTenancyReason: e.JUBE_R_SHARED_TENANCY_REASON,
    },
    tenantBinding: { mode: e.JUBE_R_TENANT_BINDING, roleArn: e.JUBE_R_CALLER_ROLE_ARN },
    lambdaEndpoint: e.JUBE_R_LAMBDA_ENDPOINT,
    lambdaClientTimeoutMs:
      e.JUBE_R_LAMBDA_CLIENT_TIMEOUT_MS ??
      localExecuteTimeoutMs(e.JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX, e.JUBE_R_KILL_GRACE_SECONDS) + LOCAL_CLIENT_MARGIN_MS,
    responseReserveMs: e.JUBE_R_RESPONSE_RESERVE_MS,
    declaredSandboxLayers: listOrUndefined(e.JUBE_R_SANDBOX_LAYERS),
    warm: {
      enabled: e.JUBE_R_WARM === 'on',
      maxAgeMs: e.JUBE_R_WARM_MAX_AGE_SECONDS * 1000,
      readyMs: e.JUBE_R_WARM_READY_MS,
      packages: e.JUBE_R_WARM_PACKAGES === 'none' ? [] : listOrUndefined(e.JUBE_R_WARM_PACKAGES),
    },
    data: {
      dir: e.JUBE_R_DATA_DIR,
      bucket: e.JUBE_R_DATA_BUCKET,
      presignTtlSeconds: e.JUBE_R_PRESIGN_TTL_SECONDS,
      maxDataframeBytes: e.JUBE_R_MAX_DATAFRAME_BYTES,
      maxTotalBytes: e.JUBE_R_MAX_DATAFRAMES_TOTAL_BYTES,
    },
    sessions: {
      dir: e.JUBE_R_SESSION_DIR,
      bucket: e.JUBE_R_SESSION_BUCKET,
      maxBytes: e.JUBE_R_MAX_SESSION_BYTES,
      maxObjects: e.JUBE_R_MAX_SESSION_OBJECTS,
      idleSeconds: e.JUBE_R_SESSION_IDLE_SECONDS,
    },
  };
}

function listOrUndefined(raw: string | undefined): string[] | undefined {
  const items = (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return items.length > 0 ? items : undefined;
}

/** A note for a timeoutSeconds the clamp lowered: the maximum and what was used; undefined otherwise. */
export function timeoutClampNote(requested: number | undefined, config: ServiceConfig): string | undefined {
  if (requested === undefined || !Number.isFinite(requested) || requested <= config.scriptTimeoutSecondsMax) return undefined;
  return `timeoutSeconds ${requested} is above this deployment's maximum; ${config.scriptTimeoutSecondsMax} s was used (GET /health?detail=full limits.scriptTimeoutSecondsMax)`;
}

/** Clamps a caller's timeoutSeconds into [1, max]; never rejects (docs/api.md). */
export function clampTimeoutSeconds(requested: number | undefined, config: ServiceConfig): number {
  const wanted = requested ?? config.scriptTimeoutSeconds;
  if (!Number.isFinite(wanted)) return config.scriptTimeoutSeconds;
  return Math.min(config.scriptTimeoutSecondsMax, Math.max(1, Math.ceil(wanted)));
}
