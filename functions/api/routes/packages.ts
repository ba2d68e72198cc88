/**
 * GET /packages: exactly what library() accepts (every installed package the rules do not block,
 * from the generated manifest, with its version), and the blocked ones with why and instead.
 */
import type { ApiDeps } from './deps.ts';
import type { PackagesResponse } from '../../../layers/contract/api.ts';
import { allowedPackages } from '../../../layers/rules/rules.ts';

export function packages(deps: ApiDeps): PackagesResponse {
  const manifest = deps.manifest();
  const rules = deps.rules();
  const allowed = allowedPackages(rules, manifest.installed ?? manifest.packages.map((p) => p.name));
  const versions = new Map(manifest.packages.map((p) => [p.name, p.version]));
  return {
    rVersion: manifest.rVersion,
    packages: manifest.packages.filter((p) => allowed.has(p.name)).map((p) => ({ ...p })),
    blocked: rules.packages.blocked.map(({ name, why, instead }) => {
      const version = versions.get(name);
      return { name, ...(version === undefined ? {} : { version }), why, instead };
    }),
  };
}
