/**
 * Just enough PNG to look at a page the runner drew: the size from the header, and the pixels of
 * a non-interlaced 8-bit image (gray, gray+alpha, RGB, RGBA; what ragg writes) to tell a blank
 * page from a drawn one. Anything else is reported as undecodable, never guessed at.
 */
import { inflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Channels per pixel by PNG colour type (palette images are not decoded). */
const CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 4: 2, 6: 4 };

export interface PngHeader {
  readonly width: number;
  readonly height: number;
  readonly bitDepth: number;
  readonly colorType: number;
  readonly interlaced: boolean;
}

export interface DecodedPng extends PngHeader {
  readonly channels: number;
  /** Row-major, `channels` bytes per pixel, no filter bytes. */
  readonly pixels: Buffer;
}

/** The IHDR fields, or undefined when `buf` does not start like a PNG. */
export function pngHeader(buf: Buffer): PngHeader | undefined {
  if (buf.length < 33 || !buf.subarray(0, 8).equals(SIGNATURE) || buf.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return {
    width: buf.readUInt32BE(16),
    height: buf.readUInt32BE(20),
    bitDepth: buf[24]!,
    colorType: buf[25]!,
    interlaced: buf[28] !== 0,
  };
}

/** The pixels, or undefined for a file that is cut short, corrupt, or of a kind not decoded here. */
export function decodePng(buf: Buffer): DecodedPng | undefined {
  const image = open(buf);
  if (!image) return undefined;
  const { header, channels, raw, stride } = image;
  const pixels = Buffer.alloc(stride * header.height);
  for (let y = 0; y < header.height; y += 1) {
    if (!unfilterRow(raw, y, stride, channels, pixels)) return undefined;
  }
  return { ...header, channels, pixels };
}

/**
 * Every pixel the same colour (a page opened but never drawn on), or undefined when `buf` does
 * not decode. Rows are unfiltered one at a time and the look stops at the first pixel that
 * differs: a drawn page usually shows it within its first rows. With `expected`, a header of any
 * other size does not decode: the inflated size is then bounded by the caller's dimensions, never
 * by what the file claims (a 1 MB file can claim a gigabyte of pixels).
 */
export function isBlankPng(buf: Buffer, expected?: { readonly width: number; readonly height: number }): boolean | undefined {
  const image = open(buf, expected);
  if (!image) return undefined;
  const { header, channels, raw, stride } = image;
  // Two rows: the one being unfiltered and the one above it, which the filters read.
  const rows = Buffer.alloc(stride * 2);
  let first: Buffer | undefined;
  for (let y = 0; y < header.height; y += 1) {
    const at = (y % 2) * stride;
    if (!unfilterRow(raw, y, stride, channels, rows, at, ((y + 1) % 2) * stride)) return undefined;
    first ??= Buffer.from(rows.subarray(0, channels));
    for (let x = 0; x < stride; x += 1) if (rows[at + x] !== first[x % channels]) return false;
  }
  return true;
}

/** Every pixel the same colour: a page opened but never drawn on (or drawn on in its background colour). */
export function isUniform(png: DecodedPng): boolean {
  const { pixels, channels } = png;
  for (let i = channels; i < pixels.length; i += 1) if (pixels[i] !== pixels[i % channels]) return false;
  return true;
}

interface OpenedPng {
  readonly header: PngHeader;
  readonly channels: number;
  readonly stride: number;
  /** The inflated image data: per row a filter byte, then the filtered row. */
  readonly raw: Buffer;
}

function open(buf: Buffer, expected?: { readonly width: number; readonly height: number }): OpenedPng | undefined {
  const header = pngHeader(buf);
  const channels = header ? CHANNELS[header.colorType] : undefined;
  if (!header || channels === undefined || header.bitDepth !== 8 || header.interlaced) return undefined;
  if (expected && (header.width !== expected.width || header.height !== expected.height)) return undefined;
  const idat: Buffer[] = [];
  let ended = false;
  for (let at = 8; at + 8 <= buf.length; ) {
    const length = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    if (at + 12 + length > buf.length) return undefined;
    if (type === 'IDAT') idat.push(buf.subarray(at + 8, at + 8 + length));
    if (type === 'IEND') {
      ended = true;
      break;
    }
    at += 12 + length;
  }
  if (!ended) return undefined;
  const stride = header.width * channels;
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(idat), { maxOutputLength: (stride + 1) * header.height });
  } catch {
    return undefined;
  }
  return raw.length === (stride + 1) * header.height ? { header, channels, stride, raw } : undefined;
}

/**
 * Undoes row y's filter (None, Sub, Up, Average, Paeth) into out[at, at + stride), reading the
 * row above at out[above, above + stride) (by default, the previous row of a whole image).
 */
function unfilterRow(raw: Buffer, y: number, stride: number, bpp: number, out: Buffer, at = y * stride, above = at - stride): boolean {
  const filter = raw[y * (stride + 1)]!;
  const src = y * (stride + 1) + 1;
  const hasUp = y > 0;
  switch (filter) {
    case 0:
      raw.copy(out, at, src, src + stride);
      return true;
    case 1:
      for (let x = 0; x < stride; x += 1) out[at + x] = (raw[src + x]! + (x >= bpp ? out[at + x - bpp]! : 0)) & 0xff;
      return true;
    case 2:
      for (let x = 0; x < stride; x += 1) out[at + x] = (raw[src + x]! + (hasUp ? out[above + x]! : 0)) & 0xff;
      return true;
    case 3:
      for (let x = 0; x < stride; x += 1) {
        const a = x >= bpp ? out[at + x - bpp]! : 0;
        const b = hasUp ? out[above + x]! : 0;
        out[at + x] = (raw[src + x]! + ((a + b) >> 1)) & 0xff;
      }
      return true;
    case 4:
      for (let x = 0; x < stride; x += 1) {
        const a = x >= bpp ? out[at + x - bpp]! : 0;
        const b = hasUp ? out[above + x]! : 0;
        const c = x >= bpp && hasUp ? out[above + x - bpp]! : 0;
        out[at + x] = (raw[src + x]! + paeth(a, b, c)) & 0xff;
      }
      return true;
    default:
      return false;
  }
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}
