/**
 * The pages the runner's device wrote (r-image/runner/plots.R), read back in drawing order and
 * capped: at most maxCount plots and maxBytes bytes per run (before base64). Blank pages (a device
 * opened and never drawn on) are left out; pages past a cap are counted and a note says how many.
 */
import { join } from 'node:path';
import type { ServiceConfig } from '../../layers/config/service-config.ts';
import type { Plot } from '../../layers/contract/execute.ts';
import { PLOT_MIME_TYPES, type PlotSettings } from './plot-settings.ts';
import { isBlankPng, pngHeader } from './png.ts';
import { listDirectory, readRegularFile } from './safe-read.ts';

/** dNNN-pNNNNN.ext: the device's opening and the page within it. */
const PAGE_NAME = /^d(\d+)-p(\d+)\.(png|svg)$/;

export interface CollectedPlots {
  readonly plots: Plot[];
  /** Pages drawn but not returned: over a cap, or unreadable. */
  readonly omitted: number;
  readonly notes: string[];
}

export async function collectPlots(
  root: string,
  dir: string,
  settings: PlotSettings | null,
  caps: Pick<ServiceConfig['plots'], 'maxCount' | 'maxBytes'>,
): Promise<CollectedPlots> {
  if (!settings) return { plots: [], omitted: 0, notes: [] };
  const pages = ((await listDirectory(root, dir)) ?? [])
    .filter((entry) => entry.kind === 'file')
    .flatMap((entry) => {
      const match = PAGE_NAME.exec(entry.name);
      return match && match[3] === settings.format ? [{ ...entry, device: Number(match[1]), page: Number(match[2]) }] : [];
    })
    .sort((a, b) => a.device - b.device || a.page - b.page);

  const plots: Plot[] = [];
  let bytes = 0;
  let overCap = 0;
  let blank = 0;
  let unreadable = 0;
  for (const page of pages) {
    if (plots.length >= caps.maxCount || bytes + page.bytes > caps.maxBytes) {
      overCap += 1;
      continue;
    }
    const data = await readRegularFile(join(dir, page.name), caps.maxBytes - bytes);
    const look = data === undefined ? 'unreadable' : inspect(data, settings);
    if (look === 'blank') blank += 1;
    else if (look === 'unreadable' || data === undefined) unreadable += 1;
    else {
      plots.push({ mimeType: PLOT_MIME_TYPES[settings.format], ...look, bytes: data.length, data: data.toString('base64') });
      bytes += data.length;
    }
  }
  const notes: string[] = [];
  if (overCap > 0) {
    notes.push(
      `${overCap} of ${pages.length - blank} drawn pages were not returned: at most ${caps.maxCount} plots and ${caps.maxBytes} bytes per run ` +
        '(GET /health limits.maxPlots, limits.maxPlotsBytes); draw fewer or smaller pages, or write them to out/ yourself',
    );
  }
  if (unreadable > 0) notes.push(`${unreadable} page(s) could not be read back (the run may have been stopped while drawing)`);
  if (blank > 0) notes.push(`${blank} blank page(s) (a device opened but never drawn on) were left out`);
  return { plots, omitted: overCap + unreadable, notes };
}

type Look = 'blank' | 'unreadable' | { width: number; height: number };

function inspect(data: Buffer, settings: PlotSettings): Look {
  if (settings.format === 'svg') return isBlankSvg(data.toString('utf8')) ? 'blank' : { width: settings.width, height: settings.height };
  const blank = isBlankPng(data);
  const header = pngHeader(data);
  if (blank === undefined || !header) return 'unreadable';
  return blank ? 'blank' : { width: header.width, height: header.height };
}

/**
 * An svglite page with nothing on it: once its style and clip definitions, the background
 * rectangle and empty groups are taken away, no element is left.
 */
export function isBlankSvg(text: string): boolean {
  const rest = text
    .replace(/<\?xml[^>]*\?>/g, '')
    .replace(/<defs>[\s\S]*?<\/defs>/g, '')
    .replace(/<\/?svg\b[^>]*>/g, '')
    .replace(/<rect width='100%' height='100%'[^>]*\/>/, '')
    .replace(/<\/?g\b[^>]*>/g, '');
  return !/<[a-zA-Z]/.test(rest);
}
