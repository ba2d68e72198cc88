/** GET /packages: every installed R package with its version, from the generated manifest. */
import type { ApiDeps } from './deps.ts';
import type { PackagesResponse } from '../../../layers/contract/api.ts';

export function packages(deps: ApiDeps): PackagesResponse {
  const manifest = deps.manifest();
  return { rVersion: manifest.rVersion, packages: manifest.packages.map((p) => ({ ...p })) };
}
