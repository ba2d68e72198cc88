/** Shared wording for packages a script may not use. */
import type { CompiledRules } from '../context.ts';
import { closest } from '../suggest.ts';

export function packageNotAllowedMessage(name: string, rules: CompiledRules): string {
  const blocked = rules.blockedPackages.get(name);
  if (blocked !== undefined) return `Package '${name}' is blocked in jube-r: ${blocked} Do it with base R or an installed package.`;
  const near = closest(name, [...rules.allowedPackages]);
  const hint = near ? ` Did you mean '${near}'?` : ' GET /packages lists what is available.';
  return `Package '${name}' is not available in jube-r.${hint}`;
}
