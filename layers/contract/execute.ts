/**
 * The contract between the validate function (invoker) and the execute function: the Lambda
 * event it sends and the /execute response object it gets back (DESIGN.md section 2).
 */
import { z } from 'zod';
import { ValidationResultSchema } from './validation.ts';

/** A syntactic R name that is not a reserved word; values are bound to it by the runner. */
export const R_RESERVED_WORDS = [
  'if', 'else', 'repeat', 'while', 'function', 'for', 'next', 'break', 'TRUE', 'FALSE', 'NULL',
  'Inf', 'NaN', 'NA', 'NA_integer_', 'NA_real_', 'NA_character_', 'NA_complex_', 'in',
] as const;
const reserved = new Set<string>(R_RESERVED_WORDS);
export const RNameSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^((([A-Za-z]|[.][A-Za-z._])[A-Za-z0-9._]*)|[.])$/, 'must be a syntactic R name (letters, digits, "." and "_", starting with a letter or a dot not followed by a digit)')
  .refine((name) => !reserved.has(name) && !/^\.\.(\d+|\.)$/.test(name), 'must not be an R reserved word');

const scalar = z.union([z.string(), z.number(), z.boolean()], {
  error: (issue) => (issue.input === null ? 'null is not a value; omit the variable instead' : 'must be a string, number, boolean or an array of one of those'),
});

/** A variable's value: a scalar or a homogeneous array of scalars (limits come from the rules file). */
export const VariableValueSchema = z.union([
  scalar,
  z.array(z.string()),
  z.array(z.number()),
  z.array(z.boolean()),
], {
  error: (issue) => (issue.input === null ? 'null is not a value; omit the variable instead' : 'must be a string, number, boolean or an array of one of those (all elements of one type)'),
});

export const VariableSchema = z.strictObject({ name: RNameSchema, value: VariableValueSchema });
export type Variable = z.infer<typeof VariableSchema>;

/**
 * The rules file's limits on what a run binds (structurally a part of SandboxRules). Both the
 * /execute body (validate function) and the ExecuteEvent (execute function, which trusts no
 * caller) apply them through the schemas below, so the two sides cannot disagree.
 */
export interface BindingLimits {
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

/** Each name becomes one binding in the script's environment, so no two may share it. */
export function refineDistinctNames(
  body: { readonly variables?: readonly { name: string }[]; readonly dataframes?: readonly { name: string }[] },
  ctx: z.RefinementCtx,
): void {
  const seen = new Set<string>();
  const check = (kind: 'variables' | 'dataframes', entries: readonly { name: string }[] | undefined) =>
    entries?.forEach((entry, i) => {
      if (seen.has(entry.name)) {
        ctx.addIssue({
          code: 'custom',
          path: [kind, i, 'name'],
          message: `name "${entry.name}" is already used by another variable or dataframe; every name must be distinct`,
        });
      }
      seen.add(entry.name);
    });
  check('variables', body.variables);
  check('dataframes', body.dataframes);
}

/**
 * A dataframe the execute handler fetches into the workdir before R starts: either a
 * short-lived presigned URL (AWS) or a local file path (local stack, CLI). Filled in by the
 * data-pointer issue; the validate function resolves pointers, the execute function never sees one.
 */
export const ResolvedDataframeSchema = z.strictObject({
  name: RNameSchema,
  source: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('url'), url: z.url(), gzip: z.boolean().default(false) }),
    z.strictObject({ kind: z.literal('file'), path: z.string().min(1), gzip: z.boolean().default(false) }),
  ]),
  bytes: z.number().int().min(0),
});
export type ResolvedDataframe = z.infer<typeof ResolvedDataframeSchema>;

export const ExecuteEventSchema = z.strictObject({
  script: z.string(),
  /** Already clamped by the caller to [1, JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX]. */
  timeoutSeconds: z.number().int().min(1),
  variables: z.array(VariableSchema).default([]),
  dataframes: z.array(ResolvedDataframeSchema).default([]),
  /** The API request id, for log correlation across the two functions. */
  requestId: z.string().optional(),
});
export type ExecuteEvent = z.infer<typeof ExecuteEventSchema>;
export type ExecuteEventInput = z.input<typeof ExecuteEventSchema>;

/** ExecuteEvent with the rules' binding limits, the same the validate function applied to the request. */
export const executeEventSchema = limitedByRules((limits) =>
  ExecuteEventSchema.extend({
    variables: limitedVariablesSchema(limits).default([]),
    dataframes: limitedDataframesSchema(ResolvedDataframeSchema, limits).default([]),
  }).superRefine(refineDistinctNames),
);

export const ExecuteStatusSchema = z.enum(['ok', 'error', 'rejected']);

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
});
export type ExecuteResponse = z.infer<typeof ExecuteResponseSchema>;
