/** The API's routes: one method each; an unknown path is 404, a known path with another method 405. */
import { MethodNotAllowedError, RouteNotFoundError } from '../http/errors.ts';

export const ROUTES = {
  '/health': { method: 'GET', name: 'health', body: false },
  '/packages': { method: 'GET', name: 'packages', body: false },
  '/validate': { method: 'POST', name: 'validate', body: true },
  '/execute': { method: 'POST', name: 'execute', body: true },
} as const;

export type Route = (typeof ROUTES)[keyof typeof ROUTES];
export type RouteName = Route['name'];

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
