/**
 * The HTTP contract (docs/api.md, docs/openapi.yaml) in one module: the routes, the request and response
 * bodies of each as zod schemas, the stable error codes with their HTTP statuses, and the one
 * error body. docs/openapi.yaml is checked against it (test/unit/api/openapi.test.ts). Every
 * object is strict, so an unknown field anywhere is an error rather than silently ignored.
 */
import { z } from 'zod';
import {
  ContextEncodingSchema,
  ExecuteResponseSchema,
  limitedByRules,
  limitedContextSchema,
  limitedDataframesSchema,
  limitedVariablesSchema,
  OutputBudgetSchema,
  PlotsRequestSchema,
  refineDistinctNames,
  RNameSchema,
} from './execute.ts';
import { refineContextEncoding } from './context-encoding.ts';
import { ISOLATION_BOUNDARIES, ISOLATION_MODES, TENANCIES, TENANT_BINDINGS } from './isolation.ts';
import { ValidationResultSchema } from './validation.ts';
import { CapabilitySummarySchema } from '../rules/capabilities.ts';
import { ScriptRulesSchema } from '../rules/rules.ts';
import { PACKAGE_SOURCES } from '../packages/manifest.ts';

/** The path segment a tenant's routes start with: `/t/{tenant}/...`. */
export const TENANT_PATH_PREFIX = 't';
/** The tenant's place in a route template (and API Gateway's path parameter of the same name). */
export const TENANT_PARAMETER = 'tenant';

/**
 * The API's routes, as path templates: one method each; an unknown path is 404, a known path with
 * another method 405. A route that runs a tenant's code or binds its data carries the tenant in
 * its path (`/t/{tenant}/execute`), where IAM can bind it to the caller's identity: API Gateway's
 * authorization sees the resource path, never a header.
 */
export const ROUTES = {
  '/health': { method: 'GET', name: 'health', body: false, tenant: false },
  '/packages': { method: 'GET', name: 'packages', body: false, tenant: false },
  '/help': { method: 'GET', name: 'help', body: false, tenant: false },
  '/validate': { method: 'POST', name: 'validate', body: true, tenant: false },
  // `/${TENANT_PATH_PREFIX}/{${TENANT_PARAMETER}}/...`, spelled out so the template is a literal type.
  '/t/{tenant}/execute': { method: 'POST', name: 'execute', body: true, tenant: true },
  // Ends the session X-Jube-Session names: its snapshot is deleted (docs/sessions.md).
  '/t/{tenant}/session': { method: 'DELETE', name: 'session', body: false, tenant: true },
} as const satisfies Record<string, { method: 'GET' | 'POST' | 'DELETE'; name: string; body: boolean; tenant: boolean }>;

export type RouteTemplate = keyof typeof ROUTES;
export type Route = (typeof ROUTES)[RouteTemplate];
export type RouteName = Route['name'];

/** The template of the route named `name`. */
export function routeTemplate(name: RouteName): RouteTemplate {
  const found = (Object.keys(ROUTES) as RouteTemplate[]).find((template) => ROUTES[template].name === name);
  if (found === undefined) throw new Error(`no route named ${name}`);
  return found;
}

/**
 * The path of a call to `name` (`/health`, `/t/acme/execute`); a tenant route needs its tenant, and
 * only a tenant route takes one. The tenant is not checked here: the API answers a malformed one.
 */
export function routePath(name: RouteName, tenant?: string): string {
  const template = routeTemplate(name);
  if (!ROUTES[template].tenant) {
    if (tenant !== undefined) throw new TypeError(`${name} is not a tenant route; it takes no tenant`);
    return template;
  }
  if (tenant === undefined || tenant === '') throw new TypeError(`${name} needs a tenant: its path is ${template}`);
  return template.replace(`{${TENANT_PARAMETER}}`, encodeURIComponent(tenant));
}

/** DELETE /t/{tenant}/session: which session, and whether it had a workspace to delete. */
export const SessionEndResponseSchema = z.strictObject({ session: z.string(), deleted: z.boolean() });
export type SessionEndResponse = z.infer<typeof SessionEndResponseSchema>;

export const ValidateRequestSchema = z.strictObject({
  script: z.string(),
});
export type ValidateRequest = z.infer<typeof ValidateRequestSchema>;

/** The /execute body's view: the pointer is only a bounded string here, so a malformed one gets
 * the same generic DATA_POINTER_UNRESOLVED as a missing one instead of a distinguishable 400. */
export const DataframeRequestSchema = z.strictObject({
  name: RNameSchema,
  dataPointer: z.string().max(4096),
});
export type DataframeRequest = z.infer<typeof DataframeRequestSchema>;

/** The /execute body, with the count and size limits taken from the rules file. */
export const executeRequestSchema = limitedByRules((limits) =>
  z
    .strictObject({
      script: z.string(),
      timeoutSeconds: z.number().optional(),
      variables: limitedVariablesSchema(limits).optional(),
      dataframes: limitedDataframesSchema(DataframeRequestSchema, limits).optional(),
      plots: PlotsRequestSchema.optional(),
      context: limitedContextSchema(limits).optional(),
      outputBudget: OutputBudgetSchema.optional(),
      contextEncoding: ContextEncodingSchema.optional(),
    })
    .superRefine(refineDistinctNames)
    .superRefine(refineContextEncoding),
);
export type ExecuteRequest = z.infer<ReturnType<typeof executeRequestSchema>>;

const count = z.number().int().min(0);

/** GET /health `limits`: every limit of this deployment, from readServiceConfig and the rules file, in one flat list. */
export const LimitsSchema = z.strictObject({
  scriptTimeoutSecondsDefault: count,
  scriptTimeoutSecondsMax: count,
  killGraceSeconds: count,
  maxInflightExecute: count,
  maxRequestBodyBytes: count,
  maxConsoleOutputBytes: count,
  /** The output budget of a request that names none; its maxima are maxConsoleOutputBytes, maxValueBytes, maxWarnings, maxMessages. */
  budgetConsoleBytesDefault: count,
  budgetValueBytesDefault: count,
  budgetWarningsDefault: count,
  budgetMessagesDefault: count,
  maxErrorBytes: count,
  maxWarnings: count,
  maxWarningBytes: count,
  maxResultBytes: count,
  maxMessages: count,
  maxMessageBytes: count,
  maxValueBytes: count,
  maxCallBytes: count,
  maxTracebackFrames: count,
  maxNotes: count,
  maxNoteBytes: count,
  maxValidationErrors: count,
  maxResponseBytes: count,
  maxOutEntries: count,
  postRunMaxMs: count,
  postRunReserveMs: count,
  warmMaxAgeSeconds: count,
  warmReadyMs: count,
  maxEnvelopeBytes: count,
  maxEnvelopeDepth: count,
  maxPlots: count,
  maxPlotsBytes: count,
  plotWidthDefault: count,
  plotHeightDefault: count,
  plotDpiDefault: count,
  minPlotPixels: count,
  maxPlotPixels: count,
  minPlotDpi: count,
  maxPlotDpi: count,
  maxFiles: count,
  maxFilesBytes: count,
  maxContextDepth: count,
  maxValueDepth: count,
  maxValueTypes: count,
  maxVariables: count,
  maxVariableArrayLength: count,
  maxVariableStringBytes: count,
  maxDataframes: count,
  maxDataframeBytes: count,
  maxDataframesTotalBytes: count,
  /** Sessions (docs/sessions.md): a snapshot's bytes (its JSON) and objects, and the idle time after which a session starts new. */
  maxSessionBytes: count,
  maxSessionObjects: count,
  sessionIdleSeconds: count,
  maxScriptBytes: count,
  maxScriptNestingDepth: count,
  rlimitAddressSpaceBytes: count,
  rlimitFileSizeBytes: count,
  rlimitOpenFiles: count,
  rlimitProcesses: count,
  maxHelpBytes: count,
});
export type Limits = z.infer<typeof LimitsSchema>;

/** GET /health `sandbox`: which defense layers this deployment reports as active. */
export const SandboxStatusSchema = z.strictObject({
  /** Where the list came from: the deployment's configuration or the local execute side's detection. */
  source: z.enum(['config', 'detected', 'unknown']),
  layers: z.array(z.string()),
});
export type SandboxStatus = z.infer<typeof SandboxStatusSchema>;

/**
 * GET /health `sandbox`: the layers, and `sandboxed`, true exactly when one of them holds below R
 * (BELOW_R_LAYERS in sandbox-layers.ts), so no client has to infer it from the names.
 */
export const HealthSandboxSchema = SandboxStatusSchema.extend({ sandboxed: z.boolean() });
export type HealthSandbox = z.infer<typeof HealthSandboxSchema>;

/**
 * GET /health `isolation`: how this deployment keys execution environments. `tenancy` is the execute
 * function's TenancyConfig; `sharedTenancyReason` is the config's stated reason wherever it is SHARED;
 * `mode` is what one key stands for; `boundary` is what actually keeps two keys apart here.
 */
export const IsolationStatusSchema = z.strictObject({
  tenancy: z.enum(TENANCIES),
  sharedTenancyReason: z.string().optional(),
  mode: z.enum(ISOLATION_MODES),
  boundary: z.enum(ISOLATION_BOUNDARIES),
  /**
   * Lambda's cap on tenant execution environments (active or idle), as AWS states it: 2,500 per
   * 1,000 of the function's concurrency, applied here to the reserved concurrency.
   */
  maxTenantEnvironments: count.optional(),
  /** Who may name which tenant in `/t/{tenant}/` (layers/contract/isolation.ts TENANT_BINDINGS). */
  tenantBinding: z.enum(TENANT_BINDINGS),
});
export type IsolationStatus = z.infer<typeof IsolationStatusSchema>;

/**
 * GET /health `warm`: the warm start where the execute function runs (docs/execute-runtime.md,
 * "Warm start"). `enabled`: whether it starts warm runners (absent where the API cannot see the
 * execute side's configuration, as deployed); `state`: `off`, `not-loaded` (on, but the execute
 * side has not started yet), `starting` (a warm runner is being started, none is ready), `ready` (a
 * warm runner waits for the next call; in the local container runtime: every environment's handler
 * has registered its warm start), `cold` (on, but no runner is ready or starting: the next call runs
 * cold), `unknown` (deployed: each Lambda execution environment keeps its own, which the API
 * function cannot see); `idleRunners`: the warm runners ready now, where they can be counted (the
 * local host-R runtime).
 */
export const WARM_STATES = ['off', 'not-loaded', 'starting', 'ready', 'cold', 'unknown'] as const;
export const WarmStatusSchema = z.strictObject({
  enabled: z.boolean().optional(),
  state: z.enum(WARM_STATES),
  idleRunners: count.optional(),
});
export type WarmStatus = z.infer<typeof WarmStatusSchema>;

export const HealthResponseSchema = z.strictObject({
  status: z.literal('ok'),
  service: z.literal('jube-r'),
  version: z.string(),
  rVersion: z.string(),
  uptimeSeconds: z.number().min(0),
  rules: ScriptRulesSchema,
  /** What a script may not do, by category, and where each is enforced (layers/rules/capabilities.json). */
  capabilities: CapabilitySummarySchema,
  limits: LimitsSchema,
  sandbox: HealthSandboxSchema,
  isolation: IsolationStatusSchema,
  warm: WarmStatusSchema,
});
export type HealthResponse = z.infer<typeof HealthResponseSchema>;

/**
 * GET /health without `detail`: liveness, versions, the sandbox, isolation and warm state; the
 * rules, capability summary and limits (most of the bytes) come with `?detail=full`.
 */
export const HealthSummarySchema = HealthResponseSchema.omit({ rules: true, capabilities: true, limits: true });
export type HealthSummary = z.infer<typeof HealthSummarySchema>;

/** GET /health's query: `detail=full` for the whole answer (what r_health and the clients read). */
export const HealthQuerySchema = z.strictObject({ detail: z.enum(['full']).optional() });

export const PackagesResponseSchema = z.strictObject({
  rVersion: z.string(),
  /** Exactly what library() accepts: every installed package but the blocked ones, with its installed version. */
  packages: z.array(z.strictObject({ name: z.string(), version: z.string(), source: z.enum(PACKAGE_SOURCES) })),
  /** The rest: packages a script is told not to load (installed or not), why, and what to write instead. */
  blocked: z.array(z.strictObject({ name: z.string(), version: z.string().optional(), why: z.string(), instead: z.string() })),
});
export type PackagesResponse = z.infer<typeof PackagesResponseSchema>;

/** GET /help's query: a topic (a function or any other alias of an Rd page), optionally in one package. */
export const HelpQuerySchema = z.strictObject({
  topic: z.string().min(1).max(200),
  package: z.string().min(1).max(100).optional(),
});
export type HelpQuery = z.infer<typeof HelpQuerySchema>;

/** An installed help topic, as a not-found answer suggests it and a found one lists its namesakes. */
export const HelpTopicSchema = z.strictObject({ topic: z.string(), package: z.string() });
export type HelpTopic = z.infer<typeof HelpTopicSchema>;

/**
 * GET /help: one installed Rd page as plain text, title then usage and arguments first, at most
 * `limits.maxHelpBytes` bytes of it (`truncated`, `bytes` is the whole page's size).
 */
export const HelpResponseSchema = z.strictObject({
  topic: z.string(),
  package: z.string(),
  /** The Rd page's name (for `mutate`, dplyr's page is `mutate`; for `transmute` also `mutate`). */
  page: z.string(),
  title: z.string(),
  aliases: z.array(z.string()),
  text: z.string(),
  truncated: z.boolean(),
  bytes: count,
  /** Other installed packages with a page for the same topic (ask with `package` for theirs). */
  alsoIn: z.array(HelpTopicSchema),
});
export type HelpResponse = z.infer<typeof HelpResponseSchema>;

export { ValidationResultSchema as ValidateResponseSchema, ExecuteResponseSchema };

/** Every stable error code, with its status (docs/api.md lists the same table). */
export const ERROR_STATUS = {
  INVALID_JSON: 400,
  INVALID_REQUEST: 400,
  /** A `contextEncoding: "r-json"` context holding something that is not data (a closure, a call). */
  CONTEXT_NOT_DATA: 400,
  UNKNOWN_FIELD: 400,
  INVALID_TENANT: 400,
  INVALID_SESSION: 400,
  /** The caller is not an identity this deployment admits (not a session of its tenant or orchestrator role). */
  CALLER_NOT_ALLOWED: 403,
  /** The path's tenant is not the one the caller's identity is bound to. */
  TENANT_MISMATCH: 403,
  NOT_FOUND: 404,
  /** GET /help: no installed page has that topic (in that package); `suggestions` has the nearest. */
  HELP_TOPIC_NOT_FOUND: 404,
  /** 404 like an object one may not see: the same answer whether malformed, stale, missing or not yours. */
  DATA_POINTER_UNRESOLVED: 404,
  METHOD_NOT_ALLOWED: 405,
  BODY_TOO_LARGE: 413,
  DATAFRAME_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTERNAL: 500,
  EXECUTE_FAILED: 502,
  /** The execution environment ended during the call (the script may have ended its runtime). */
  EXECUTE_ENVIRONMENT_LOST: 502,
  THROTTLED: 503,
  /** The validate function's own answer before API Gateway's integration timeout would fire. */
  EXECUTE_DEADLINE: 504,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/**
 * Why a 503 THROTTLED: `concurrency` (the execute function's reserved concurrency or the account's),
 * `invocation-rate` (Lambda's invocation rate limits), `tenant-environments` (under PER_TENANT, a
 * throttle whose Reason names neither: **probably** Lambda's cap on tenant execution environments,
 * which AWS states as 2,500 active or idle per 1,000 concurrency and answers with no Reason of its
 * own; an inference, never a certainty: the raw Reason is in the API function's log).
 */
export const THROTTLE_REASONS = ['concurrency', 'invocation-rate', 'tenant-environments'] as const;
export type ThrottleReason = (typeof THROTTLE_REASONS)[number];

export const FieldIssueSchema = z.strictObject({ path: z.string(), message: z.string() });
/** One problem in a request body, addressed by a path such as `variables[2].value`. */
export type FieldIssue = Readonly<z.infer<typeof FieldIssueSchema>>;

/** The one error body shape, for every status. */
export const ErrorBodySchema = z.strictObject({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  requestId: z.string(),
  /** Per-field problems for INVALID_REQUEST and UNKNOWN_FIELD. */
  issues: z.array(FieldIssueSchema).optional(),
  /** For THROTTLED: which limit refused the call. */
  reason: z.enum(THROTTLE_REASONS).optional(),
  /** For HELP_TOPIC_NOT_FOUND: the nearest installed topics, nearest first. */
  suggestions: z.array(HelpTopicSchema).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** What a caller is told for a 5xx: never the cause, always the request id to quote. */
const GENERIC_5XX: Readonly<Record<number, string>> = {
  500: 'internal error; quote the requestId when reporting it',
  502: 'the execute function failed to produce a result; quote the requestId when reporting it',
  503: 'the execute function is at its concurrency limit; retry after the Retry-After interval',
  504: 'the execute function did not answer in time (a cold start or a script at its limit); it was not retried, quote the requestId when reporting it',
};

/** 5xx codes whose fixed wording says more than their status's. */
const CODE_5XX: Readonly<Partial<Record<ErrorCode, string>>> = {
  EXECUTE_ENVIRONMENT_LOST:
    'the execution environment ended during this call (the script may have ended its own runtime); it was not retried, the next call runs after that environment is initialised again; quote the requestId when reporting it',
};

const THROTTLE_MESSAGES: Readonly<Record<ThrottleReason, string>> = {
  concurrency: GENERIC_5XX[503]!,
  'invocation-rate': 'the execute function is at its invocation rate limit; retry after the Retry-After interval',
  'tenant-environments':
    'the execute function was throttled without a reason Lambda documents; under tenant isolation that is probably its cap on isolated execution environments (active or idle): retry after the Retry-After interval, or reuse an isolation key (tenant or session) that already has one',
};

/** The caller-facing message for `code`: `message` below 500, the fixed wording from 500 up. */
export function callerMessage(code: ErrorCode, message: string | undefined, reason?: ThrottleReason): string {
  const status = ERROR_STATUS[code];
  if (status < 500 && message !== undefined) return message;
  if (code === 'THROTTLED' && reason !== undefined) return THROTTLE_MESSAGES[reason];
  return CODE_5XX[code] ?? GENERIC_5XX[status] ?? GENERIC_5XX[500]!;
}
