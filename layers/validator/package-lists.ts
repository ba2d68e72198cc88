/**
 * The two package lists the validator is given: what packages.R declares (the allow-list, with the
 * rules' base set, minus the blocked) and what is actually installed (for the not-installed lint).
 */
import type { PackageManifest } from '../packages/manifest.ts';
import type { ScriptRules } from '../rules/rules.ts';

export interface ValidatorPackages {
  readonly declaredPackages: readonly string[];
  readonly installedPackages: ReadonlySet<string>;
}

/** Both lists from the generated manifest; installed: everything the library holds (rlang, vctrs, ...), not only what GET /packages lists. */
export function manifestPackages(manifest: PackageManifest): ValidatorPackages {
  const installed = [...(manifest.installed ?? []), ...manifest.packages.map((p) => p.name)];
  return { declaredPackages: manifest.declared, installedPackages: new Set(installed) };
}

/** Without a manifest: only the rules' base packages are allowed, and known installed (they ship with R). */
export function basePackagesOnly(rules: ScriptRules): ValidatorPackages {
  return { declaredPackages: [], installedPackages: new Set(rules.packages.baseAllowed) };
}
