/**
 * What the validator is told is installed: the generated manifest's whole library (what packages.R
 * declares and everything installed with it), or, without a manifest, only R's own packages.
 */
import type { PackageManifest } from '../packages/manifest.ts';
import type { ScriptRules } from '../rules/rules.ts';

export interface ValidatorPackages {
  readonly installedPackages: ReadonlySet<string>;
}

/** Everything the library holds (rlang, vctrs, ...), not only what GET /packages lists. */
export function manifestPackages(manifest: PackageManifest): ValidatorPackages {
  return { installedPackages: new Set([...(manifest.installed ?? []), ...manifest.packages.map((p) => p.name)]) };
}

/** Without a manifest: R's own packages (they ship with R). */
export function basePackagesOnly(rules: ScriptRules): ValidatorPackages {
  return { installedPackages: new Set(rules.packages.baseAllowed) };
}
