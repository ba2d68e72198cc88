/**
 * The private per-invocation workdir (mode 0700) under the temp root: the script and its inputs
 * as files, HOME and TMPDIR for R, and the envelope the runner writes back. Removed in `finally`
 * by the handler, whatever happened, so a warm container carries nothing to the next call.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { forceRemove } from './hygiene.ts';
import type { PlotSettings } from './plot-settings.ts';

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

/** What the runner reads from input.json (the shape r-image/runner/runner.R expects). */
export interface RunnerInput {
  readonly timeoutSeconds: number;
  readonly allowedPackages: readonly string[];
  /** null when tree-sitter found a syntax error. */
  readonly treeSitterSymbols: readonly string[] | null;
  readonly variables: readonly { readonly name: string; readonly value: unknown }[];
  readonly dataframes: readonly { readonly name: string; readonly file: string }[];
  readonly caps: {
    readonly errorBytes: number;
    readonly warnings: number;
    readonly warningBytes: number;
    readonly messages: number;
    readonly messageBytes: number;
    readonly valueBytes: number;
    readonly callBytes: number;
    readonly tracebackFrames: number;
  };
  /** The plot device's settings; null: no capture (R's default device). */
  readonly plots: PlotSettings | null;
  /** The request's context as JSON text, bound in R as `.context`; absent: no binding. */
  readonly contextJson?: string;
  /** Test-only (JUBE_R_TEST_ESCAPED_RUNNER): evaluate without the R layer, as an escaped script would. */
  readonly testEscaped?: boolean;
}

export async function createWorkdir(tmpRoot: string): Promise<WorkdirLayout> {
  // The temp root may have been wiped after the previous run (JUBE_R_WIPE_AFTER_RUN).
  await mkdir(tmpRoot, { recursive: true, mode: 0o700 });
  const root = await mkdtemp(join(tmpRoot, 'jube-r-'));
  const layout: WorkdirLayout = {
    root,
    script: join(root, 'script.R'),
    input: join(root, 'input.json'),
    envelope: join(root, 'envelope.json'),
    dataDir: join(root, 'data'),
    outDir: join(root, 'out'),
    plotDir: join(root, '.jube', 'plots'),
    home: join(root, 'home'),
    tmp: join(root, 'tmp'),
    noLibrary: join(root, 'no-user-library'),
    emptyFile: join(root, 'empty'),
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
    await removeWorkdir(layout);
    throw error;
  }
  return layout;
}

export async function writeInputs(layout: WorkdirLayout, script: string, input: RunnerInput): Promise<void> {
  await Promise.all([
    writeFile(layout.script, script, { mode: 0o600 }),
    writeFile(layout.input, JSON.stringify(input), { mode: 0o600 }),
  ]);
}

/** Whether the workdir is gone (a script may have made parts of it unwritable to its owner). */
export function removeWorkdir(layout: WorkdirLayout): Promise<boolean> {
  return forceRemove(layout.root);
}
