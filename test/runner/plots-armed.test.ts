/**
 * Plot capture under the armed capsule (r-image/capsule): after arming, the R process reads only
 * R's and the system's directories (fonts among them) and writes only its workdir. A page drawn
 * then, with ragg (and svglite), still renders its text: the device, its fonts and its files all
 * live where the capsule allows. Here the device's package is loaded after arming, which is
 * stricter than the runner (it loads it before).
 */
import { describe, expect, it } from 'vitest';
import { decodePng } from '../../functions/execute/output/png.ts';
import { runArmed, type KernelLayers } from './capsule/armed-r.ts';
import { darkPixels } from './plot-pixels.ts';

const DRAW = String.raw`
options(device = function(...) ragg::agg_png(file.path(getwd(), ".jube-page-%03d.png"), width = 300, height = 200, res = 72))
plot(1:3, main = "Armed title")
plot(1:3)
invisible(grDevices::graphics.off())
for (f in sort(list.files(all.files = TRUE, pattern = "^[.]jube-page"))) probe(f, jsonlite::base64_enc(readBin(f, "raw", 1e6)))
svglite::svglite("page.svg")
plot(1:3, main = "Armed SVG")
invisible(grDevices::dev.off())
probe("svg", any(grepl(">Armed SVG</text>", readLines("page.svg"), fixed = TRUE)))
`;

describe.each<KernelLayers>(['auto', 'off'])('plot capture with the capsule armed (kernel layers: %s)', (kernel) => {
  it('draws pages with their text rendered, into the workdir', async () => {
    const run = await runArmed(DRAW, { kernel });
    expect(run.report, run.stderr).toMatch(/^preload=armed/);
    const page = (name: string) => {
      const probe = run.probes[name] ?? '';
      expect(probe, run.stderr).toMatch(/^ok: /);
      const png = decodePng(Buffer.from(probe.slice('ok: '.length), 'base64'));
      expect(png).toBeDefined();
      return png!;
    };
    const [titled, plain] = [page('.jube-page-001.png'), page('.jube-page-002.png')];
    expect([titled.width, titled.height]).toEqual([300, 200]);
    expect(darkPixels(titled, 0, 0.2)).toBeGreaterThan(20);
    expect(darkPixels(plain, 0, 0.2)).toBe(0);
    expect(run.probes['svg']).toBe('ok: TRUE');
  });
});
