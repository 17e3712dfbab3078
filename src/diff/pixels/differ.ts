/**
 * What callers use: byte-identical captures (the common case for a page that did not change) are answered
 * from the hashes alone; anything else is compared in the thread pool.
 */
import { createHash } from 'node:crypto';
import { comparedPixelCount, ignoredPixels, type DiffOptions, type DiffResult } from './compare.js';
import { assertPngWithin, ImageTooLarge, pngSize } from './png-size.js';
import type { DiffPool } from './pool.js';

/** sha256 hex of the PNG bytes, computed once when a capture is taken. */
export interface CaptureImage {
  bytes: Buffer;
  sha256: string;
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export { ImageTooLarge, pngSize };

export class Differ {
  /** maxPixels: limits.maxImagePixels; a larger image is refused (ImageTooLarge) before any decoding. */
  constructor(
    private readonly pool: DiffPool,
    private readonly maxPixels: number,
  ) {}

  /** Throws ImageTooLarge when the image is over the cap (e.g. a capture taken before the cap was lowered). */
  check(image: CaptureImage, which: string): void {
    assertPngWithin(image.bytes, this.maxPixels, which);
  }

  /** Byte-identical captures (same sha256 and same length) skip decoding entirely. */
  async compare(baseline: CaptureImage, current: CaptureImage, options: DiffOptions): Promise<DiffResult> {
    this.check(baseline, 'baseline');
    this.check(current, 'current');
    if (baseline.sha256 === current.sha256 && baseline.bytes.length === current.bytes.length) {
      const { width, height } = pngSize(current.bytes);
      const comparedPixels = comparedPixelCount(width, height, ignoredPixels(options.ignore, width, height).count);
      return { width, height, diffPixels: 0, comparedPixels, diffRatio: 0, regions: [], diffPng: null };
    }
    // The thread checks again before it decodes: comparePngs is also used on its own.
    return this.pool.compare(baseline.bytes, current.bytes, { ...options, maxPixels: this.maxPixels });
  }
}
