/**
 * Plots with real R: every page a script draws comes back as a PNG of the requested
 * size, in drawing order, with its text rendered; blank pages are left out; caps hold at their
 * edges; `plots: false` turns capture off; SVG on request.
 */
import { describe, expect, it } from 'vitest';
import { harness } from './helpers.ts';
import { generous } from '../load-tolerant.ts';
import { centre, darkPixels, decoded } from './plot-pixels.ts';

const h = generous(harness());
const small = { width: 400, height: 300, dpi: 96 };

describe('execute handler: plots', () => {
  it('a base plot comes back as a PNG of the requested size, drawn on, its title rendered as text', async () => {
    const titled = await h.run('plot(1:10, main = "Sales by month")', { plots: small });
    const untitled = await h.run('plot(1:10)', { plots: small });
    expect(titled.status).toBe('ok');
    const [withTitle, without] = [decoded(titled.plots?.[0]), decoded(untitled.plots?.[0])];
    expect([withTitle.width, withTitle.height]).toEqual([400, 300]);
    expect(titled.plots?.[0]).toMatchObject({ width: 400, height: 300 });
    // The title band (top 12%) holds the title's glyphs, and nothing without one.
    expect(darkPixels(withTitle, 0, 0.12)).toBeGreaterThan(40);
    expect(darkPixels(without, 0, 0.12)).toBe(0);
    // The plotting region is drawn on (axes, points, labels).
    expect(darkPixels(without, 0.12, 1)).toBeGreaterThan(500);
  });

  it('an autoprinted ggplot comes back with its title and axis labels rendered', async () => {
    const script = (title: string) => `library(ggplot2)\nggplot(mtcars, aes(wt, mpg)) + geom_point()${title}`;
    const [titled, plain] = await Promise.all([
      h.run(script(' + ggtitle("Weight and mileage")'), { plots: small }),
      h.run(script(''), { plots: small }),
    ]);
    expect(titled.status).toBe('ok');
    expect(titled.plots).toHaveLength(1);
    const [withTitle, without] = [decoded(titled.plots?.[0]), decoded(plain.plots?.[0])];
    expect([withTitle.width, withTitle.height]).toEqual([400, 300]);
    expect(darkPixels(withTitle, 0, 0.07)).toBeGreaterThan(100);
    expect(darkPixels(without, 0, 0.07)).toBeLessThan(darkPixels(withTitle, 0, 0.07) / 4);
    // ggplot's value is not JSON: its class, labelled, and not drawn a second time.
    expect(titled.value).toMatchObject({ kind: 'printed', class: ['gg', 'ggplot'] });
  });

  it('three pages (base, print() of a ggplot in a loop, grid) give three plots in drawing order', async () => {
    const script = [
      'library(ggplot2)',
      'plot.new(); rect(0, 0, 1, 1, col = "red", border = NA)',
      'for (colour in "green") print(ggplot() + theme_void() + theme(plot.background = element_rect(fill = colour)))',
      'grid::grid.newpage()',
      'grid::grid.rect(width = 0.5, gp = grid::gpar(fill = "blue", col = NA))',
    ].join('\n');
    const response = await h.run(script, { plots: small });
    expect(response.status).toBe('ok');
    expect(response.plots?.map((plot) => centre(decoded(plot)))).toEqual([[255, 0, 0], [0, 255, 0], [0, 0, 255]]);
    expect(response.plotsOmitted).toBe(0);
  });

  it('takes the deployment defaults when the request does not say: 768 x 576', async () => {
    const response = await h.run('plot(1:3)');
    expect(response.plots?.[0]).toMatchObject({ mimeType: 'image/png', width: 768, height: 576 });
  });

  it('a higher dpi draws the same text larger', async () => {
    const at = async (dpi: number) => decoded((await h.run('plot(1:3, main = "Title")', { plots: { ...small, dpi } })).plots?.[0]);
    expect(darkPixels(await at(144), 0, 0.2)).toBeGreaterThan(1.5 * darkPixels(await at(72), 0, 0.2));
  });

  it('leaves out blank pages: a device opened but never drawn on, an empty page', async () => {
    const response = await h.run('dev.new()\ninvisible(dev.off())\nplot.new()\nplot(1:3)', { plots: small });
    expect(response.plots).toHaveLength(1);
    expect(response.notes).toContain('2 blank page(s) (a device opened but never drawn on) were left out');
    const none = await h.run('x <- 1', { plots: small });
    expect(none.plots).toEqual([]);
    expect(none.notes).toEqual([]);
  });

  it('plots: false turns capture off', async () => {
    const response = await h.run('plot(1:3)\ncat(names(dev.cur()))', { plots: false });
    expect(response).toMatchObject({ status: 'ok', plots: [] });
    expect(response.consoleOutput).toBe('pdf');
  });

  it("the script's own png() still writes its own file in the workdir, and into out/ comes back as a file", async () => {
    const response = await h.run('png("mine.png")\nplot(1:3)\ninvisible(dev.off())\ncat(file.exists("mine.png"))\npng("out/chart.png")\nplot(1:3)\ninvisible(dev.off())');
    expect(response).toMatchObject({ status: 'ok', consoleOutput: 'TRUE', plots: [] });
    expect(response.files?.map((file) => [file.name, file.mimeType])).toEqual([['chart.png', 'image/png']]);
  });

  it('a script that closes the capture device and draws again is still captured', async () => {
    const response = await h.run('plot(1:3)\ninvisible(dev.off())\nplot(3:1)', { plots: small });
    expect(response.plots).toHaveLength(2);
  });

  it('SVG on request, through svglite, text as text', async () => {
    const response = await h.run('plot(1:3, main = "Hello SVG")', { plots: { ...small, format: 'svg' } });
    expect(response.plots?.[0]).toMatchObject({ mimeType: 'image/svg+xml', width: 400, height: 300 });
    const svg = Buffer.from(response.plots![0]!.data, 'base64').toString('utf8');
    expect(svg).toMatch(/^<\?xml/);
    expect(svg).toContain('>Hello SVG</text>');
  });

  it('svglite::xmlSVG draws into an xml2 document the script can query', async () => {
    const script = 'library(svglite)\nlibrary(xml2)\ndoc <- xmlSVG(plot(1:3, main = "T"))\ncat("T" %in% xml_text(xml_find_all(doc, "//*[local-name()=\'text\']")))';
    const response = await h.run(script);
    expect(response).toMatchObject({ status: 'ok', consoleOutput: 'TRUE' });
  });

  it('plots drawn before an error come back with it', async () => {
    const response = await h.run('plot(1:3)\nstop("after drawing")', { plots: small });
    expect(response).toMatchObject({ status: 'error', error: 'Error: after drawing\nAt line 2: stop("after drawing")' });
    expect(response.plots).toHaveLength(1);
  });
});

describe('execute handler: plot caps at their edges', () => {
  const pages = (n: number) => Array.from({ length: n }, (_, i) => `plot(1:${i + 2})`).join('\n');

  it('the count cap: exactly at it all come back; one over, the last is dropped, counted and explained', async () => {
    const capped = generous(harness({ env: { JUBE_R_MAX_PLOTS: '2' } }));
    const at = await capped.run(pages(2), { plots: small });
    expect(at.plots).toHaveLength(2);
    expect(at.truncated).toBeUndefined();
    const over = await capped.run(pages(3), { plots: small });
    expect(over).toMatchObject({ plotsOmitted: 1, truncated: true });
    expect(over.plots).toHaveLength(2);
    expect(over.notes?.[0]).toMatch(/^1 of 3 drawn pages were not returned: at most 2 plots and \d+ bytes per run/);
  });

  it('the byte cap: a budget of exactly the pages\' size takes them all, one byte less drops the last', async () => {
    const sizes = (await h.run(pages(2), { plots: small })).plots!.map((plot) => plot.bytes);
    const total = sizes[0]! + sizes[1]!;
    const exact = await generous(harness({ env: { JUBE_R_MAX_PLOTS_BYTES: String(total) } })).run(pages(2), { plots: small });
    expect(exact.plots?.map((plot) => plot.bytes)).toEqual(sizes);
    const under = await generous(harness({ env: { JUBE_R_MAX_PLOTS_BYTES: String(total - 1) } })).run(pages(2), { plots: small });
    expect(under.plots?.map((plot) => plot.bytes)).toEqual([sizes[0]]);
    expect(under).toMatchObject({ plotsOmitted: 1, truncated: true });
  });
});
