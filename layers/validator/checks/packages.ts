/** Shared wording for packages a script may not use. */
import type { CompiledRules } from '../context.ts';
import { nearest } from '../suggest.ts';

/** Why an installed package is refused: it came with another (packages.allowedDependencies lists those scripts may load). */
export const DEPENDENCY_ONLY = ' It is installed only as a dependency of the packages a script may load, not for scripts to load themselves.';

/** How many nearby package names a rejection suggests. */
export const SUGGESTED_PACKAGES = 3;

/**
 * A blocked package says why; any other unavailable one says what to write instead where the rules
 * know (packages.allowedDependencies.insteadOf: magrittr's pipe comes with dplyr), names the nearest
 * packages a script may load (installed and allowed; by edit distance, case-insensitive) and points
 * at GET /packages.
 * r-image/runner/revalidate-packages.R words the same rejection the same way; each side's tests
 * (namespace-package.test.ts, test/runner/r/test-revalidate-packages.R) assert the same sentences.
 */
export function packageNotAllowedMessage(name: string, rules: CompiledRules): string {
  const blocked = rules.blockedPackages.get(name);
  if (blocked !== undefined) return `Package '${name}' is blocked in jube-r: ${blocked} Do it with base R or an installed package.`;
  const loadable = [...rules.allowedPackages].filter((p) => rules.installedPackages.has(p));
  const members = rules.metaPackages.get(name);
  if (members !== undefined) return metaPackageMessage(name, members, new Set(loadable));
  const near = nearest(name, loadable, SUGGESTED_PACKAGES);
  const hint = near.length > 0 ? ` Did you mean ${near.map((p) => `'${p}'`).join(', ')}?` : '';
  const why = rules.installedPackages.has(name) ? DEPENDENCY_ONLY : '';
  const advice = rules.dependencyAdvice.get(name);
  const instead = advice === undefined ? '' : ` Instead: ${advice}.`;
  return `Package '${name}' is not available in jube-r.${why}${instead}${hint} GET /packages lists every installed package.`;
}

/**
 * A meta-package (the tidyverse) is not installed, its members are: the rejection names each
 * installed member to load instead, and the members that are not.
 */
function metaPackageMessage(name: string, members: readonly string[], loadable: ReadonlySet<string>): string {
  const here = members.filter((m) => loadable.has(m));
  const absent = members.filter((m) => !loadable.has(m));
  const load = here.length > 0 ? ` Load the packages it would attach instead: ${here.map((m) => `library(${m})`).join('; ')}.` : '';
  const missing = absent.length > 0 ? ` Not available: ${absent.join(', ')}.` : '';
  return `Package '${name}' is not available in jube-r as one package.${load}${missing}`;
}

/**
 * An export of a named-exports package (rlang) that is not in its list: why, when the rules say,
 * and the functions of it a script may call. revalidate-packages.R words it the same way.
 */
export function namedExportMessage(pkg: string, name: string, rules: CompiledRules): string {
  const why = rules.refusedExports.get(`${pkg}::${name}`) ?? `${pkg} is blocked: ${rules.blockedPackages.get(pkg) ?? ''}`;
  const listed = [...(rules.namedExports.get(pkg) ?? [])].join(', ');
  return `'${pkg}::${name}' is not available in jube-r: ${why} Of ${pkg}, a script may call only ${listed}, as ${pkg}::name.`;
}
