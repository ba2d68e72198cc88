/**
 * The R version every response reports: the service's, fixed when the handler starts, from the
 * manifest that the image's own R wrote when it was built (scripts/write-manifest.R). Never from
 * a run: a script that escaped the R layer writes its own envelope, and anything learned from it
 * would reach later callers (another tenant, under shared tenancy).
 */
const R_VERSION = /^\d{1,3}\.\d{1,3}\.\d{1,3}$/;

export function serviceRVersion(manifest: { readonly rVersion: string } | undefined): string {
  const version = manifest?.rVersion;
  return version !== undefined && R_VERSION.test(version) ? version : 'unknown';
}
