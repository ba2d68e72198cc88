/** Looking at a returned plot the way a test needs to: decoded pixels, dark ones counted by region. */
import { expect } from 'vitest';
import type { Plot } from '../../layers/contract/execute.ts';
import { decodePng, type DecodedPng } from '../../functions/execute/output/png.ts';

export function decoded(plot: Plot | undefined): DecodedPng {
  expect(plot?.mimeType).toBe('image/png');
  const data = Buffer.from(plot!.data, 'base64');
  expect(data.length).toBe(plot!.bytes);
  const png = decodePng(data);
  expect(png, 'a PNG this decoder reads').toBeDefined();
  return png!;
}

/** Pixels darker than mid-grey in the rows [top, bottom) (fractions of the height). */
export function darkPixels(png: DecodedPng, top: number, bottom: number): number {
  const { width, height, channels, pixels } = png;
  let dark = 0;
  for (let y = Math.floor(top * height); y < Math.floor(bottom * height); y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = (y * width + x) * channels;
      const colour = channels >= 3 ? (pixels[at]! + pixels[at + 1]! + pixels[at + 2]!) / 3 : pixels[at]!;
      if (colour < 128) dark += 1;
    }
  }
  return dark;
}

/** The RGB of the pixel at the centre. */
export function centre(png: DecodedPng): [number, number, number] {
  const at = (Math.floor(png.height / 2) * png.width + Math.floor(png.width / 2)) * png.channels;
  return [png.pixels[at]!, png.pixels[at + 1]!, png.pixels[at + 2]!];
}
