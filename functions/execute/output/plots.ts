/**
 * The pages the runner's device wrote (r-image/runner/plots.R), read back in drawing order and
 * capped: at most maxCount plots and maxBytes bytes per run (before base64). Where the runner
 * wrote its envelope, only the pages it recorded there count, each at the size it recorded (a
 * run the backstop killed has no record: its page files are listed, at most
 * MAX_UNRECORDED_LISTED, and held to the same checks); a PNG whose header is
 * not the run's plot size is not decoded, so what inflating it costs is bounded by the run's
 * settings (width x height x 4 channels), never by the file. Blank pages (a device opened and
 * never drawn on) are left out, judged in one linear pass; pages past a cap are counted and a
 * note says how many.
 */
import { join } from 'node:path';
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import type { Plot } from '../../../layers/contract/execute.ts';
import { PLOT_PAGE_PATTERN } from '../../../layers/contract/runner.ts';
import { PLOT_MIME_TYPES, type PlotSettings } from '../run/plot-settings.ts';
import { isBlankPng, pngHeader } from './png.ts';
import type { PostRunBudget } from './post-run-budget.ts';
import { listDirectory, readRegularFile } from './safe-read.ts';

/** dNNN-pNNNNN.ext: the device's opening and the page within it. */
const PAGE_NAME = new RegExp(PLOT_PAGE_PATTERN.replace('[0-9]{3}', '([0-9]{3})').replace('[0-9]{5}', '([0-9]{5})'));

/** A page as the runner recorded it once its devices were closed. */
export interface RecordedPage {
  readonly name: string;
  readonly bytes: number;
}

/** Page files looked at in a run that left no record, only to count them. */
const MAX_UNRECORDED_LISTED = 1000;

export interface CollectedPlots {
  readonly plots: Plot[];
  /** Pages drawn but not returned: over a cap, unreadable, or not recorded by the runner. */
  readonly omitted: number;
  readonly notes: string[];
}

export async function collectPlots(
  root: string,
  dir: string,
  settings: PlotSettings | null,
  caps: Pick<ServiceConfig['plots'], 'maxCount' | 'maxBytes'>,
  recorded: readonly RecordedPage[] | undefined,
  budget?: PostRunBudget,
): Promise<CollectedPlots> {
  if (!settings) return { plots: [], omitted: 0, notes: [] };
  const pageList = recorded ?? (await unrecordedPages(root, dir));
  const seen = new Set<string>();
  const pages = pageList
    .flatMap((entry) => {
      const match = PAGE_NAME.exec(entry.name);
      if (!match || match[3] !== settings.format || seen.has(entry.name)) return [];
      seen.add(entry.name);
      return [{ ...entry, device: Number(match[1]), page: Number(match[2]) }];
    })
    .sort((a, b) => a.device - b.device || a.page - b.page);

  const plots: Plot[] = [];
  let bytes = 0;
  let overCap = 0;
  let blank = 0;
  let unreadable = 0;
  let unread = 0;
  for (const page of pages) {
    if (plots.length >= caps.maxCount || bytes + page.bytes > caps.maxBytes) {
      overCap += 1;
      continue;
    }
    if (budget?.expired()) {
      budget.stop('plots');
      unread += 1;
      continue;
    }
    const data = await readRegularFile(join(dir, page.name), caps.maxBytes - bytes, page.bytes);
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
        '(GET /health?detail=full limits.maxPlots, limits.maxPlotsBytes); draw fewer or smaller pages, or write them to out/ yourself',
    );
  }
  if (unreadable > 0) notes.push(`${unreadable} page(s) could not be read back (the run may have been stopped while drawing)`);
  if (blank > 0) notes.push(`${blank} blank page(s) (a device opened but never drawn on) were left out`);
  return { plots, omitted: overCap + unreadable + unread, notes };
}

/**
 * A run that ended without the runner's record (the backstop killed it mid-drawing): the page
 * files as listed, at most MAX_UNRECORDED_LISTED of them, each held to the same checks (its size
 * when listed, the run's plot size, the caps).
 */
async function unrecordedPages(root: string, dir: string): Promise<RecordedPage[]> {
  const listing = await listDirectory(root, dir, MAX_UNRECORDED_LISTED);
  return (listing?.entries ?? []).filter((e) => e.kind === 'file' && e.validName).map((e) => ({ name: e.name, bytes: e.bytes }));
}

type Look = 'blank' | 'unreadable' | { width: number; height: number };

function inspect(data: Buffer, settings: PlotSettings): Look {
  if (settings.format === 'svg') return isBlankSvg(data.toString('utf8')) ? 'blank' : { width: settings.width, height: settings.height };
  const expected = { width: settings.width, height: settings.height };
  const blank = isBlankPng(data, expected);
  if (blank === undefined || !pngHeader(data)) return 'unreadable';
  return blank ? 'blank' : expected;
}

/**
 * An svglite page with nothing on it: besides the XML declaration, the svg and g tags, the
 * definitions (styles, clip paths) and the first full-size background rectangle, no element.
 * One pass, each character looked at a bounded number of times (no regular expression runs over
 * the script's text: a page of `<g<g<g...` must not cost more than its length).
 */
export function isBlankSvg(text: string): boolean {
  let at = 0;
  let background = false;
  for (;;) {
    const open = text.indexOf('<', at);
    if (open < 0) return true;
    const close = text.indexOf('>', open + 1);
    // An unterminated tag ends the page: nothing after it is an element.
    if (close < 0) return true;
    const tag = text.slice(open + 1, close);
    at = close + 1;
    const first = tag.charCodeAt(0);
    const isLetter = (first >= 0x41 && first <= 0x5a) || (first >= 0x61 && first <= 0x7a);
    if (!isLetter) continue; // declarations, comments, closing tags
    let end = 0;
    while (end < tag.length && !/[\s/>]/.test(tag[end]!)) end += 1;
    const name = tag.slice(0, end);
    if (name === 'svg' || name === 'g') continue;
    if (name === 'defs') {
      if (tag.endsWith('/')) continue;
      const after = text.indexOf('</defs>', at);
      if (after < 0) return true;
      at = after + '</defs>'.length;
      continue;
    }
    if (name === 'rect' && !background && tag.includes("width='100%'") && tag.includes("height='100%'")) {
      background = true;
      continue;
    }
    return false;
  }
}
