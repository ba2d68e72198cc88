/**
 * plots.ts and plot-settings.ts without R: drawing order, blank pages, only what the runner
 * recorded, and pages that are attacks (a decompression bomb named like a page, an SVG that made
 * the old regular expressions backtrack) answered fast and without the handler's memory growing.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolvePlotSettings } from '../../../functions/execute/run/plot-settings.ts';
import { collectPlots, isBlankSvg, type RecordedPage } from '../../../functions/execute/output/plots.ts';
import { isBlankPng } from '../../../functions/execute/output/png.ts';
import { bombPng } from './png-build.ts';

const svg = (body: string) =>
  `<?xml version='1.0' encoding='UTF-8' ?>\n<svg xmlns='http://www.w3.org/2000/svg' width='720.00pt'>\n<defs>\n  <style type='text/css'><![CDATA[ .svglite rect { fill: none; } ]]></style>\n</defs>\n` +
  `<rect width='100%' height='100%' style='stroke: none; fill: #FFFFFF;'/>\n<defs>\n  <clipPath id='c'><rect x='0' y='0' width='720' height='576' /></clipPath>\n</defs>\n<g clip-path='url(#c)'>\n${body}</g>\n</svg>\n`;
const svgSettings = { format: 'svg' as const, width: 300, height: 200, dpi: 96 };
const pngSettings = { format: 'png' as const, width: 768, height: 576, dpi: 96 };
const caps = { maxCount: 10, maxBytes: 4e6 };

/** What the runner records: every file in the directory, at its size. */
const recordAll = (dir: string): RecordedPage[] => readdirSync(dir).map((name) => ({ name, bytes: statSync(join(dir, name)).size }));

/** The regular expressions isBlankSvg used before: kept here only as the control. */
function backtrackingIsBlankSvg(text: string): boolean {
  const rest = text
    .replace(/<\?xml[^>]*\?>/g, '')
    .replace(/<defs>[\s\S]*?<\/defs>/g, '')
    .replace(/<\/?svg\b[^>]*>/g, '')
    .replace(/<rect width='100%' height='100%'[^>]*\/>/, '')
    .replace(/<\/?g\b[^>]*>/g, '');
  return !/<[a-zA-Z]/.test(rest);
}

describe('isBlankSvg', () => {
  it('an svglite page with only its background is blank; any drawn element is not', () => {
    expect(isBlankSvg(svg(''))).toBe(true);
    expect(isBlankSvg('')).toBe(true);
    expect(isBlankSvg(svg("<circle cx='1' cy='1' r='2' />\n"))).toBe(false);
    expect(isBlankSvg(svg("<text x='1' y='1'>Title</text>\n"))).toBe(false);
    expect(isBlankSvg(svg("<rect width='100%' height='100%'/>\n"))).toBe(false);
  });

  it('answers a 1 MB page of `<g<g<g...` and of `<defs>` in linear time; the old expressions took quadratic time (control)', () => {
    const control = '<g'.repeat(20_000);
    let started = performance.now();
    backtrackingIsBlankSvg(control);
    const oldMs = performance.now() - started;
    for (const attack of ['<g'.repeat(500_000), '<defs>'.repeat(170_000), `<svg>${'<g '.repeat(300_000)}>`]) {
      started = performance.now();
      isBlankSvg(attack);
      const newMs = performance.now() - started;
      // Relative to the control on the same machine now, so load does not decide: 25 times the
      // input in a small fraction of the old code's time (measured: under 20 ms against 300-600 ms).
      expect(newMs).toBeLessThan(oldMs / 4);
    }
    // 40 KB already costs the old code tens of milliseconds; 1 MB cost it minutes.
    expect(oldMs).toBeGreaterThan(20);
  });
});

describe('collectPlots', () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'jube-r-plots-'));
    dir = join(root, '.jube', 'plots');
    mkdirSync(dir, { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('orders pages by device, then page, numerically; leaves out blank pages and other files', async () => {
    writeFileSync(join(dir, 'd002-p00001.svg'), svg("<text>third</text>"));
    writeFileSync(join(dir, 'd001-p00010.svg'), svg("<text>second</text>"));
    writeFileSync(join(dir, 'd001-p00002.svg'), svg("<text>first</text>"));
    writeFileSync(join(dir, 'd001-p00001.svg'), svg(''));
    writeFileSync(join(dir, 'notes.txt'), 'not a page');
    const { plots, omitted, notes } = await collectPlots(root, dir, svgSettings, caps, recordAll(dir));
    expect(plots.map((plot) => Buffer.from(plot.data, 'base64').toString().match(/<text>(\w+)/)?.[1])).toEqual(['first', 'second', 'third']);
    expect(plots[0]).toMatchObject({ mimeType: 'image/svg+xml', width: 300, height: 200 });
    expect(omitted).toBe(0);
    expect(notes).toEqual(['1 blank page(s) (a device opened but never drawn on) were left out']);
  });

  it('reads only the pages the runner recorded, each at the size it recorded', async () => {
    writeFileSync(join(dir, 'd001-p00001.svg'), svg('<text>recorded</text>'));
    const recorded = recordAll(dir);
    writeFileSync(join(dir, 'd001-p00002.svg'), svg('<text>planted</text>'));
    expect((await collectPlots(root, dir, svgSettings, caps, recorded)).plots).toHaveLength(1);
    // Grown after it was recorded: not the page the runner saw.
    writeFileSync(join(dir, 'd001-p00001.svg'), svg('<text>recorded, then rewritten</text>'));
    expect(await collectPlots(root, dir, svgSettings, caps, recorded)).toMatchObject({ plots: [], omitted: 1 });
  });

  it('a run with no record of its pages (the backstop killed it) gets its page files, held to the same checks', async () => {
    writeFileSync(join(dir, 'd001-p00001.svg'), svg('<text>x</text>'));
    writeFileSync(join(dir, 'd001-p00002.png'), await bombPng(8192, 8192, 16 << 20));
    expect(await collectPlots(root, dir, svgSettings, caps, undefined)).toMatchObject({ plots: [{ mimeType: 'image/svg+xml' }], omitted: 0 });
    expect(await collectPlots(root, dir, pngSettings, caps, undefined)).toMatchObject({ plots: [], omitted: 1 });
  });

  it('a page that is a link is not read', async () => {
    writeFileSync(join(root, 'secret.svg'), svg('<text>secret</text>'));
    symlinkSync(join(root, 'secret.svg'), join(dir, 'd001-p00001.svg'));
    expect((await collectPlots(root, dir, svgSettings, caps, [{ name: 'd001-p00001.svg', bytes: 10 }])).plots).toEqual([]);
  });

  it('a PNG page that does not decode (cut off by a kill) is counted, not returned', async () => {
    writeFileSync(join(dir, 'd001-p00001.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const collected = await collectPlots(root, dir, { ...svgSettings, format: 'png' }, caps, recordAll(dir));
    expect(collected).toMatchObject({ plots: [], omitted: 1 });
  });

  it('a 1 MB decompression bomb named like a page is refused without being inflated, and the handler\'s memory does not grow', { timeout: 60_000 }, async () => {
    // 16384 x 16384 RGBA claimed: 1 GiB of pixels from a 1 MB file, the attack as it was found.
    const bomb = await bombPng(16384, 16384, 1 << 30);
    expect(bomb.length).toBeLessThan(1.1e6);
    // One that claims the run's own size but inflates past it.
    const sized = await bombPng(pngSettings.width, pngSettings.height, 64 << 20);
    writeFileSync(join(dir, 'd001-p00001.png'), bomb);
    writeFileSync(join(dir, 'd001-p00002.png'), sized);
    const before = process.memoryUsage().rss;
    const collected = await collectPlots(root, dir, pngSettings, caps, recordAll(dir));
    expect(collected).toMatchObject({ plots: [], omitted: 2 });
    // Inflating either would take the memory it claims (1 GiB, 64 MiB): the growth shows it was not.
    expect(process.memoryUsage().rss - before).toBeLessThan(64 << 20);
    // Held to the run's size, the header's claim is refused before anything is inflated.
    expect(isBlankPng(bomb, pngSettings)).toBeUndefined();
  });

  it('no capture, nothing read', async () => {
    writeFileSync(join(dir, 'd001-p00001.svg'), svg('<text>x</text>'));
    expect(await collectPlots(root, dir, null, caps, recordAll(dir))).toEqual({ plots: [], omitted: 0, notes: [] });
  });
});

describe('resolvePlotSettings', () => {
  const defaults = { maxCount: 10, maxBytes: 1e6, width: 768, height: 576, dpi: 96 };
  it.each([
    [undefined, { format: 'png', width: 768, height: 576, dpi: 96 }],
    [true, { format: 'png', width: 768, height: 576, dpi: 96 }],
    [{ width: 300, format: 'svg' as const }, { format: 'svg', width: 300, height: 576, dpi: 96 }],
    [false, null],
  ])('%j -> %j', (request, expected) => expect(resolvePlotSettings(request, defaults)).toEqual(expected));

  it('a deployment that returns no plots captures none', () => {
    expect(resolvePlotSettings(undefined, { ...defaults, maxCount: 0 })).toBeNull();
  });
});
