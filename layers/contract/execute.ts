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
