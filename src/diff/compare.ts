/**
 * Pixel comparison of two PNG captures: a pure function on buffers (no I/O), so it can run in a worker
 * thread and be tested without one.
 */
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import type { Box } from '../render/capture-image.js';
import { renderDiffPng } from './diff-image.js';
import { assertPngWithin } from './png-size.js';
import { findRegions } from './regions.js';

// One rectangle type for measured boxes, ignore regions and change regions (image pixels).
export type { Box };

export interface DiffOptions {
  /** pixelmatch threshold 0..1 (contract default 0.1). */
  threshold: number;
  /** pixelmatch includeAA (default false: anti-aliased pixels are not counted). */
  includeAA: boolean;
  /** Image-pixel boxes left out of the count (ignoreRegions + measured ignoreSelectors). */
  ignore: Box[];
  /** limits.maxImagePixels: either image over it is refused from its header, before decoding. */
  maxPixels?: number;
}

export interface DiffResult {
  /** The compared area: max of the two widths × max of the two heights. */
  width: number;
  height: number;
  /** Changed pixels outside ignored boxes, including the area not covered by both images. */
  diffPixels: number;
  /** width*height minus ignored pixels (never < 1). */
  comparedPixels: number;
  diffRatio: number;
  /** Changed pixels grouped into at most 10 boxes, image pixels, sorted top→bottom. */
  regions: Box[];
  /** The change highlighted; null when diffPixels === 0. */
  diffPng: Buffer | null;
}

/** The part of a box inside a width×height image, rounded outward to whole pixels; null when empty. */
export function clampBox(box: Box, width: number, height: number): Box | null {
  const x0 = Math.max(0, Math.floor(box.x));
  const y0 = Math.max(0, Math.floor(box.y));
  const x1 = Math.min(width, Math.ceil(box.x + box.width));
  const y1 = Math.min(height, Math.ceil(box.y + box.height));
  if (!(x1 > x0 && y1 > y0)) return null; // also rejects NaN
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/**
 * Pixels covered by at least one box (boxes already clamped). Computed from coordinates, not a mask, so the
 * identical-capture short-cut can report comparedPixels without allocating a full-page buffer; overlapping
 * ignore boxes must not be subtracted twice.
 */
export function coveredArea(boxes: readonly Box[]): number {
  const xs = [...new Set(boxes.flatMap((b) => [b.x, b.x + b.width]))].sort((a, b) => a - b);
  let area = 0;
  for (let i = 0; i + 1 < xs.length; i++) {
    const left = xs[i] as number;
    const right = xs[i + 1] as number;
    const spans = boxes
      .filter((b) => b.x <= left && b.x + b.width >= right)
      .map((b) => [b.y, b.y + b.height] as const)
      .sort((a, b) => a[0] - b[0]);
    let covered = 0;
    let end = -Infinity;
    for (const [top, bottom] of spans) {
      if (bottom <= end) continue;
      covered += bottom - Math.max(top, end);
      end = bottom;
    }
    area += covered * (right - left);
  }
  return area;
}

/** The ignore boxes clamped to the compared area, and how many pixels they leave out of the count. */
export function ignoredPixels(ignore: readonly Box[], width: number, height: number): { boxes: Box[]; count: number } {
  const boxes = ignore.map((b) => clampBox(b, width, height)).filter((b): b is Box => b !== null);
  return { boxes, count: coveredArea(boxes) };
}

export function comparedPixelCount(width: number, height: number, ignoredCount: number): number {
  return Math.max(1, width * height - ignoredCount);
}

/** The top-left w×h pixels of an image, as a 4-byte-aligned RGBA array pixelmatch can view as Uint32. */
function crop(png: PNG, w: number, h: number): Uint8Array {
  const { data } = png;
  if (png.width === w && data.byteOffset % 4 === 0) return data.subarray(0, w * h * 4); // rows are contiguous
  const out = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) out.set(data.subarray(y * png.width * 4, (y * png.width + w) * 4), y * w * 4);
  return out;
}

/**
 * The mask (1 = counted change) over the width×height union: pixelmatch on the overlap, every pixel outside
 * the overlap counted — including the corner neither image covers when both width and height differ, since
 * the page's shape changed there too.
 */
function changeMask(a: PNG, b: PNG, width: number, height: number, options: DiffOptions): Uint8Array {
  const ow = Math.min(a.width, b.width);
  const oh = Math.min(a.height, b.height);
  const mask = new Uint8Array(width * height).fill(1);
  if (ow === 0 || oh === 0) return mask;
  // diffMask: pixelmatch writes only counted pixels (opaque) onto a transparent buffer; anti-aliased pixels
  // it excluded stay transparent. So alpha !== 0 is exactly the set pixelmatch counted.
  const out = new Uint8Array(ow * oh * 4);
  pixelmatch(crop(a, ow, oh), crop(b, ow, oh), out, ow, oh, {
    threshold: options.threshold,
    includeAA: options.includeAA,
    diffMask: true,
  });
  const out32 = new Uint32Array(out.buffer); // fresh, so aligned; a whole-word test is cheaper than the alpha byte
  for (let y = 0; y < oh; y++) {
    const row = y * width;
    const src = y * ow;
    for (let x = 0; x < ow; x++) mask[row + x] = out32[src + x] === 0 ? 0 : 1;
  }
  return mask;
}

function decode(bytes: Buffer, which: string): PNG {
  try {
    return PNG.sync.read(bytes);
  } catch (cause) {
    throw new Error(`decode ${which} PNG: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

export function comparePngs(baseline: Buffer, current: Buffer, options: DiffOptions): DiffResult {
  if (options.maxPixels !== undefined) {
    assertPngWithin(baseline, options.maxPixels, 'baseline');
    assertPngWithin(current, options.maxPixels, 'current');
  }
  const a = decode(baseline, 'baseline');
  const b = decode(current, 'current');
  const width = Math.max(a.width, b.width);
  const height = Math.max(a.height, b.height);
  const mask = changeMask(a, b, width, height, options);

  const ignored = ignoredPixels(options.ignore, width, height);
  for (const box of ignored.boxes) {
    for (let y = box.y; y < box.y + box.height; y++) mask.fill(0, y * width + box.x, y * width + box.x + box.width);
  }
  let diffPixels = 0;
  for (let i = 0; i < mask.length; i++) diffPixels += mask[i] as number;

  const comparedPixels = comparedPixelCount(width, height, ignored.count);
  const regions = diffPixels === 0 ? [] : findRegions(mask, width, height);
  const diffPng = diffPixels === 0
    ? null
    : renderDiffPng({ width, height, baseline: a, current: b, mask, ignore: ignored.boxes, regions });
  return { width, height, diffPixels, comparedPixels, diffRatio: diffPixels / comparedPixels, regions, diffPng };
}
