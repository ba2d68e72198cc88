/** POST /validate: the validator's verdict on a script; a rejected script is a 200 like any other. */
import type { ValidationResult } from '../../../layers/contract/validation.ts';
import { parseBody } from '../http/parse-body.ts';
import type { ApiDeps } from './deps.ts';
import { ValidateRequestSchema } from '../../../layers/contract/api.ts';

export async function validate(deps: ApiDeps, body: unknown): Promise<ValidationResult> {
  const { script } = parseBody(ValidateRequestSchema, body);
  const validator = await deps.validator();
  return validator(script);
}
