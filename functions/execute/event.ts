/** The ExecuteEvent, zod-parsed with the rules' limits: the execute function trusts no caller. */
import { z } from 'zod';
import { executeEventSchema, type ExecuteEvent } from '../../layers/contract/execute.ts';
import type { ScriptRules } from '../../layers/rules/rules.ts';

/** The event is not an ExecuteEvent: a function error, mapped by the caller (never a script outcome). */
export class InvalidExecuteEventError extends Error {
  override readonly name = 'InvalidExecuteEventError';
}

/**
 * The event within the rules' limits; its timeoutSeconds within [1, SCRIPT_TIMEOUT_SECONDS_LIMIT].
 * The API function clamps a caller's wish once (clampTimeoutSeconds); nothing here clamps it again.
 */
export function parseExecuteEvent(event: unknown, rules: ScriptRules): ExecuteEvent {
  const parsed = executeEventSchema(rules).safeParse(event);
  if (!parsed.success) {
    throw new InvalidExecuteEventError(`invalid execute event: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}
