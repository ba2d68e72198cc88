/**
 * How the request's `context` reaches R (docs/api.md "Context encoding"). `json` (the default):
 * plain JSON, read by jsonlite::fromJSON with its simplification. `r-json`: the shape
 * jsonlite::serializeJSON writes (https://cran.r-project.org/package=jsonlite, `serializeJSON`),
 * which keeps R's types, restricted to data: the runner builds it node by node
 * (r-image/runner/inputs.R) and never calls unserializeJSON, which would also build closures and
 * calls. The lists below are the one source for both sides (the runner reads them from seam.json).
 */
import type { z } from 'zod';

export const CONTEXT_ENCODINGS = ['json', 'r-json'] as const;
export type ContextEncoding = (typeof CONTEXT_ENCODINGS)[number];

/** What an `r-json` context may hold: node types, attributes and class names. */
export const R_JSON = {
  types: ['NULL', 'logical', 'integer', 'double', 'character', 'list'],
  attributes: ['names', 'class', 'levels', 'dim', 'dimnames', 'tzone', 'row.names'],
  classes: ['factor', 'ordered', 'Date', 'POSIXct', 'POSIXt', 'data.frame', 'tbl_df', 'tbl', 'table'],
  /** serializeJSON writes a double's NA, NaN and infinities as these strings. */
  doubleSpecials: ['NA', 'NaN', 'Inf', '-Inf'],
} as const;

/** The error code of a context that is not data under `r-json` (docs/api.md). */
export const CONTEXT_NOT_DATA = 'CONTEXT_NOT_DATA';

type Path = (string | number)[];
interface Problem {
  readonly path: Path;
  readonly message: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const types: readonly string[] = R_JSON.types;
const attributes: readonly string[] = R_JSON.attributes;
const classes: readonly string[] = R_JSON.classes;
const specials: readonly string[] = R_JSON.doubleSpecials;

const ELEMENT_OK: Record<string, (v: unknown) => boolean> = {
  logical: (v) => v === null || typeof v === 'boolean',
  integer: (v) => v === null || (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= 2 ** 31 - 1),
  double: (v) => typeof v === 'number' || (typeof v === 'string' && specials.includes(v)),
  character: (v) => v === null || typeof v === 'string',
};
const ELEMENT_WORDS: Record<string, string> = {
  logical: 'true, false or null',
  integer: 'whole numbers within 32 bits or null',
  double: 'numbers or "NA", "NaN", "Inf", "-Inf"',
  character: 'strings or null',
};

/** The problems of one node (not of its children), and the children to check next. */
function nodeProblems(node: unknown, path: Path): { problems: Problem[]; children: { node: unknown; path: Path; isClass: boolean }[] } {
  const problem = (message: string, at: Path = path) => ({ problems: [{ path: at, message }], children: [] });
  if (!isObject(node)) return problem('must be an r-json node: an object {"type", "attributes", "value"} as jsonlite::serializeJSON writes it');
  const extra = Object.keys(node).filter((k) => !['type', 'attributes', 'value'].includes(k));
  if (extra.length > 0) return problem(`has field "${extra[0]}"; an r-json node has only "type", "attributes" and "value"`);
  const type = node['type'];
  if (typeof type !== 'string') return problem('must have a string "type"', [...path, 'type']);
  if (!types.includes(type)) {
    return problem(`type "${type}" is not data: an r-json context holds only ${types.join(', ')} nodes (no closures, calls, symbols or environments)`, [...path, 'type']);
  }
  const children: { node: unknown; path: Path; isClass: boolean }[] = [];
  const attrs = node['attributes'];
  if (attrs !== undefined) {
    if (!isObject(attrs)) return problem('must be an object of attributes', [...path, 'attributes']);
    for (const [name, value] of Object.entries(attrs)) {
      if (!attributes.includes(name)) return problem(`attribute "${name}" is not allowed; an r-json context carries only ${attributes.join(', ')}`, [...path, 'attributes', name]);
      children.push({ node: value, path: [...path, 'attributes', name], isClass: name === 'class' });
    }
  }
  if (type === 'NULL') return { problems: [], children };
  const value = node['value'];
  if (!Array.isArray(value)) return problem(`must have an array "value" (a ${type} node)`, [...path, 'value']);
  if (type === 'list') {
    value.forEach((child, i) => children.push({ node: child, path: [...path, 'value', i], isClass: false }));
    return { problems: [], children };
  }
  const bad = value.findIndex((v) => !ELEMENT_OK[type]!(v));
  if (bad >= 0) return problem(`a ${type} node's values must be ${ELEMENT_WORDS[type]}`, [...path, 'value', bad]);
  return { problems: [], children };
}

/**
 * Every problem of an `r-json` context, walked without recursion (its depth is bounded by the
 * context schema, not here). The top level must be a named list, as `.context` is under `json`.
 */
export function rJsonProblems(context: unknown): Problem[] {
  const out: Problem[] = [];
  if (isObject(context) && context['type'] !== 'list') {
    out.push({ path: ['type'], message: 'an r-json context must be a list (jsonlite::serializeJSON of a named list)' });
    return out;
  }
  const pending: { node: unknown; path: Path; isClass: boolean }[] = [{ node: context, path: [], isClass: false }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { problems, children } = nodeProblems(next.node, next.path);
    out.push(...problems);
    if (problems.length === 0 && next.isClass) {
      const node = next.node as Record<string, unknown>;
      const names = node['value'];
      const unknown = node['type'] !== 'character' ? undefined : (names as unknown[]).find((c) => typeof c !== 'string' || !classes.includes(c));
      if (node['type'] !== 'character') out.push({ path: [...next.path, 'type'], message: 'a class attribute must be a character node' });
      else if (unknown !== undefined) {
        out.push({ path: [...next.path, 'value'], message: `class ${JSON.stringify(unknown)} is not allowed; an r-json context carries only ${classes.join(', ')}` });
      }
    }
    pending.push(...children);
  }
  return out;
}

/** Adds the r-json problems of a body's context as CONTEXT_NOT_DATA issues (under `context`). */
export function refineContextEncoding(
  body: { readonly context?: Readonly<Record<string, unknown>> | undefined; readonly contextEncoding?: ContextEncoding | undefined },
  ctx: z.RefinementCtx,
): void {
  if (body.contextEncoding !== 'r-json' || body.context === undefined) return;
  for (const p of rJsonProblems(body.context)) {
    ctx.addIssue({ code: 'custom', path: ['context', ...p.path], message: p.message, params: { code: CONTEXT_NOT_DATA } });
  }
}
