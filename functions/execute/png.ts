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
  const header = pngHeader(buf);
  const channels = header ? CHANNELS[header.colorType] : undefined;
  if (!header || channels === undefined || header.bitDepth !== 8 || header.interlaced) return undefined;
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
  if (raw.length !== (stride + 1) * header.height) return undefined;
  const pixels = unfilter(raw, header.height, stride, channels);
  return pixels ? { ...header, channels, pixels } : undefined;
}

/** Undoes PNG's per-row filters (None, Sub, Up, Average, Paeth). */
function unfilter(raw: Buffer, height: number, stride: number, bpp: number): Buffer | undefined {
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)]!;
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    const prev = row - stride;
    for (let x = 0; x < stride; x += 1) {
      const a = x >= bpp ? out[row + x - bpp]! : 0;
      const b = y > 0 ? out[prev + x]! : 0;
      const c = x >= bpp && y > 0 ? out[prev + x - bpp]! : 0;
      let predictor: number;
      switch (filter) {
        case 0: predictor = 0; break;
        case 1: predictor = a; break;
        case 2: predictor = b; break;
        case 3: predictor = (a + b) >> 1; break;
        case 4: predictor = paeth(a, b, c); break;
        default: return undefined;
      }
      out[row + x] = (raw[src + x]! + predictor) & 0xff;
    }
  }
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

/** Every pixel the same colour: a page opened but never drawn on (or drawn on in its background colour). */
export function isUniform(png: DecodedPng): boolean {
  const { pixels, channels } = png;
  for (let i = channels; i < pixels.length; i += 1) if (pixels[i] !== pixels[i % channels]) return false;
  return true;
}
