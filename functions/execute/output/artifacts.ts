/** Everything a finished run left in its workdir for the caller: plots and out/ files, capped. */
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import { collectOutFiles } from './out-files.ts';
import { strayFileNote } from './stray-files.ts';
import type { Artifacts } from '../outcome.ts';
import type { PlotSettings } from '../run/plot-settings.ts';
import { collectPlots, type RecordedPage } from './plots.ts';
import type { PostRunBudget } from './post-run-budget.ts';
import type { WorkdirLayout } from '../run/workdir.ts';

/** Only once the run's processes are gone: the script owned these directories until then. */
export async function collectArtifacts(
  layout: WorkdirLayout,
  settings: PlotSettings | null,
  config: Pick<ServiceConfig, 'plots' | 'files'>,
  /** The pages the runner recorded in its envelope; undefined: no trustworthy envelope. */
  recordedPages: readonly RecordedPage[] | undefined,
  budget?: PostRunBudget,
): Promise<Artifacts> {
  const [plots, files, stray] = await Promise.all([
    collectPlots(layout.root, layout.plotDir, settings, config.plots, recordedPages, budget),
    collectOutFiles(layout.root, layout.outDir, config.files, budget),
    strayFileNote(layout.root, layout.outDir),
  ]);
  return {
    plots: plots.plots,
    plotsOmitted: plots.omitted,
    files: files.files,
    notes: [...plots.notes, ...files.notes, ...stray],
    truncated: plots.omitted > 0 || files.truncated,
  };
}
