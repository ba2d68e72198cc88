/**
 * The package facts the validate bundle serves (GET /packages, rVersion in /health and in rejected
 * /execute answers): what the execute image's own package-facts step wrote against the image's R
 * (manifest.json, and every file beside it), as `npm run image:build` extracted it from the built
 * image. The image is their only producer for a deployment: the host's manifest (`npm run setup`)
 * describes the host's R and serves only the local stack, which runs host R.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { PackageManifestSchema, type PackageManifest } from '../../layers/packages/manifest.ts';

/** Where scripts/image-build.sh puts them, relative to the repository (JUBE_R_PACKAGE_FACTS_DIR overrides there). */
export const DEFAULT_PACKAGE_FACTS_DIR = 'build/image-packages';
/** The file every package-facts directory holds; the rest (help text, ...) travels with it. */
export const MANIFEST_FILE = 'manifest.json';
/**
 * Beside a facts directory (`<dir>.image.json`, not in it: the directory is the image's, file for
 * file): which image the facts were extracted from, as scripts/image-facts.sh records it.
 */
export const IMAGE_SOURCE_SUFFIX = '.image.json';

const ImageSourceSchema = z.strictObject({
  /** The reference the facts were pulled from, as given. */
  image: z.string().min(1),
  /** Its registry digest (`sha256:...`), when it has one (an image pushed or pulled by digest). */
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/).optional(),
  /** The local image id (the config digest) the engine reports. */
  id: z.string().min(1),
});
export type ImageSource = z.infer<typeof ImageSourceSchema>;

export class PackageFactsMissingError extends Error {
  override readonly name = 'PackageFactsMissingError';
}

export interface PackageFacts {
  readonly directory: string;
  readonly manifest: PackageManifest;
  /** Every file of the directory, relative to it (manifest.json included). */
  readonly files: readonly string[];
  /** Where the facts came from, when recorded (`<dir>.image.json`). */
  readonly source: ImageSource | undefined;
}

export interface PackageFactsOptions {
  /**
   * The digest of the image the function will run (`-c executeImageUri=...@sha256:...`): the facts must
   * have been pulled from exactly that image, or synthesis stops.
   */
  readonly imageDigest?: string | undefined;
}

/** Reads and checks a package-facts directory; throws naming the command that writes it. */
export function readPackageFacts(directory: string, options: PackageFactsOptions = {}): PackageFacts {
  const manifestPath = join(directory, MANIFEST_FILE);
  if (!existsSync(manifestPath)) {
    throw new PackageFactsMissingError(
      `no image package facts at ${manifestPath}: run \`npm run image:build\` (the image writes the manifest /packages serves ` +
        'and the build extracts it) or `scripts/image-facts.sh <the image deployed>`, or pass -c packageFactsDirectory=<a directory extracted from it>',
    );
  }
  const parsed = PackageManifestSchema.safeParse(JSON.parse(readFileSync(manifestPath, 'utf8')));
  if (!parsed.success) throw new PackageFactsMissingError(`${manifestPath} is not a package manifest: ${parsed.error.message}`);
  const files = readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter((entry) => statSync(join(directory, entry)).isFile())
    .map((entry) => relative(directory, join(directory, entry)))
    .sort();
  const source = readImageSource(directory);
  if (options.imageDigest !== undefined && source?.digest !== options.imageDigest) {
    throw new PackageFactsMissingError(
      `the package facts in ${directory} are ${source ? `those of ${source.image}${source.digest ? ` (${source.digest})` : ' (no registry digest)'}` : 'of an unrecorded image'}, ` +
        `not of the image this stack runs (${options.imageDigest}): pull them from it with \`scripts/image-facts.sh <executeImageUri>\` ` +
        `(it writes ${directory}${IMAGE_SOURCE_SUFFIX} beside them)`,
    );
  }
  return { directory, manifest: parsed.data, files, source };
}

function readImageSource(directory: string): ImageSource | undefined {
  const path = `${directory.replace(/\/+$/, '')}${IMAGE_SOURCE_SUFFIX}`;
  if (!existsSync(path)) return undefined;
  const parsed = ImageSourceSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new PackageFactsMissingError(`${path} does not say which image the facts came from: ${parsed.error.message}`);
  return parsed.data;
}
