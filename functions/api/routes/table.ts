/**
 * Matches a request to one of the contract's route templates: an unknown path is 404, a known path
 * with another method 405. A tenant route's `{tenant}` matches any one path segment; whether it is a
 * tenant name, and the caller's, is decided after the match (functions/api/http/caller.ts).
 */
import { ROUTES, TENANT_PARAMETER, type Route, type RouteTemplate } from '../../../layers/contract/api.ts';
import { MethodNotAllowedError, RouteNotFoundError } from '../http/errors.ts';

export interface MatchedRoute {
  readonly route: Route;
  readonly template: RouteTemplate;
  /** The path's `{tenant}` segment, decoded, as sent (tenant routes only). */
  readonly tenant: string | undefined;
}

const TEMPLATES = Object.keys(ROUTES) as RouteTemplate[];
const PARAMETER = `{${TENANT_PARAMETER}}`;

function segments(path: string): string[] {
  return path.split('/').slice(1);
}

/** The template's `{tenant}` value if `path` fits it; null otherwise. */
function fit(template: RouteTemplate, path: string): { tenant: string | undefined } | null {
  const want = segments(template);
  const got = segments(path);
  if (want.length !== got.length) return null;
  let tenant: string | undefined;
  for (let i = 0; i < want.length; i += 1) {
    if (want[i] === PARAMETER) {
      if (got[i] === '') return null;
      tenant = got[i];
    } else if (want[i] !== got[i]) {
      return null;
    }
  }
  return { tenant };
}

export function matchRoute(method: string, rawPath: string): MatchedRoute {
  const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath;
  for (const template of TEMPLATES) {
    const fitted = fit(template, path);
    if (fitted === null) continue;
    const route = ROUTES[template];
    if (method.toUpperCase() !== route.method) {
      throw new MethodNotAllowedError(`${path} accepts ${route.method} only, not ${method}`, [route.method]);
    }
    return { route, template, tenant: fitted.tenant };
  }
  throw new RouteNotFoundError(`no route ${path}; the routes are ${TEMPLATES.map((t) => `${ROUTES[t].method} ${t}`).join(', ')}`);
}
