/**
 * Runs R code in a fresh Rscript with the capsule preloaded and armed first, the way the runner
 * arms it just before a script, but without the runner: the code here calls R's and the C
 * library's real primitives directly, as a script that already owns its R process would.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** The capsule `npm run setup` builds (or JUBE_R_CAPSULE_LIBRARY). */
export const CAPSULE_LIBRARY = process.env['JUBE_R_CAPSULE_LIBRARY'] ?? join(repoRoot, 'build/capsule/jube_capsule.so');

export type KernelLayers = 'auto' | 'off';

export interface ArmedRun {
  /** The capsule's report of its active layers, e.g. "preload=armed landlock=abi7 seccomp=active". */
  readonly report: string;
  /** One entry per probe() call in the code: label -> "ok: <value>" or "refused: <message>". */
  readonly probes: Readonly<Record<string, string>>;
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | undefined;
  readonly workdir: string;
}

/**
 * R helpers available to the code: probe(label, expr) records whether expr succeeded; a warning
 * counts as refused (R reports most failed opens as warnings).
 */
const ARM = String.raw`
invisible(dyn.load(Sys.getenv("JUBE_TEST_CAPSULE")))
.armed <- .C("jube_capsule_arm", status = integer(1), report = strrep(" ", 511), deadline = 120, PACKAGE = "jube_capsule")
cat("@@report ", trimws(.armed$report), "\n", sep = "")
`;
const PROBE = String.raw`
probe <- function(label, expr) {
  outcome <- tryCatch({
    value <- expr
    paste("ok:", paste(format(value), collapse = " "))
  }, error = function(e) paste("refused:", conditionMessage(e)), warning = function(w) paste("refused:", conditionMessage(w)))
  cat("@@probe ", label, "\t", gsub("\n", " ", outcome), "\n", sep = "")
}
`;

/**
 * `capsule: false` is the control: the same code and probes in an Rscript with no capsule at all.
 */
export async function runArmed(
  code: string,
  options: { kernel?: KernelLayers; env?: Record<string, string>; capsule?: boolean } = {},
): Promise<ArmedRun> {
  const workdir = mkdtempSync(join(tmpdir(), 'jube-r-capsule-test-'));
  const capsule = options.capsule ?? true;
  try {
    writeFileSync(join(workdir, 'script.R'), `${capsule ? ARM : ''}${PROBE}\n${code}\n`);
    const result = await execa('Rscript', ['--vanilla', 'script.R'], {
      cwd: workdir,
      extendEnv: false,
      reject: false,
      timeout: 120_000,
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        LANG: 'C.UTF-8',
        TZ: 'UTC',
        HOME: workdir,
        TMPDIR: workdir,
        ...(capsule
          ? {
              LD_PRELOAD: CAPSULE_LIBRARY,
              JUBE_TEST_CAPSULE: CAPSULE_LIBRARY,
              JUBE_R_CAPSULE_WORKDIR: workdir,
              JUBE_R_CAPSULE_KERNEL: options.kernel ?? 'auto',
              // As the handler starts R (child-env.ts): every object bound at load, so arming
              // can seal the PLT slots; the JIT off, since it compiles through mkCode.
              LD_BIND_NOW: '1',
              R_ENABLE_JIT: '0',
            }
          : {}),
        ...options.env,
      },
    });
    const stdout = String(result.stdout);
    const probes: Record<string, string> = {};
    let report = '';
    for (const line of stdout.split('\n')) {
      if (line.startsWith('@@report ')) report = line.slice('@@report '.length);
      if (line.startsWith('@@probe ')) {
        const [label, outcome] = line.slice('@@probe '.length).split('\t');
        probes[label!] = outcome ?? '';
      }
    }
    return { report, probes, stdout, stderr: String(result.stderr), exitCode: result.exitCode, workdir };
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
}

/** A C fixture's `key=value` lines (the value may hold `=`), as an object. */
export function fixtureFields(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}
