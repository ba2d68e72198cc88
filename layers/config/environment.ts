/**
 * The one way an environment is read: a zod shape per reader (service-config.ts, the execute
 * runtime's settings and containment), an empty variable taken as unset, and every problem
 * reported at once, each with its key, so an operator fixes a bad configuration in one pass.
 * The shapes' keys are the variables' names; infra/ builds the functions' environments against
 * them (EnvironmentOf), so a variable the code does not read cannot be set by mistake.
 */
import { z } from 'zod';

export type EnvironmentResult<S extends z.ZodRawShape> =
  | { readonly ok: true; readonly values: z.infer<z.ZodObject<S>> }
  | { readonly ok: false; readonly problems: readonly string[] };

/** The values of these keys, or one `KEY: what is wrong` per problem. */
export function readEnvironment<S extends z.ZodRawShape>(shape: S, env: NodeJS.ProcessEnv): EnvironmentResult<S> {
  const picked = Object.fromEntries(Object.keys(shape).map((key) => [key, env[key] === '' ? undefined : env[key]]));
  const parsed = z.object(shape).safeParse(picked);
  if (parsed.success) return { ok: true, values: parsed.data };
  // The variable, not the place inside its parsed value (a list's index): that is what an operator sets.
  return { ok: false, problems: parsed.error.issues.map((issue) => `${String(issue.path[0])}: ${issue.message}`) };
}

/** An environment of string values whose keys are those of one of the shapes. */
export type EnvironmentOf<Key extends string> = { readonly [K in Key]?: string };
