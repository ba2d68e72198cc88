/** plots.ts and plot-settings.ts without R: drawing order, blank SVG pages, the request over the defaults. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolvePlotSettings } from '../../../functions/execute/plot-settings.ts';
import { collectPlots, isBlankSvg } from '../../../functions/execute/plots.ts';

const svg = (body: string) =>
  `<?xml version='1.0' encoding='UTF-8' ?>\n<svg xmlns='http://www.w3.org/2000/svg' width='720.00pt'>\n<defs>\n  <style type='text/css'><![CDATA[ .svglite rect { fill: none; } ]]></style>\n</defs>\n` +
  `<rect width='100%' height='100%' style='stroke: none; fill: #FFFFFF;'/>\n<defs>\n  <clipPath id='c'><rect x='0' y='0' width='720' height='576' /></clipPath>\n</defs>\n<g clip-path='url(#c)'>\n${body}</g>\n</svg>\n`;
const svgSettings = { format: 'svg' as const, width: 300, height: 200, dpi: 96 };

describe('isBlankSvg', () => {
  it('an svglite page with only its background is blank; any drawn element is not', () => {
    expect(isBlankSvg(svg(''))).toBe(true);
    expect(isBlankSvg('')).toBe(true);
    expect(isBlankSvg(svg("<circle cx='1' cy='1' r='2' />\n"))).toBe(false);
    expect(isBlankSvg(svg("<text x='1' y='1'>Title</text>\n"))).toBe(false);
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
    const { plots, omitted, notes } = await collectPlots(root, dir, svgSettings, { maxCount: 10, maxBytes: 1e6 });
    expect(plots.map((plot) => Buffer.from(plot.data, 'base64').toString().match(/<text>(\w+)/)?.[1])).toEqual(['first', 'second', 'third']);
    expect(plots[0]).toMatchObject({ mimeType: 'image/svg+xml', width: 300, height: 200 });
    expect(omitted).toBe(0);
    expect(notes).toEqual(['1 blank page(s) (a device opened but never drawn on) were left out']);
  });

  it('a page that is a link is not read', async () => {
    writeFileSync(join(root, 'secret.svg'), svg('<text>secret</text>'));
    symlinkSync(join(root, 'secret.svg'), join(dir, 'd001-p00001.svg'));
    expect((await collectPlots(root, dir, svgSettings, { maxCount: 10, maxBytes: 1e6 })).plots).toEqual([]);
  });

  it('a PNG page that does not decode (cut off by a kill) is counted, not returned', async () => {
    writeFileSync(join(dir, 'd001-p00001.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const collected = await collectPlots(root, dir, { ...svgSettings, format: 'png' }, { maxCount: 10, maxBytes: 1e6 });
    expect(collected).toMatchObject({ plots: [], omitted: 1 });
  });

  it('no capture, nothing read', async () => {
    writeFileSync(join(dir, 'd001-p00001.svg'), svg('<text>x</text>'));
    expect(await collectPlots(root, dir, null, { maxCount: 10, maxBytes: 1e6 })).toEqual({ plots: [], omitted: 0, notes: [] });
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
