/**
 * The private per-invocation workdir (mode 0700) under the temp root: the script and its inputs
 * as files, HOME and TMPDIR for R, and the envelope the runner writes back. Removed in `finally`
 * by the handler, whatever happened, so a warm container carries nothing to the next call.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import { RUNNER_CAP_KEYS, RUNNER_FILES, RunnerInputSchema, type RunnerCaps, type RunnerInput } from '../../../layers/contract/runner.ts';
import { removeTree, type RemoveOutcome } from '../output/bounded-remove.ts';

export interface WorkdirLayout {
  readonly root: string;
  readonly script: string;
  readonly input: string;
  readonly envelope: string;
  readonly dataDir: string;
  /** What the script writes here comes back as `files` (out-files.ts). */
  readonly outDir: string;
  /** The runner's plot device writes its pages here (r-image/runner/plots.R); read back by plots.ts. */
  readonly plotDir: string;
  readonly home: string;
  readonly tmp: string;
  /** Never created: R_LIBS_USER points here so no user library is searched. */
  readonly noLibrary: string;
  /** An empty file for R_ENVIRON / R_PROFILE. */
  readonly emptyFile: string;
}

export type { RunnerInput };

/** The caps the runner applies itself, picked from the configuration. */
export function runnerCaps(caps: ServiceConfig['caps']): RunnerCaps {
  return Object.fromEntries(RUNNER_CAP_KEYS.map((key) => [key, caps[key]])) as unknown as RunnerCaps;
}

export async function createWorkdir(tmpRoot: string): Promise<WorkdirLayout> {
  // The temp root may have been wiped after the previous run (JUBE_R_WIPE_AFTER_RUN).
  await mkdir(tmpRoot, { recursive: true, mode: 0o700 });
  const root = await mkdtemp(join(tmpRoot, 'jube-r-'));
  const f = RUNNER_FILES;
  const layout: WorkdirLayout = {
    root,
    script: join(root, f.script),
    input: join(root, f.input),
    envelope: join(root, f.envelope),
    dataDir: join(root, f.dataDir),
    outDir: join(root, f.outDir),
    plotDir: join(root, f.plotDir),
    home: join(root, f.home),
    tmp: join(root, f.tmp),
    noLibrary: join(root, f.noLibrary),
    emptyFile: join(root, f.emptyFile),
  };
  try {
    // mkdtemp already creates 0700; the subdirectories follow suit.
    await Promise.all([
      mkdir(layout.home, { mode: 0o700 }),
      mkdir(layout.tmp, { mode: 0o700 }),
      mkdir(layout.dataDir, { mode: 0o700 }),
      mkdir(layout.outDir, { mode: 0o700 }),
      mkdir(layout.plotDir, { mode: 0o700, recursive: true }),
      writeFile(layout.emptyFile, '', { mode: 0o600 }),
    ]);
  } catch (error) {
    await removeWorkdir(layout, Date.now() + 5_000);
    throw error;
  }
  return layout;
}

/** Writes the script and input.json; the input is checked against the seam's schema first. */
export async function writeInputs(layout: WorkdirLayout, script: string, input: RunnerInput): Promise<void> {
  const checked = RunnerInputSchema.parse(input);
  await Promise.all([
    writeFile(layout.script, script, { mode: 0o600 }),
    writeFile(layout.input, JSON.stringify(checked), { mode: 0o600 }),
  ]);
}

/**
 * Removes the workdir before `deadline` (epoch ms), streaming its directories (bounded-remove.ts):
 * 'deadline' leaves part of it, for the next start-of-run hygiene to finish.
 */
export function removeWorkdir(layout: WorkdirLayout, deadline: number): Promise<RemoveOutcome> {
  return removeTree(layout.root, deadline);
}
