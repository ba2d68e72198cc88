/** The advice for a package a script may not load, shared by library() and pkg::. */
import type { CompiledRules } from '../context.ts';
import { nearest } from '../suggest.ts';

/** How many nearby package names the advice suggests. */
export const SUGGESTED_PACKAGES = 3;

/**
 * A blocked package says what it would do and what to do instead; a meta-package (the tidyverse)
 * names its installed members to load; any other absent one names the nearest loadable packages
 * (by edit distance, case-insensitive) and points at GET /packages.
 */
export function packageNotAllowedMessage(name: string, rules: CompiledRules): string {
  const blocked = rules.blockedPackages.get(name);
  if (blocked !== undefined) return `Package '${name}' ${blocked.why}. Instead: ${blocked.instead}.`;
  const loadable = [...rules.allowedPackages].filter((p) => rules.installedPackages.has(p));
  const members = rules.metaPackages.get(name);
  if (members !== undefined) {
    const here = members.filter((m) => loadable.includes(m));
    const absent = members.filter((m) => !loadable.includes(m));
    const load = here.length > 0 ? ` Load the packages it would attach instead: ${here.map((m) => `library(${m})`).join('; ')}.` : '';
    const missing = absent.length > 0 ? ` Not installed: ${absent.join(', ')}.` : '';
    return `Package '${name}' is not installed as one package.${load}${missing}`;
  }
  const instead = rules.alternatives.get(name);
  if (instead !== undefined) return `Package '${name}' is not installed here. Instead: ${instead}. GET /packages lists every installed package.`;
  const near = nearest(name, loadable, SUGGESTED_PACKAGES);
  const hint = near.length > 0 ? ` Did you mean ${near.map((p) => `'${p}'`).join(', ')}?` : '';
  return `Package '${name}' is not installed.${hint} GET /packages lists every installed package.`;
}
