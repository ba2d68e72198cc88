/**
 * Where the execute handler finds its tools, from the environment (the image's Dockerfile sets
 * these; locally the defaults find host R and the repo's runner):
 *
 * - JUBE_R_RSCRIPT        the Rscript binary (default `Rscript` on PATH)
 * - JUBE_R_RUNNER_SCRIPT  the R runner (default: `runner/runner.R` beside the bundle, else the
 *                         repo's r-image/runner/runner.R)
 * - JUBE_R_RULES_FILE     the script rules (layers/rules/rules.ts decides the default)
 * - JUBE_R_TMP_ROOT       where per-invocation workdirs are created (default os.tmpdir())
 * - JUBE_R_PRLIMIT        util-linux prlimit (default `prlimit`; `none` disables rlimits, tests only)
 * - JUBE_R_NAMESPACES        `auto` (bubblewrap when it works here), `bwrap` (required) or `none`
 * - JUBE_R_LIBS           pin R_LIBS/R_LIBS_SITE to this library path list (default: R's own
 *                         site libraries from R_HOME/etc/Renviron, i.e. what the image installed)
 * - the containment settings (JUBE_R_CAPSULE*, JUBE_R_SWEEP, ...): containment.ts
 */
import { tmpdir } from 'node:os';
import { rulesFilePath } from '../../layers/rules/rules.ts';
import { handlerFile } from './bundle-paths.ts';
import { readContainment, type Containment } from './run/containment.ts';

export type NamespacesMode = 'auto' | 'bwrap' | 'none';

export interface RuntimeSettings {
  readonly rscript: string;
  readonly runnerScript: string;
  readonly rulesFile: string;
  readonly tmpRoot: string;
  /** undefined: run without rlimits (never in the image). */
  readonly prlimit: string | undefined;
  readonly namespaces: NamespacesMode;
  readonly rLibs: string | undefined;
  readonly containment: Containment;
}

export class RuntimeSettingsError extends Error {
  override readonly name = 'RuntimeSettingsError';
}


export function readRuntimeSettings(env: NodeJS.ProcessEnv = process.env): RuntimeSettings {
  const pick = (key: string): string | undefined => (env[key] === '' ? undefined : env[key]);
  const namespaces = pick('JUBE_R_NAMESPACES') ?? 'auto';
  if (namespaces !== 'auto' && namespaces !== 'bwrap' && namespaces !== 'none') {
    throw new RuntimeSettingsError(`JUBE_R_NAMESPACES must be auto, bwrap or none, not ${JSON.stringify(namespaces)}`);
  }
  const prlimit = pick('JUBE_R_PRLIMIT') ?? 'prlimit';
  return {
    rscript: pick('JUBE_R_RSCRIPT') ?? 'Rscript',
    runnerScript: pick('JUBE_R_RUNNER_SCRIPT') ?? handlerFile('runner/runner.R', 'r-image/runner/runner.R'),
    rulesFile: pick('JUBE_R_RULES_FILE') ?? rulesFilePath(),
    tmpRoot: pick('JUBE_R_TMP_ROOT') ?? tmpdir(),
    prlimit: prlimit === 'none' ? undefined : prlimit,
    namespaces,
    rLibs: pick('JUBE_R_LIBS'),
    containment: readContainment(env),
  };
}
