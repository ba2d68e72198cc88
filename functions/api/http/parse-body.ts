/**
 * Parses a JSON body against a route's zod schema, turning zod's issues into the API's two
 * body errors: UNKNOWN_FIELD (a field this API does not define, named by its path) and
 * INVALID_REQUEST (everything else, each problem with its path and what to send instead).
 */
import type { z } from 'zod';
import type { FieldIssue } from '../../../layers/contract/api.ts';
import { CONTEXT_NOT_DATA } from '../../../layers/contract/context-encoding.ts';
import { InvalidRequestError, UnknownFieldError } from './errors.ts';

/** `['variables', 2, 'value']` -> `variables[2].value`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`))
    .join('');
}

const TYPE_NAMES: Record<string, string> = { string: 'a string', number: 'a number', boolean: 'a boolean', object: 'a JSON object', array: 'an array' };

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    const wanted = TYPE_NAMES[issue.expected] ?? issue.expected;
    if (issue.input === undefined) return `is required (${wanted})`;
    if (issue.input === null) return `must be ${wanted}, not null (omit an optional field instead of sending null)`;
    // A fraction where a whole number belongs: the schema's own words say which (`plots.width`).
    if (issue.expected === 'int' && typeof issue.input === 'number') return issue.message;
    return `must be ${wanted}, got ${Array.isArray(issue.input) ? 'an array' : typeof issue.input}`;
  }
  return issue.message;
}

/**
 * A union (`plots`: a boolean or an options object) fails as a whole; when every branch but one
 * failed only on the value's type, the caller meant that one, so its own issues are the answer.
 */
function meant(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union') return [issue];
  const branches = issue.errors.filter((branch) => !(branch.length === 1 && branch[0]!.code === 'invalid_type' && branch[0]!.path.length === 0));
  if (branches.length !== 1) return [issue];
  return branches[0]!.flatMap((inner) => meant({ ...inner, path: [...issue.path, ...inner.path] }));
}

export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidRequestError([{ path: '', message: 'the request body must be a JSON object' }]);
  }
  const parsed = schema.safeParse(body, { reportInput: true });
  if (parsed.success) return parsed.data;
  const unknown: FieldIssue[] = [];
  const invalid: FieldIssue[] = [];
  let allNotData = true;
  for (const issue of parsed.error.issues.flatMap(meant)) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) unknown.push({ path: formatPath([...issue.path, key]), message: 'unknown field' });
    } else {
      invalid.push({ path: formatPath(issue.path), message: describe(issue) });
      allNotData &&= issue.code === 'custom' && issue.params?.['code'] === CONTEXT_NOT_DATA;
    }
  }
  if (unknown.length > 0) throw new UnknownFieldError(unknown);
  throw new InvalidRequestError(invalid, allNotData ? CONTEXT_NOT_DATA : 'INVALID_REQUEST');
}
