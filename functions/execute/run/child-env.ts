/**
 * The Rscript environment, built from an allow-list rather than filtered from the handler's:
 * whatever the handler inherited (AWS credentials, AWS_LAMBDA_RUNTIME_API, a caller's secret)
 * never reaches the script. HOME and TMPDIR point inside the private workdir; no user or site
 * Renviron/Rprofile runs (Rscript --vanilla, and these point at an empty file).
 */
import type { CapsuleSettings } from './containment.ts';
import { RUN_MARKER_VARIABLE } from './process-group.ts';
import type { WorkdirLayout } from './workdir.ts';

const FALLBACK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export function buildChildEnv(
  layout: WorkdirLayout,
  options: {
    readonly path?: string | undefined;
    readonly rLibs?: string | undefined;
    readonly runMarker: string;
    /** Preloaded into every process of the run and armed by the runner (containment.ts). */
    readonly capsule?: CapsuleSettings | undefined;
  },
): Record<string, string> {
  const env: Record<string, string> = {
    // Not a secret: it only lets the handler find this run's processes after it ends.
    [RUN_MARKER_VARIABLE]: options.runMarker,
    PATH: options.path && options.path.length > 0 ? options.path : FALLBACK_PATH,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    // Without TZ, R asks timedatectl (a process) for the zone.
    TZ: 'UTC',
    HOME: layout.home,
    TMPDIR: layout.tmp,
    R_LIBS_USER: layout.noLibrary,
    // Off for the runner and the script: the JIT compiles through .Internal(mkCode()), which the
    // capsule removes (a bytecode builder is a memory write primitive); packages' precompiled
    // bytecode is unaffected.
    R_ENABLE_JIT: '0',
    // Every object bound when it loads, later dlopen()s too, so the capsule can seal the PLT
    // slots read-only (r-image/capsule/relro.c): nothing writes them afterwards.
    LD_BIND_NOW: '1',
    // parallel::mclapply() and friends run serially: the capsule refuses fork(), and one core per
    // call is what the sandbox gives anyway.
    MC_CORES: '1',
    R_ENVIRON: layout.emptyFile,
    R_ENVIRON_USER: layout.emptyFile,
    R_PROFILE: layout.emptyFile,
    R_PROFILE_USER: layout.emptyFile,
  };
  if (options.rLibs) {
    env['R_LIBS'] = options.rLibs;
    env['R_LIBS_SITE'] = options.rLibs;
  }
  if (options.capsule) {
    // The capsule reads its policy when it loads, before any R code: the workdir is the one
    // writable place; pinned libraries are readable and loadable besides R's and the system's.
    env['LD_PRELOAD'] = options.capsule.library;
    env['JUBE_R_CAPSULE_LIBRARY'] = options.capsule.library;
    env['JUBE_R_CAPSULE_WORKDIR'] = layout.root;
    env['JUBE_R_CAPSULE_KERNEL'] = options.capsule.kernel;
    if (options.capsule.off.length > 0) env['JUBE_R_CAPSULE_OFF'] = options.capsule.off.join(',');
    if (options.rLibs) {
      env['JUBE_R_CAPSULE_READ'] = options.rLibs;
      env['JUBE_R_CAPSULE_DLOPEN'] = options.rLibs;
    }
  }
  return env;
}
