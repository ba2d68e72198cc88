/**
 * The validation result: what POST /validate returns, what `jube-r validate` prints, and what
 * /execute embeds as `validation` when it rejects a script. Produced by both the TypeScript
 * validator and the R runner's re-validation, so both sides share these codes.
 */
import { z } from 'zod';

/** Stable machine-readable codes; an orchestrator (or an LLM) may branch on them. */
export const VALIDATION_ERROR_CODES = [
  'SCRIPT_EMPTY',
  'SCRIPT_TOO_LARGE',
  'NUL_BYTE',
  'NESTING_TOO_DEEP',
  'SYNTAX_ERROR',
  'PARSE_TIMEOUT',
  'VALIDATOR_FAULT',
  'CAPABILITY_NOT_AVAILABLE',
  'PACKAGE_NOT_ALLOWED',
  'PARSER_DISAGREEMENT',
] as const;
export const ValidationErrorCodeSchema = z.enum(VALIDATION_ERROR_CODES);
export type ValidationErrorCode = z.infer<typeof ValidationErrorCodeSchema>;

export const ValidationErrorSchema = z.strictObject({
  code: ValidationErrorCodeSchema,
  message: z.string(),
  /** 1-based line and column of the offending text. */
  line: z.number().int().min(1),
  column: z.number().int().min(1),
  symbol: z.string().optional(),
});
export type ValidationError = z.infer<typeof ValidationErrorSchema>;

export const LintSeveritySchema = z.enum(['info', 'warning']);
export const LintFindingSchema = z.strictObject({
  rule: z.string(),
  message: z.string(),
  line: z.number().int().min(1),
  column: z.number().int().min(1),
  severity: LintSeveritySchema,
});
export type LintFinding = z.infer<typeof LintFindingSchema>;

export const ValidationResultSchema = z.strictObject({
  valid: z.boolean(),
  errors: z.array(ValidationErrorSchema),
  lint: z.array(LintFindingSchema),
  durationMs: z.number().min(0),
});
export type ValidationResult = z.infer<typeof ValidationResultSchema>;
