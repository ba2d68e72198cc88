/**
 * The request and response bodies of the four routes, as zod schemas: the types of the boundary,
 * the source docs/openapi.yaml is checked against (test/unit/validate-handler/openapi.test.ts).
 * Every object is strict, so an unknown field anywhere is an error rather than silently ignored.
 */
import { z } from 'zod';
import { VariableSchema, ExecuteResponseSchema } from '../../../layers/contract/execute.ts';
import { ValidationResultSchema } from '../../../layers/contract/validation.ts';
import { SandboxRulesSchema, type SandboxRules } from '../../../layers/rules/rules.ts';
import { DataframeRequestSchema } from '../data-pointers/types.ts';

export const ValidateRequestSchema = z.strictObject({
  script: z.string(),
});
export type ValidateRequest = z.infer<typeof ValidateRequestSchema>;

const executeSchemas = new WeakMap<SandboxRules, ReturnType<typeof buildExecuteRequestSchema>>();

/** The /execute body, with the count and size limits taken from the rules file (built once per rules object). */
export function executeRequestSchema(rules: SandboxRules): ReturnType<typeof buildExecuteRequestSchema> {
  let schema = executeSchemas.get(rules);
  if (!schema) executeSchemas.set(rules, (schema = buildExecuteRequestSchema(rules)));
  return schema;
}

function buildExecuteRequestSchema(rules: SandboxRules) {
  const { maxArrayLength, maxStringBytes } = rules.variables;
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
  return z
    .strictObject({
      script: z.string(),
      timeoutSeconds: z.number().optional(),
      variables: z
        .array(variable)
        .max(rules.variables.maxCount, `at most ${rules.variables.maxCount} variables are allowed`)
        .optional(),
      dataframes: z
        .array(DataframeRequestSchema)
        .max(rules.dataframes.maxCount, `at most ${rules.dataframes.maxCount} dataframes are allowed`)
        .optional(),
    })
    .superRefine((body, ctx) => {
      // Each name becomes one binding in the script's environment, so two may not share it.
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
    });
}
export type ExecuteRequest = z.infer<ReturnType<typeof executeRequestSchema>>;

const count = z.number().int().min(0);

/** GET /health `limits`: the operational limits of this deployment (readServiceConfig). */
export const LimitsSchema = z.strictObject({
  scriptTimeoutSecondsDefault: count,
  scriptTimeoutSecondsMax: count,
  killGraceSeconds: count,
  maxInflightExecute: count,
  maxRequestBodyBytes: count,
  maxConsoleOutputBytes: count,
  maxErrorBytes: count,
  maxWarnings: count,
  maxWarningBytes: count,
  maxResultBytes: count,
  maxVariables: count,
  maxVariableArrayLength: count,
  maxVariableStringBytes: count,
  maxDataframes: count,
  maxDataframeBytes: count,
  maxDataframesTotalBytes: count,
});
export type Limits = z.infer<typeof LimitsSchema>;

/** GET /health `sandbox`: which defense layers this deployment reports as active. */
export const SandboxStatusSchema = z.strictObject({
  /** Where the list came from: the deployment's configuration or the local execute side's detection. */
  source: z.enum(['config', 'detected', 'unknown']),
  layers: z.array(z.string()),
});
export type SandboxStatus = z.infer<typeof SandboxStatusSchema>;

export const HealthResponseSchema = z.strictObject({
  status: z.literal('ok'),
  service: z.literal('jube-r'),
  version: z.string(),
  rVersion: z.string(),
  uptimeSeconds: z.number().min(0),
  rules: SandboxRulesSchema,
  limits: LimitsSchema,
  sandbox: SandboxStatusSchema,
});
export type HealthResponse = z.infer<typeof HealthResponseSchema>;

export const PackagesResponseSchema = z.strictObject({
  rVersion: z.string(),
  packages: z.array(z.strictObject({ name: z.string(), version: z.string(), source: z.enum(['packages.R', 'base']) })),
});
export type PackagesResponse = z.infer<typeof PackagesResponseSchema>;

export { ValidationResultSchema as ValidateResponseSchema, ExecuteResponseSchema };
