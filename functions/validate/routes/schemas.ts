/**
 * The request and response bodies of the four routes, as zod schemas: the types of the boundary,
 * the source docs/openapi.yaml is checked against (test/unit/validate-handler/openapi.test.ts).
 * Every object is strict, so an unknown field anywhere is an error rather than silently ignored.
 */
import { z } from 'zod';
import {
  ExecuteResponseSchema,
  limitedDataframesSchema,
  limitedVariablesSchema,
  refineDistinctNames,
} from '../../../layers/contract/execute.ts';
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
  return z
    .strictObject({
      script: z.string(),
      timeoutSeconds: z.number().optional(),
      variables: limitedVariablesSchema(rules).optional(),
      dataframes: limitedDataframesSchema(DataframeRequestSchema, rules).optional(),
    })
    .superRefine(refineDistinctNames);
}
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
  maxScriptBytes: count,
  maxScriptNestingDepth: count,
  rlimitAddressSpaceBytes: count,
  rlimitFileSizeBytes: count,
  rlimitOpenFiles: count,
  rlimitProcesses: count,
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
