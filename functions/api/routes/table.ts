/** Matches a request to one of the contract's routes: an unknown path is 404, a known path with another method 405. */
import { ROUTES, type Route } from '../../../layers/contract/api.ts';
import { MethodNotAllowedError, RouteNotFoundError } from '../http/errors.ts';

const isRoutePath = (path: string): path is keyof typeof ROUTES => Object.hasOwn(ROUTES, path);

export function matchRoute(method: string, rawPath: string): Route {
  const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath;
  if (!isRoutePath(path)) {
    throw new RouteNotFoundError(`no route ${path}; the routes are ${Object.entries(ROUTES).map(([p, r]) => `${r.method} ${p}`).join(', ')}`);
  }
  const route = ROUTES[path];
  if (method.toUpperCase() !== route.method) {
    throw new MethodNotAllowedError(`${path} accepts ${route.method} only, not ${method}`, [route.method]);
  }
  return route;
}
