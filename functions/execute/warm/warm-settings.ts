/**
 * What a warm runner loads and how the handler talks to it (r-image/runner/warm.R holds the R
 * side of the same lines). Pure: the pool and the tests read it.
 */
import type { ServiceConfig } from '../../../layers/config/service-config.ts';

/** The control lines a warm runner writes on stderr before its request, and the ping it answers. */
export const WARM_LINES = { ready: 'jube-r warm: ready', pong: 'jube-r warm: pong', ping: 'ping' } as const;

/**
 * The namespaces loaded before a request when JUBE_R_WARM_PACKAGES does not say: the packages.R
 * entries most scripts use, measured by test/bench/warm.bench.ts (docs/execute-runtime.md, "Warm
 * start"). Loading one costs nothing on the request's path, but memory and the runner's start.
 */
export const DEFAULT_WARM_PACKAGES = ['jsonlite', 'dplyr', 'tidyr', 'ggplot2', 'data.table'] as const;

export class WarmConfigError extends Error {
  override readonly name = 'WarmConfigError';
}

/**
 * The warm package list of this deployment: each must be a package packages.R declares (the
 * manifest), so a typo fails the handler's creation naming the key rather than loading nothing.
 * Where no manifest was generated (tests), the list is taken as given.
 */
export function warmPackages(config: ServiceConfig['warm'], declared: readonly string[]): readonly string[] {
  const wanted = config.packages ?? (declared.length > 0 ? DEFAULT_WARM_PACKAGES.filter((p) => declared.includes(p)) : DEFAULT_WARM_PACKAGES);
  const unknown = declared.length > 0 ? wanted.filter((p) => !declared.includes(p)) : [];
  if (unknown.length > 0) {
    throw new WarmConfigError(`invalid jube-r configuration: JUBE_R_WARM_PACKAGES names ${unknown.join(', ')}, not in packages.R`);
  }
  return wanted;
}

/** The arguments after `runner.R WORKDIR` that make a runner warm: the namespaces to load first. */
export function warmRunnerArgs(packages: readonly string[]): string[] {
  return [`--warm=${packages.join(',')}`];
}
