/**
 * Log messages the stack turns into metrics (CloudWatch metric filters on a function's JSON log):
 * the function writes them, infra/lib/constructs/monitoring.ts matches them, so the two share one
 * spelling. Pure constants.
 */

/** The execute function could not put a dataframe into the workdir (download failed or the source was refused). */
export const DATAFRAME_STAGING_FAILED = 'dataframe staging failed';
