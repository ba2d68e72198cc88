/**
 * Where the execute handler finds its tools and how it runs them (modes, not only paths), from the
 * environment (the image's Dockerfile sets these; locally the defaults find host R and the repo's
 * runner), read by layers/config/environment.ts like every other setting:
 *
 * - JUBE_R_RSCRIPT        the Rscript binary (default `Rscript` on PATH)
 * - JUBE_R_RUNNER_SCRIPT  the R runner (default: `runner/runner.R` beside the bundle, else the
 *                         repo's r-image/runner/runner.R)
 * - JUBE_R_RULES_FILE     the script rules (layers/rules/rules.ts decides the default)
 * - JUBE_R_TMP_ROOT       where per-invocation workdirs are created (default os.tmpdir())
 * - JUBE_R_PRLIMIT        util-linux prlimit (default `prlimit`; `none` disables rlimits, tests only)
 * - JUBE_R_NAMESPACES    `auto` (bubblewrap when it works here), `bwrap` (required) or `none`
 * - JUBE_R_LIBS           pin R_LIBS/R_LIBS_SITE to this library path list (default: R's own
 *                         site libraries from R_HOME/etc/Renviron, i.e. what the image installed)
 * - the containment settings (JUBE_R_CAPSULE*, JUBE_R_SWEEP, ...): containment.ts
 */
import { tmpdir } from 'node:os';
import { z } from 'zod';
import { readEnvironment } from '../../layers/config/environment.ts';
import { rulesFilePath } from '../../layers/rules/rules.ts';
import { handlerFile } from './bundle-paths.ts';
import { ContainmentConfigError, readContainment, type Containment, type ContainmentKey } from './run/containment.ts';

export type NamespacesMode = RuntimeSettings['namespaces'];

export interface RuntimeSettings {
  readonly rscript: string;
  readonly runnerScript: string;
  readonly rulesFile: string;
  readonly tmpRoot: string;
  /** undefined: run without rlimits (never in the image). */
  readonly prlimit: string | undefined;
  readonly namespaces: 'auto' | 'bwrap' | 'none';
  readonly rLibs: string | undefined;
  readonly containment: Containment;
}

export class RuntimeSettingsError extends Error {
  override readonly name = 'RuntimeSettingsError';
}

const path = z.string().min(1).optional();
const RUNTIME_ENV = {
  JUBE_R_RSCRIPT: path,
  JUBE_R_RUNNER_SCRIPT: path,
  JUBE_R_RULES_FILE: path,
  JUBE_R_TMP_ROOT: path,
  JUBE_R_PRLIMIT: path,
  JUBE_R_NAMESPACES: z.enum(['auto', 'bwrap', 'none']).default('auto'),
  JUBE_R_LIBS: path,
};

/** The variables readRuntimeSettings reads, its own and the containment's. */
export type RuntimeSettingsKey = keyof typeof RUNTIME_ENV | ContainmentKey;

/** Every problem, its own keys' and the containment's, in one RuntimeSettingsError. */
export function readRuntimeSettings(env: NodeJS.ProcessEnv = process.env): RuntimeSettings {
  const read = readEnvironment(RUNTIME_ENV, env);
  let containment: Containment | undefined;
  const problems = read.ok ? [] : [...read.problems];
  try {
    containment = readContainment(env);
  } catch (error) {
    if (!(error instanceof ContainmentConfigError)) throw error;
    problems.push(error.message);
  }
  if (!read.ok || containment === undefined) throw new RuntimeSettingsError(`invalid execute runtime settings: ${problems.join('; ')}`);
  const e = read.values;
  const prlimit = e.JUBE_R_PRLIMIT ?? 'prlimit';
  return {
    rscript: e.JUBE_R_RSCRIPT ?? 'Rscript',
    runnerScript: e.JUBE_R_RUNNER_SCRIPT ?? handlerFile('runner/runner.R', 'r-image/runner/runner.R'),
    rulesFile: e.JUBE_R_RULES_FILE ?? rulesFilePath(),
    tmpRoot: e.JUBE_R_TMP_ROOT ?? tmpdir(),
    prlimit: prlimit === 'none' ? undefined : prlimit,
    namespaces: e.JUBE_R_NAMESPACES,
    rLibs: e.JUBE_R_LIBS,
    containment,
  };
}
