/**
 * What callers use: byte-identical captures (the common case for a page that did not change) are answered
 * from the hashes alone; anything else is compared in the thread pool.
 */
import { createHash } from 'node:crypto';
import { comparedPixelCount, ignoredPixels, type DiffOptions, type DiffResult } from './compare.js';
import type { DiffPool } from './pool.js';

/** sha256 hex of the PNG bytes, computed once when a capture is taken. */
export interface CaptureImage { bytes: Buffer; sha256: string }

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from the IHDR chunk (always first, at byte 8), without decoding the image. */
export function pngSize(bytes: Buffer): { width: number; height: number } {
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE) || bytes.toString('latin1', 12, 16) !== 'IHDR') {
    throw new Error('not a PNG: no signature and IHDR header');
  }
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

export class Differ {
  constructor(private readonly pool: DiffPool) {}

  /** Byte-identical captures (same sha256 and same length) skip decoding entirely. */
  async compare(baseline: CaptureImage, current: CaptureImage, options: DiffOptions): Promise<DiffResult> {
    if (baseline.sha256 === current.sha256 && baseline.bytes.length === current.bytes.length) {
      const { width, height } = pngSize(current.bytes);
      const comparedPixels = comparedPixelCount(width, height, ignoredPixels(options.ignore, width, height).count);
      return { width, height, diffPixels: 0, comparedPixels, diffRatio: 0, regions: [], diffPng: null };
    }
    return this.pool.compare(baseline.bytes, current.bytes, options);
  }
}
