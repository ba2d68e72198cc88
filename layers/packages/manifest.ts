/**
 * The package manifest: generated from packages.R against a real R library by
 * scripts/write-manifest.R (by `npm run setup` locally, by the image build for Lambda).
 * GET /packages serves what of it a script may load (layers/rules/rules.ts allowedPackages).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** Where an installed package comes from: declared in packages.R, base R, or installed as a dependency (or one of R's recommended packages). */
export const PACKAGE_SOURCES = ['packages.R', 'base', 'dependency'] as const;

export const PackageManifestSchema = z.strictObject({
  rVersion: z.string().min(1),
  declared: z.array(z.string().min(1)),
  /** Every package the library holds, dependencies included; absent in a manifest written before it was recorded. */
  installed: z.array(z.string().min(1)).optional(),
  packages: z.array(
    z.strictObject({
      name: z.string().min(1),
      version: z.string().min(1),
      source: z.enum(PACKAGE_SOURCES),
    }),
  ),
});

export type PackageManifest = z.infer<typeof PackageManifestSchema>;

export const manifestFilePath = (): string =>
  process.env['JUBE_R_MANIFEST_FILE'] ?? fileURLToPath(new URL('./manifest.json', import.meta.url));

let cached: PackageManifest | undefined;

export class ManifestMissingError extends Error {
  override readonly name = 'ManifestMissingError';
}

/** Reads the manifest once per process; a missing file names the command that writes it. */
export function loadManifest(path: string = manifestFilePath()): PackageManifest {
  if (cached && path === manifestFilePath()) return cached;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new ManifestMissingError(
      `package manifest not found at ${path}; run \`npm run setup\` (or scripts/write-manifest.R) to generate it`,
      { cause },
    );
  }
  const parsed = PackageManifestSchema.parse(JSON.parse(text));
  if (path === manifestFilePath()) cached = parsed;
  return parsed;
}
