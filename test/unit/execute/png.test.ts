/** png.ts against PNGs built here with every filter type, and against what it must refuse. */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodePng, isBlankPng, isUniform, pngHeader } from '../../../functions/execute/output/png.ts';
import { chunk } from './png-build.ts';

/** An RGB PNG of `rows` (each row: [filter, ...raw filtered bytes]). */
function png(width: number, height: number, rows: number[][], colorType = 2, interlace = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, colorType, 0, 0, interlace], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from(rows.flat()))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('decodePng', () => {
  it('reads the header', () => {
    expect(pngHeader(png(2, 1, [[0, 1, 2, 3, 4, 5, 6]]))).toEqual({ width: 2, height: 1, bitDepth: 8, colorType: 2, interlaced: false });
  });

  it.each([
    // [filter, raw bytes of row 2] giving the same pixels as row 1 = (10,20,30),(40,50,60)
    ['None', [0, 10, 20, 30, 40, 50, 60]],
    ['Sub', [1, 10, 20, 30, 30, 30, 30]],
    ['Up', [2, 0, 0, 0, 0, 0, 0]],
    ['Average', [3, 5, 10, 15, 15, 15, 15]],
    ['Paeth', [4, 0, 0, 0, 0, 0, 0]],
  ])('undoes the %s filter', (_, row2) => {
    const decoded = decodePng(png(2, 2, [[0, 10, 20, 30, 40, 50, 60], row2!]));
    expect([...decoded!.pixels]).toEqual([10, 20, 30, 40, 50, 60, 10, 20, 30, 40, 50, 60]);
  });

  it.each([
    ['not a PNG', Buffer.from('GIF89a')],
    ['cut short', png(2, 1, [[0, 1, 2, 3, 4, 5, 6]]).subarray(0, 40)],
    ['too little pixel data', png(2, 2, [[0, 1, 2, 3, 4, 5, 6]])],
    ['an unknown filter', png(2, 1, [[9, 1, 2, 3, 4, 5, 6]])],
    ['a palette image', png(2, 1, [[0, 0, 0]], 3)],
    ['an interlaced image', png(2, 1, [[0, 1, 2, 3, 4, 5, 6]], 2, 1)],
  ])('refuses %s', (_, buf) => {
    expect(decodePng(buf)).toBeUndefined();
    expect(isBlankPng(buf)).toBeUndefined();
  });

  it.each([
    ['one colour everywhere', [[0, 9, 9, 9, 9, 9, 9], [2, 0, 0, 0, 0, 0, 0], [1, 9, 9, 9, 0, 0, 0]], true],
    ['one channel of the last pixel differs', [[0, 9, 9, 9, 9, 9, 9], [0, 9, 9, 9, 9, 9, 9], [0, 9, 9, 9, 9, 9, 8]], false],
    ['the first row differs from the rest', [[0, 1, 1, 1, 1, 1, 1], [0, 9, 9, 9, 9, 9, 9], [0, 9, 9, 9, 9, 9, 9]], false],
  ])('tells a blank page from a drawn one: %s', (_, rows, blank) => {
    expect(isBlankPng(png(2, 3, rows))).toBe(blank);
    expect(isUniform(decodePng(png(2, 3, rows))!)).toBe(blank);
  });
});
