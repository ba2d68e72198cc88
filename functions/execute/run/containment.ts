/**
 * The execute runtime's containment settings (docs/threat-model.md), read once from the
 * environment, validated, failing fast with the name of the offending key:
 *
 * - JUBE_R_CAPSULE                  `required` (default): every Rscript runs with the capsule
 *                                   preloaded and armed, and the handler refuses to load without
 *                                   the library; `off`: no capsule (benchmarks and tests only)
 * - JUBE_R_CAPSULE_LIBRARY          the capsule (default: native/ beside the bundle, else the
 *                                   repository's build/capsule/, which `npm run setup` builds)
 * - JUBE_R_CAPSULE_PROBE            its probe (default: beside the library)
 * - JUBE_R_CAPSULE_KERNEL           `auto` (default): Landlock and seccomp where the kernel allows;
 *                                   `off`: the interposition layer alone, as in Lambda (tests)
 * - JUBE_R_TEST_CAPSULE_OFF         test-only: a comma list of the capsule's defences to turn off
 *                                   (dispatch, routines, dlopen, got, proc), for the controls that
 *                                   show each defence is what stops its step. Refused when deployed.
 * - JUBE_R_SWEEP                    `run` (default): after a run, kill its process group and every
 *                                   process carrying its marker; `environment`: also every process
 *                                   but the handler and its ancestors (only where nothing else may
 *                                   run: the image)
 * - JUBE_R_WIPE_AFTER_RUN           ':'-separated directories emptied after every run (the image:
 *                                   /tmp:/dev/shm:/var/tmp), so the next run finds nothing
 * - JUBE_R_IPC_HYGIENE             `auto` (default): with JUBE_R_SWEEP=environment, System V IPC
 *                                   objects and POSIX queues are removed at init, before and after
 *                                   every run; `off`: test-only (a control), refused when deployed
 * - JUBE_R_TEST_ESCAPED_RUNNER      `true`: test-only; the runner evaluates without the R layer,
 *                                   as an escaped script would. Refused when JUBE_R_DEPLOYMENT is
 *                                   set (every deployed stack sets it).
 * - JUBE_R_TEST_NATIVE_RUNNER       an absolute path: test-only; a native program runs in place of
 *                                   Rscript (given the workdir), as a script that owns its process
 *                                   would. Refused when JUBE_R_DEPLOYMENT is set.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { readEnvironment } from '../../../layers/config/environment.ts';
import { handlerFile } from '../bundle-paths.ts';

export interface CapsuleSettings {
  readonly library: string;
  readonly probe: string;
  readonly kernel: 'auto' | 'off';
  /** JUBE_R_TEST_CAPSULE_OFF: the defences turned off (test controls); empty in every deployment. */
  readonly off: readonly CapsuleDefence[];
}

/** The capsule's defences a control test may turn off one at a time (r-image/capsule/capsule.h). */
export const CAPSULE_DEFENCES = ['dispatch', 'routines', 'dlopen', 'got', 'proc'] as const;
export type CapsuleDefence = (typeof CAPSULE_DEFENCES)[number];

export interface Containment {
  /** undefined: JUBE_R_CAPSULE=off. */
  readonly capsule: CapsuleSettings | undefined;
  readonly sweep: 'run' | 'environment';
  readonly wipeAfterRun: readonly string[];
  readonly testEscapedRunner: boolean;
  /** JUBE_R_TEST_NATIVE_RUNNER: what runs instead of Rscript (the red-team tier). */
  readonly testNativeRunner: string | undefined;
  /** JUBE_R_IPC_HYGIENE is not `off`. */
  readonly ipcHygiene: boolean;
  /** JUBE_R_DEPLOYMENT: set on every deployed function; undefined means a local runtime. */
  readonly deployment: string | undefined;
}

export class ContainmentConfigError extends Error {
  override readonly name = 'ContainmentConfigError';
}

const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const absoluteDirs = z
  .string()
  .transform((v) => v.split(':').filter((d) => d.length > 0))
  .pipe(z.array(z.string().regex(/^\/./, 'must be absolute paths other than /')));

const CONTAINMENT_ENV = {
  JUBE_R_CAPSULE: z.enum(['required', 'off']).default('required'),
  JUBE_R_CAPSULE_LIBRARY: z.string().min(1).optional(),
  JUBE_R_CAPSULE_PROBE: z.string().min(1).optional(),
  JUBE_R_CAPSULE_KERNEL: z.enum(['auto', 'off']).default('auto'),
  JUBE_R_TEST_CAPSULE_OFF: z
    .string()
    .transform((v) => v.split(',').filter((d) => d.length > 0))
    .pipe(z.array(z.enum(CAPSULE_DEFENCES)))
    .default([]),
  JUBE_R_SWEEP: z.enum(['run', 'environment']).default('run'),
  JUBE_R_WIPE_AFTER_RUN: absoluteDirs.default([]),
  JUBE_R_TEST_ESCAPED_RUNNER: flag.default(false),
  JUBE_R_IPC_HYGIENE: z.enum(['auto', 'off']).default('auto'),
  JUBE_R_TEST_NATIVE_RUNNER: z.string().regex(/^\/./, 'must be an absolute path').optional(),
  JUBE_R_DEPLOYMENT: z.string().min(1).optional(),
};


/** The variables readContainment reads. */
export type ContainmentKey = keyof typeof CONTAINMENT_ENV;

/** Every problem of these settings, each naming its key, in one ContainmentConfigError. */
export function readContainment(env: NodeJS.ProcessEnv = process.env): Containment {
  const read = readEnvironment(CONTAINMENT_ENV, env);
  if (!read.ok) throw new ContainmentConfigError(read.problems.join('; '));
  const e = read.values;
  const testOnly = [
    ...(e.JUBE_R_TEST_ESCAPED_RUNNER ? ['JUBE_R_TEST_ESCAPED_RUNNER'] : []),
    ...(e.JUBE_R_IPC_HYGIENE === 'off' ? ['JUBE_R_IPC_HYGIENE=off'] : []),
    ...(e.JUBE_R_TEST_NATIVE_RUNNER !== undefined ? ['JUBE_R_TEST_NATIVE_RUNNER'] : []),
    ...(e.JUBE_R_TEST_CAPSULE_OFF.length > 0 ? ['JUBE_R_TEST_CAPSULE_OFF'] : []),
  ];
  if (testOnly.length > 0 && e.JUBE_R_DEPLOYMENT !== undefined) {
    throw new ContainmentConfigError(
      `${testOnly.join(', ')} is a test-only switch and a deployed function (JUBE_R_DEPLOYMENT=${e.JUBE_R_DEPLOYMENT}) refuses to start with it`,
    );
  }
  let capsule: CapsuleSettings | undefined;
  if (e.JUBE_R_CAPSULE === 'required') {
    // native/ beside the bundled handler (the image), else the repository's build (npm run setup).
    const library = e.JUBE_R_CAPSULE_LIBRARY ?? handlerFile('native/jube_capsule.so', 'build/capsule/jube_capsule.so');
    if (!existsSync(library)) {
      throw new ContainmentConfigError(
        `JUBE_R_CAPSULE=required but the capsule library ${library} does not exist; run \`npm run setup\` (it builds build/capsule) or set JUBE_R_CAPSULE_LIBRARY`,
      );
    }
    capsule = {
      library,
      probe: e.JUBE_R_CAPSULE_PROBE ?? join(dirname(library), 'jube-capsule-probe'),
      kernel: e.JUBE_R_CAPSULE_KERNEL,
      off: e.JUBE_R_TEST_CAPSULE_OFF,
    };
  }
  return {
    capsule,
    sweep: e.JUBE_R_SWEEP,
    wipeAfterRun: e.JUBE_R_WIPE_AFTER_RUN,
    testEscapedRunner: e.JUBE_R_TEST_ESCAPED_RUNNER,
    testNativeRunner: e.JUBE_R_TEST_NATIVE_RUNNER,
    ipcHygiene: e.JUBE_R_IPC_HYGIENE === 'auto',
    deployment: e.JUBE_R_DEPLOYMENT,
  };
}
