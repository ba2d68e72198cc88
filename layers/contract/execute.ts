/**
 * The contract between the validate function (invoker) and the execute function: the Lambda
 * event it sends and the /execute response object it gets back (docs/api.md).
 */
import { z } from 'zod';
import { CONTEXT_ENCODINGS, refineContextEncoding } from './context-encoding.ts';
import { isOrdinaryRName, R_SYNTACTIC_NAME } from './r-names.ts';
import { ExecuteSessionSchema, ResponseSessionSchema, SessionPayloadSchema } from './session.ts';
import { ValidationResultSchema } from './validation.ts';

/** A syntactic R name that is not a reserved word; values are bound to it by the runner. */
export const RNameSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(R_SYNTACTIC_NAME, 'must be a syntactic R name (letters, digits, "." and "_", starting with a letter or a dot not followed by a digit)')
  .refine(isOrdinaryRName, 'must not be an R reserved word');

const scalar = z.union([z.string(), z.number(), z.boolean()], {
  error: (issue) => (issue.input === null ? 'null is not a value; omit the variable instead' : 'must be a string, number, boolean or an array of one of those'),
});

/**
 * A variable's value: a scalar or a homogeneous array of scalars (limits come from the rules file).
 * A null element of an array is R's NA of the array's type, as jsonlite reads it; a null value is
 * refused (omit the variable).
 */
const VariableValueSchema = z.union([
  scalar,
  z.array(z.string().nullable()),
  z.array(z.number().nullable()),
  z.array(z.boolean().nullable()),
], {
  error: (issue) => (issue.input === null ? 'null is not a value; omit the variable instead' : 'must be a string, number, boolean or an array of one of those (all elements of one type)'),
});

const VariableSchema = z.strictObject({ name: RNameSchema, value: VariableValueSchema });
export type Variable = z.infer<typeof VariableSchema>;

/**
 * The rules file's limits on what a run binds (structurally a part of ScriptRules). Both the
 * /execute body (validate function) and the ExecuteEvent (execute function, which trusts no
 * caller) apply them through the schemas below, so the two sides cannot disagree.
 */
interface BindingLimits {
  readonly variables: { readonly maxCount: number; readonly maxArrayLength: number; readonly maxStringBytes: number };
  readonly dataframes: { readonly maxCount: number };
}

/**
 * A schema that depends on the rules' limits, built once per rules object: both functions parse
 * every request or event against one, and zod schemas are costly to build.
 */
export function limitedByRules<T>(build: (limits: BindingLimits) => T): (limits: BindingLimits) => T {
  const built = new WeakMap<BindingLimits, T>();
  return (limits) => {
    let schema = built.get(limits);
    if (schema === undefined) built.set(limits, (schema = build(limits)));
    return schema;
  };
}

/** `variables`: at most maxCount of them, arrays and strings within the rules' sizes. */
export function limitedVariablesSchema(limits: BindingLimits) {
  const { maxCount, maxArrayLength, maxStringBytes } = limits.variables;
  const variable = VariableSchema.superRefine((variable, ctx) => {
    const values: readonly unknown[] = Array.isArray(variable.value) ? variable.value : [variable.value];
    if (Array.isArray(variable.value) && variable.value.length > maxArrayLength) {
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: `has ${variable.value.length} elements; at most ${maxArrayLength} are allowed (bind larger data as a dataframe)`,
      });
    }
    values.forEach((value, i) => {
      if (typeof value === 'string' && Buffer.byteLength(value, 'utf8') > maxStringBytes) {
        ctx.addIssue({
          code: 'custom',
          path: Array.isArray(variable.value) ? ['value', i] : ['value'],
          message: `string is ${Buffer.byteLength(value, 'utf8')} bytes; at most ${maxStringBytes} bytes are allowed`,
        });
      }
    });
  });
  return z.array(variable).max(maxCount, `at most ${maxCount} variables are allowed`);
}

/** `dataframes` (of either side's item shape): at most the rules' count. */
export function limitedDataframesSchema<T extends z.ZodType>(item: T, limits: BindingLimits) {
  const { maxCount } = limits.dataframes;
  return z.array(item).max(maxCount, `at most ${maxCount} dataframes are allowed`);
}

/** The name `context` is bound to in the script's environment (dsprrr's runners use the same). */
const CONTEXT_BINDING = '.context';

/** Each name becomes one binding in the script's environment, so no two may share it. */
export function refineDistinctNames(
  body: {
    readonly variables?: readonly { name: string }[];
    readonly dataframes?: readonly { name: string }[];
    readonly context?: Readonly<Record<string, unknown>> | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const seen = new Set<string>(body.context === undefined ? [] : [CONTEXT_BINDING]);
  const check = (kind: 'variables' | 'dataframes', entries: readonly { name: string }[] | undefined) =>
    entries?.forEach((entry, i) => {
      if (seen.has(entry.name)) {
        const owner = entry.name === CONTEXT_BINDING && body.context !== undefined ? 'the request\'s context' : 'another variable or dataframe';
        ctx.addIssue({
          code: 'custom',
          path: [kind, i, 'name'],
          message: `name "${entry.name}" is already used by ${owner}; every name must be distinct`,
        });
      }
      seen.add(entry.name);
    });
  check('variables', body.variables);
  check('dataframes', body.dataframes);
}

/** The bounds a request's plot options must stay within (published by GET /health). */
export const PLOT_LIMITS = { minPixels: 64, maxPixels: 2048, minDpi: 36, maxDpi: 300 } as const;

const pixels = (what: string) =>
  z
    .number()
    .int(`${what} must be a whole number of pixels`)
    .min(PLOT_LIMITS.minPixels, `${what} must be at least ${PLOT_LIMITS.minPixels} pixels`)
    .max(PLOT_LIMITS.maxPixels, `${what} must be at most ${PLOT_LIMITS.maxPixels} pixels`);

/** How the pages a script draws come back; omitted fields take the deployment's defaults. */
const PlotOptionsSchema = z.strictObject({
  width: pixels('width').optional(),
  height: pixels('height').optional(),
  dpi: z
    .number()
    .int('dpi must be a whole number')
    .min(PLOT_LIMITS.minDpi, `dpi must be at least ${PLOT_LIMITS.minDpi}`)
    .max(PLOT_LIMITS.maxDpi, `dpi must be at most ${PLOT_LIMITS.maxDpi}`)
    .optional(),
  format: z.enum(['png', 'svg']).optional(),
});

/** `plots`: options, `true` (the defaults) or `false` (no capture: R's own default device). */
export const PlotsRequestSchema = z.union([z.boolean(), PlotOptionsSchema]);
export type PlotsRequest = z.infer<typeof PlotsRequestSchema>;

const budgetCount = (what: string) => z.number().int(`${what} must be a whole number`).min(1, `${what} must be at least 1`);

/**
 * `outputBudget`: how much of a run's output the response may carry, for a caller whose context
 * is small (a model's). Omitted fields take the deployment's defaults; a field above the
 * deployment's maximum is lowered to it, with a note (GET /health?detail=full limits: budget*Default, max*).
 */
export const OutputBudgetSchema = z.strictObject({
  /** consoleOutput: its head and tail within this many bytes, cut on line boundaries. */
  consoleBytes: budgetCount('consoleBytes').optional(),
  /** value: its JSON or printed form within this many bytes. */
  valueBytes: budgetCount('valueBytes').optional(),
  /** warnings (identical ones folded first). */
  warnings: budgetCount('warnings').optional(),
  /** messages (identical ones folded first). */
  messages: budgetCount('messages').optional(),
});
export type OutputBudget = z.infer<typeof OutputBudgetSchema>;

/** `contextEncoding`: how `context` reaches R (layers/contract/context-encoding.ts); absent: `json`. */
export const ContextEncodingSchema = z.enum(CONTEXT_ENCODINGS);

/** How deep a context value may nest, in JSON levels; R's JSON reader and the checks below walk it. */
export const CONTEXT_MAX_DEPTH = 20;

/**
 * `context`: named JSON values bound in R as `.context` (a named list; arrays become vectors or
 * data frames, as jsonlite::fromJSON reads them). Within the variables' limits: at most maxCount
 * names, arrays of at most maxArrayLength elements, strings of at most maxStringBytes, and
 * CONTEXT_MAX_DEPTH levels. Walked iteratively: a request body is bounded, its depth is not.
 */
export function limitedContextSchema(limits: BindingLimits) {
  const { maxCount, maxArrayLength, maxStringBytes } = limits.variables;
  return z
    .record(z.string().min(1, 'a context name must not be empty').max(256, 'a context name must be at most 256 characters'), z.unknown())
    .superRefine((context, ctx) => {
      const names = Object.keys(context);
      if (names.length > maxCount) ctx.addIssue({ code: 'custom', message: `has ${names.length} names; at most ${maxCount} are allowed` });
      const pending: { value: unknown; path: (string | number)[] }[] = names.map((name) => ({ value: context[name], path: [name] }));
      for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
        const problem = contextProblem(next.value, next.path.length, { maxArrayLength, maxStringBytes });
        if (problem) {
          ctx.addIssue({ code: 'custom', path: next.path, message: problem });
          continue;
        }
        if (Array.isArray(next.value)) next.value.forEach((item, i) => pending.push({ value: item, path: [...next.path, i] }));
        else if (isPlainObject(next.value)) for (const [k, v] of Object.entries(next.value)) pending.push({ value: v, path: [...next.path, k] });
      }
    });
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function contextProblem(value: unknown, depth: number, limits: { maxArrayLength: number; maxStringBytes: number }): string | undefined {
  if (depth > CONTEXT_MAX_DEPTH) return `nests deeper than ${CONTEXT_MAX_DEPTH} levels`;
  if (typeof value === 'string') {
    const bytes = Buffer.byteLength(value, 'utf8');
    return bytes > limits.maxStringBytes ? `string is ${bytes} bytes; at most ${limits.maxStringBytes} bytes are allowed` : undefined;
  }
  if (Array.isArray(value)) {
    return value.length > limits.maxArrayLength
      ? `has ${value.length} elements; at most ${limits.maxArrayLength} are allowed (bind larger data as a dataframe)`
      : undefined;
  }
  if (value === null || typeof value === 'boolean' || isPlainObject(value)) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'must be a finite number';
  return 'must be a JSON value';
}

/**
 * A dataframe the execute handler fetches into the workdir before R starts: either a
 * short-lived presigned URL (AWS) or a local file path (local stack, CLI). Filled in by the
 * data-pointer issue; the validate function resolves pointers, the execute function never sees one.
 */
const ResolvedDataframeSchema = z.strictObject({
  name: RNameSchema,
  source: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('url'), url: z.url(), gzip: z.boolean().default(false) }),
    z.strictObject({ kind: z.literal('file'), path: z.string().min(1), gzip: z.boolean().default(false) }),
  ]),
  bytes: z.number().int().min(0),
});
export type ResolvedDataframe = z.infer<typeof ResolvedDataframeSchema>;

/**
 * The most seconds any deployment lets a script run (Lambda's own ceiling on a function timeout):
 * the bound of JUBE_R_SCRIPT_TIMEOUT_SECONDS(_MAX) and of the event.
 */
export const SCRIPT_TIMEOUT_SECONDS_LIMIT = 900;

export const ExecuteEventSchema = z.strictObject({
  script: z.string(),
  /** The API function clamps the caller's wish into [1, JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX] (clampTimeoutSeconds, the one clamp). */
  timeoutSeconds: z.number().int().min(1).max(SCRIPT_TIMEOUT_SECONDS_LIMIT),
  variables: z.array(VariableSchema).default([]),
  dataframes: z.array(ResolvedDataframeSchema).default([]),
  /** Absent: the deployment's plot defaults; the execute function applies them (it trusts no caller). */
  plots: PlotsRequestSchema.optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  /** As the request gave it; the execute function resolves it against its own configuration. */
  outputBudget: OutputBudgetSchema.optional(),
  contextEncoding: ContextEncodingSchema.optional(),
  /**
   * What the API function noted about the request (a lowered timeoutSeconds): the execute function
   * puts them first among the response's notes, so the one cap (maxNotes) covers them too.
   */
  notes: z.array(z.string().max(4096)).max(20).optional(),
  /** The API request id, for log correlation across the two functions. */
  requestId: z.string().optional(),
  /** A session's call (layers/contract/session.ts): its workspace comes back and is written again. */
  session: ExecuteSessionSchema.optional(),
});
export type ExecuteEvent = z.infer<typeof ExecuteEventSchema>;
export type ExecuteEventInput = z.input<typeof ExecuteEventSchema>;

/** ExecuteEvent with the rules' binding limits, the same the validate function applied to the request. */
export const executeEventSchema = limitedByRules((limits) =>
  ExecuteEventSchema.extend({
    variables: limitedVariablesSchema(limits).default([]),
    dataframes: limitedDataframesSchema(ResolvedDataframeSchema, limits).default([]),
    context: limitedContextSchema(limits).optional(),
  }).superRefine(refineDistinctNames).superRefine(refineContextEncoding),
);

const ExecuteStatusSchema = z.enum(['ok', 'error', 'rejected']);

const count = z.number().int().min(0);
const position = { line: z.number().int().min(1).optional(), column: z.number().int().min(1).optional() };

/** One page the script drew, in drawing order. `data` is base64. */
export const PlotSchema = z.strictObject({
  mimeType: z.enum(['image/png', 'image/svg+xml']),
  width: count,
  height: count,
  bytes: count,
  data: z.string(),
});
export type Plot = z.infer<typeof PlotSchema>;

/**
 * One entry of the script's out/ directory. Returned: `sha256` and `data` (base64). Not returned:
 * `truncated` (it did not fit the count or byte caps) or `skipped` (not a regular file; a link is
 * never followed).
 */
export const OutputFileSchema = z.strictObject({
  name: z.string(),
  mimeType: z.string(),
  bytes: count.optional(),
  sha256: z.string().optional(),
  data: z.string().optional(),
  truncated: z.literal(true).optional(),
  skipped: z.enum(['symlink', 'directory', 'not-a-regular-file', 'unreadable']).optional(),
});
export type OutputFile = z.infer<typeof OutputFileSchema>;

/** A call on the script's stack when it failed; line and column where the script makes that call. */
const TracebackFrameSchema = z.strictObject({ call: z.string(), ...position });

/** The condition that ended the script, for an agent to act on. */
const ErrorDetailsSchema = z.strictObject({
  /** R's condition class, most specific first (e.g. ["rlang_error", "error", "condition"]). */
  class: z.array(z.string()),
  message: z.string(),
  /** The call that signalled it, deparsed and capped; null at the top level or when R gives none. */
  call: z.string().nullable(),
  /**
   * The innermost place in the submitted script: the innermost frame the script wrote, or inside
   * the running top-level expression the missing name or the call it made (a pipeline's stage).
   */
  ...position,
  /** Where the top-level expression that was running starts (a pipeline's first line). */
  expressionLine: z.number().int().min(1).optional(),
  expressionColumn: z.number().int().min(1).optional(),
  /** The script's own frames, outermost first (package internals left out), capped. */
  traceback: z.array(TracebackFrameSchema),
  /** What the service can tell from what it has: a close name ("did you mean `mpg`?"), a package that exports a function. */
  hints: z.array(z.string()).optional(),
});
export type ErrorDetails = z.infer<typeof ErrorDetailsSchema>;

/**
 * What `warnings[i]` came with: its call and line (its text is only in `warnings`). `count`: how
 * many identical warnings (same text, call and line) were folded into it, when more than one.
 */
const WarningDetailSchema = z.strictObject({ call: z.string().nullable(), ...position, count: z.number().int().min(2).optional() });
export type WarningDetail = z.infer<typeof WarningDetailSchema>;

/**
 * Bounds of the value encoding (docs/api.md "Value encoding"): JSON levels inside `json` and
 * entries of `types`; past either the value is printed. `maxPrint`: the entries print() shows of a
 * printed value (R's max.print), so that a slow print of a huge object cannot cost the envelope.
 * The runner reads them from seam.json.
 */
export const VALUE_LIMITS = { maxDepth: 32, maxTypes: 1000, maxPrint: 1000 } as const;

/**
 * What JSON cannot say about the nodes of a value's `json`, one entry per classed node, addressed
 * by its JSON pointer (RFC 6901; "" is the value itself): a factor's levels, a date-time's zone,
 * an array's or table's dimensions, a data frame's columns. docs/api.md "Value encoding".
 * Built from the string schemas of the side that reads it (the envelope bounds every one).
 */
export function valueTypesSchema(text: z.ZodString, short: z.ZodString, maxList?: number) {
  const list = (item: z.ZodString) => (maxList === undefined ? z.array(item) : z.array(item).max(maxList));
  const leaf = { class: z.array(short).max(64), levels: list(text).optional(), tzone: short.optional() };
  const dim = z.strictObject({ size: z.number().int().min(0), name: text.nullable(), labels: list(text).nullable() });
  return z
    .array(
      z.strictObject({
        path: text,
        ...leaf,
        dims: z.array(dim).max(64).optional(),
        columns: (maxList === undefined ? z.array(z.strictObject({ name: text, ...leaf })) : z.array(z.strictObject({ name: text, ...leaf })).max(maxList)).optional(),
      }),
    )
    .max(VALUE_LIMITS.maxTypes);
}

/** The last top-level expression's value: JSON where R's value has a faithful form, else its printed form. */
const ValueSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('json'), class: z.array(z.string()), json: z.unknown(), types: valueTypesSchema(z.string(), z.string()).optional() }),
  z.strictObject({ kind: z.literal('printed'), class: z.array(z.string()), printed: z.string(), truncated: z.boolean().optional() }),
]);
export type Value = z.infer<typeof ValueSchema>;

/** `execution`: the script's own failure, timeouts included (fix the code); `interpreter`: the service's. */
export const ErrorTypeSchema = z.enum(['execution', 'interpreter']);
export type ErrorType = z.infer<typeof ErrorTypeSchema>;

export const ExecuteResponseSchema = z.strictObject({
  status: ExecuteStatusSchema,
  consoleOutput: z.string(),
  error: z.string().nullable(),
  warnings: z.array(z.string()),
  durationMs: z.number().min(0),
  timedOut: z.boolean(),
  rVersion: z.string(),
  timestamp: z.string(),
  result: z.unknown().optional(),
  resultWarning: z.string().optional(),
  truncated: z.boolean().optional(),
  validation: ValidationResultSchema.optional(),
  /** Set whenever status is not ok; `retryable` is true exactly for `execution` (dsprrr's rule). */
  errorType: ErrorTypeSchema.optional(),
  retryable: z.boolean().optional(),
  errorDetails: ErrorDetailsSchema.optional(),
  warningDetails: z.array(WarningDetailSchema).optional(),
  messages: z.array(z.string()).optional(),
  value: ValueSchema.optional(),
  plots: z.array(PlotSchema).optional(),
  /** Pages drawn but not returned (over the count or byte cap). */
  plotsOmitted: count.optional(),
  files: z.array(OutputFileSchema).optional(),
  /** Everything R wrote to stdout, and how much of it the middle cut left out of consoleOutput. */
  consoleOutputBytes: count.optional(),
  consoleOutputOmittedBytes: count.optional(),
  /** What was cut or left out, and why, in words (a plot cap, a file cap, a value too large). */
  notes: z.array(z.string()).optional(),
  /** A session's call: which call of which session, whether its workspace came back, what it holds. */
  session: ResponseSessionSchema.optional(),
});
export type ExecuteResponse = z.infer<typeof ExecuteResponseSchema>;

/** What the execute function returns: the response and, for a session's call, the snapshot it wrote (never passed to a caller). */
export const ExecutePayloadSchema = ExecuteResponseSchema.extend(SessionPayloadSchema.shape);
export type ExecutePayload = z.infer<typeof ExecutePayloadSchema>;
