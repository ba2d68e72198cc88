/**
 * The package facts the validate bundle serves (GET /packages, rVersion in /health and in rejected
 * /execute answers): what the execute image's own package-facts step wrote against the image's R
 * (manifest.json, and every file beside it), as `npm run image:build` extracted it from the built
 * image. The image is their only producer for a deployment: the host's manifest (`npm run setup`)
 * describes the host's R and serves only the local stack, which runs host R.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PackageManifestSchema, type PackageManifest } from '../../layers/packages/manifest.ts';

/** Where scripts/image-build.sh puts them, relative to the repository (JUBE_R_PACKAGE_FACTS_DIR overrides there). */
export const DEFAULT_PACKAGE_FACTS_DIR = 'build/image-packages';
/** The file every package-facts directory holds; the rest (help text, ...) travels with it. */
export const MANIFEST_FILE = 'manifest.json';

export class PackageFactsMissingError extends Error {
  override readonly name = 'PackageFactsMissingError';
}

export interface PackageFacts {
  readonly directory: string;
  readonly manifest: PackageManifest;
  /** Every file of the directory, relative to it (manifest.json included). */
  readonly files: readonly string[];
}

/** Reads and checks a package-facts directory; throws naming the command that writes it. */
export function readPackageFacts(directory: string): PackageFacts {
  const manifestPath = join(directory, MANIFEST_FILE);
  if (!existsSync(manifestPath)) {
    throw new PackageFactsMissingError(
      `no image package facts at ${manifestPath}: run \`npm run image:build\` (the image writes the manifest /packages serves ` +
        'and the build extracts it), or pass -c packageFactsDirectory=<a directory extracted from the image that is deployed>',
    );
  }
  const parsed = PackageManifestSchema.safeParse(JSON.parse(readFileSync(manifestPath, 'utf8')));
  if (!parsed.success) throw new PackageFactsMissingError(`${manifestPath} is not a package manifest: ${parsed.error.message}`);
  const files = readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter((entry) => statSync(join(directory, entry)).isFile())
    .map((entry) => relative(directory, join(directory, entry)))
    .sort();
  return { directory, manifest: parsed.data, files };
}
