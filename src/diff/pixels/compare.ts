/**
 * Pixel comparison of two PNG captures: a pure function on buffers (no I/O), so it can run in a worker
 * thread and be tested without one.
 */
import { PNG } from 'pngjs';
import type { Box } from '../../domain/geometry.js';
import { classifyPixels, dropLonePixels, isCounted, joinAntiAliasedEdges, PX } from './classify.js';
import { renderDiffPng } from './diff-image.js';
import { assertPngWithin } from './png-size.js';
import { CELL_SIZE, clusterCounts, findRegions, type ChangeRegion } from './regions.js';

// One rectangle type for measured boxes, ignore regions and change regions (image pixels).

export interface DiffOptions {
  /** pixelmatch threshold 0..1 (contract default 0.1). */
  threshold: number;
  /**
   * pixelmatch includeAA. false (the default): an anti-aliased pixel counts only where it touches a real
   * difference (the soft edge of a changed glyph), and a region needs strong differences to count; true: every
   * pixel over the threshold is a strong real difference (strict: only the minimum region size still applies).
   */
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
  /**
   * Changed pixels counted in the significant regions (outside ignored boxes): real differences, the area not
   * covered by both images, and anti-aliased pixels touching a real difference. Speckle that forms no
   * significant region is not counted, so 0 exactly when regions is empty.
   */
  diffPixels: number;
  /** width*height minus ignored pixels (never < 1). */
  comparedPixels: number;
  /** diffPixels / comparedPixels. */
  diffRatio: number;
  /** The significant clusters of changed pixels, merged into at most 10 boxes, image pixels, sorted top→bottom. */
  regions: ChangeRegion[];
  /** The change highlighted; null when there is no significant region. */
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

function decode(bytes: Buffer, which: string): PNG {
  try {
    return PNG.sync.read(bytes);
  } catch (cause) {
    throw new Error(`decode ${which} PNG: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

interface Classified {
  a: PNG;
  b: PNG;
  width: number;
  height: number;
  classes: Uint8Array;
  ignored: { boxes: Box[]; count: number };
}

/** Both images decoded and every pixel of their union classified (see classify.ts), ignored boxes left out. */
function classify(baseline: Buffer, current: Buffer, options: DiffOptions): Classified {
  if (options.maxPixels !== undefined) {
    assertPngWithin(baseline, options.maxPixels, 'baseline');
    assertPngWithin(current, options.maxPixels, 'current');
  }
  const a = decode(baseline, 'baseline');
  const b = decode(current, 'current');
  const width = Math.max(a.width, b.width);
  const height = Math.max(a.height, b.height);
  const classes = classifyPixels(a, b, width, height, options.threshold, options.includeAA);
  const ignored = ignoredPixels(options.ignore, width, height);
  for (const box of ignored.boxes) {
    for (let y = box.y; y < box.y + box.height; y++)
      classes.fill(PX.same, y * width + box.x, y * width + box.x + box.width);
  }
  // After the ignore boxes: an edge pixel next to an ignored change is speckle, not part of a change.
  if (!options.includeAA) joinAntiAliasedEdges(classes, width, height);
  dropLonePixels(classes, width, height);
  return { a, b, width, height, classes, ignored };
}

/** Every cluster of changed pixels with its counts and verdict, before regions are merged for display. */
export function clustersOf(baseline: Buffer, current: Buffer, options: DiffOptions): ReturnType<typeof clusterCounts> {
  const { classes, width, height } = classify(baseline, current, options);
  return clusterCounts(classes, width, height);
}

export function comparePngs(baseline: Buffer, current: Buffer, options: DiffOptions): DiffResult {
  const { a, b, width, height, classes, ignored } = classify(baseline, current, options);
  const comparedPixels = comparedPixelCount(width, height, ignored.count);
  const found = findRegions(classes, width, height);
  // The mask of what is reported: counted pixels of significant clusters only.
  const mask = new Uint8Array(width * height);
  let diffPixels = 0;
  if (found.regions.length > 0) {
    for (let i = 0; i < classes.length; i++) {
      const v = classes[i] as number;
      if (v === PX.same || !isCounted(v)) continue;
      const x = i % width;
      const cell = (((i - x) / width / CELL_SIZE) | 0) * found.cols + ((x / CELL_SIZE) | 0);
      if (found.keptCells[cell] === 1) {
        mask[i] = 1;
        diffPixels++;
      }
    }
  }
  const diffPng =
    diffPixels === 0
      ? null
      : renderDiffPng({ width, height, baseline: a, current: b, mask, ignore: ignored.boxes, regions: found.regions });
  return {
    width,
    height,
    diffPixels,
    comparedPixels,
    diffRatio: diffPixels / comparedPixels,
    regions: found.regions,
    diffPng,
  };
}
