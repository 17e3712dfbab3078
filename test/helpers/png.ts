/**
 * Small, dependency-light helpers for checking rendered image bytes in tests.
 */
import { PNG } from 'pngjs';

export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

export interface DecodedPng {
  width: number;
  height: number;
  /** RGBA of the pixel at (x, y); throws if out of bounds. */
  pixel(x: number, y: number): Rgba;
}

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] as const;

/** True if the bytes start with the 8-byte PNG signature. */
export function isPng(buf: Uint8Array): boolean {
  return buf.length >= PNG_MAGIC.length && PNG_MAGIC.every((b, i) => buf[i] === b);
}

/** Decode a PNG (pngjs, sync) into width/height and a pixel accessor. */
export function decodePng(buf: Uint8Array | Buffer): DecodedPng {
  const png = PNG.sync.read(Buffer.isBuffer(buf) ? buf : Buffer.from(buf));
  const { width, height, data } = png;
  return {
    width,
    height,
    pixel(x: number, y: number): Rgba {
      if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= width || y >= height) {
        throw new RangeError(`pixel(${x}, ${y}) out of bounds for ${width}x${height} PNG`);
      }
      const i = (y * width + x) * 4;
      return { r: data[i] ?? 0, g: data[i + 1] ?? 0, b: data[i + 2] ?? 0, a: data[i + 3] ?? 0 };
    },
  };
}

/** True if the bytes start with a JPEG SOI marker followed by another marker (FF D8 FF). */
export function isJpeg(buf: Uint8Array): boolean {
  return buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff;
}

/**
 * Width/height of a JPEG, read from its first SOFn frame header
 * (SOF0 baseline, SOF1, SOF2 progressive, ...). Returns undefined if the
 * bytes are not a JPEG or no frame header is found.
 */
export function jpegSize(buf: Uint8Array): { width: number; height: number } | undefined {
  if (!isJpeg(buf)) return undefined;
  const at = (i: number): number => buf[i] ?? 0;
  let i = 2;
  while (i + 3 < buf.length) {
    if (at(i) !== 0xff) {
      i++; // not on a marker: resync
      continue;
    }
    const marker = at(i + 1);
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    // Standalone markers without a length field.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd9)) {
      if (marker === 0xd9) return undefined; // EOI
      i += 2;
      continue;
    }
    const segLen = (at(i + 2) << 8) | at(i + 3);
    // SOF0..SOF15, excluding DHT (C4), JPG (C8) and DAC (CC).
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) {
      if (i + 8 >= buf.length) return undefined;
      const height = (at(i + 5) << 8) | at(i + 6);
      const width = (at(i + 7) << 8) | at(i + 8);
      return { width, height };
    }
    if (marker === 0xda) return undefined; // start of scan before any SOF
    i += 2 + segLen;
  }
  return undefined;
}

/** True if the bytes are a RIFF container with the WEBP form type ("RIFF....WEBP"). */
export function isWebp(buf: Uint8Array): boolean {
  if (buf.length < 12) return false;
  const ascii = (from: number, to: number): string => String.fromCharCode(...buf.subarray(from, to));
  return ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP';
}

/** Width/height from a WebP's VP8X, VP8L or VP8 header. */
export function webpSize(buf: Buffer): { width: number; height: number } {
  const chunk = buf.toString('ascii', 12, 16);
  if (chunk === 'VP8X') return { width: 1 + buf.readUIntLE(24, 3), height: 1 + buf.readUIntLE(27, 3) };
  if (chunk === 'VP8L') {
    const bits = buf.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
  }
  return { width: buf.readUInt16LE(26) & 0x3fff, height: buf.readUInt16LE(28) & 0x3fff };
}
