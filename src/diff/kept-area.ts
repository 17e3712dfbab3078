// Visual comparison of a monitor whose diff.filters select part of the page (css, xpath, extract): only
// the pixels of what is compared count. The kept area is the boxes of the compared text blocks of both
// captures (an element may have moved); everything else becomes ignore rectangles, so the pixel diff
// (which takes boxes to leave out) needs no new mode.
import type { Box } from '../domain/geometry.js';
import type { Filter } from '../domain/filters.js';

/**
 * At most this many kept boxes (more are merged, in reading order, into the boxes around runs of them):
 * the complement of n boxes is up to about n² rectangles, and the pixel diff walks each of them.
 */
export const MAX_KEPT_BOXES = 24;

/** Whether the filters pick part of what is read, so that pixels outside it must not count. */
export function selectsPart(filters: readonly Filter[]): boolean {
  return filters.some((f) => 'css' in f || 'xpath' in f || 'extract' in f);
}

/** The area of the image outside every kept box, as rectangles (whole pixels), for the diff's ignore list. */
export function outsideBoxes(kept: readonly (Box | null | undefined)[], width: number, height: number): Box[] {
  const boxes = bounded(kept.map((b) => snap(b, width, height)).filter((b): b is Box => b !== null));
  // Bands between successive horizontal edges; in each, the gaps between the kept spans are left out.
  const ys = [...new Set([0, height, ...boxes.flatMap((b) => [b.y, b.y + b.height])])].sort((a, b) => a - b);
  const out: Box[] = [];
  let previous: Box[] = [];
  for (let i = 0; i + 1 < ys.length; i++) {
    const top = ys[i]!;
    const bottom = ys[i + 1]!;
    const spans = boxes
      .filter((b) => b.y <= top && b.y + b.height >= bottom)
      .map((b) => [b.x, b.x + b.width] as const)
      .sort((a, b) => a[0] - b[0]);
    const gaps: Box[] = [];
    let x = 0;
    for (const [left, right] of spans) {
      if (left > x) gaps.push({ x, y: top, width: left - x, height: bottom - top });
      x = Math.max(x, right);
    }
    if (x < width) gaps.push({ x, y: top, width: width - x, height: bottom - top });
    // A gap just like one in the band above grows that rectangle rather than adding one.
    const current: Box[] = [];
    for (const gap of gaps) {
      const above = previous.find((p) => p.x === gap.x && p.width === gap.width && p.y + p.height === top);
      if (above) {
        above.height += gap.height;
        current.push(above);
      } else {
        out.push(gap);
        current.push(gap);
      }
    }
    previous = current;
  }
  return out;
}

/** A box on whole pixels, inside the image (outward: a kept element's edge pixels count); null when empty. */
function snap(b: Box | null | undefined, width: number, height: number): Box | null {
  // Stored blocks are read back from a file: anything malformed is simply not kept.
  if (!b || typeof b !== 'object' || ![b.x, b.y, b.width, b.height].every(Number.isFinite)) return null;
  const x0 = Math.max(0, Math.floor(b.x));
  const y0 = Math.max(0, Math.floor(b.y));
  const x1 = Math.min(width, Math.ceil(b.x + b.width));
  const y1 = Math.min(height, Math.ceil(b.y + b.height));
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
}

/** At most MAX_KEPT_BOXES boxes: runs of consecutive boxes (top to bottom) replaced by their bounds. */
function bounded(boxes: Box[]): Box[] {
  if (boxes.length <= MAX_KEPT_BOXES) return boxes;
  const sorted = boxes.slice().sort((a, b) => a.y - b.y || a.x - b.x);
  const per = Math.ceil(sorted.length / MAX_KEPT_BOXES);
  const out: Box[] = [];
  for (let i = 0; i < sorted.length; i += per) {
    const run = sorted.slice(i, i + per);
    const x = Math.min(...run.map((b) => b.x));
    const y = Math.min(...run.map((b) => b.y));
    const right = Math.max(...run.map((b) => b.x + b.width));
    const bottom = Math.max(...run.map((b) => b.y + b.height));
    out.push({ x, y, width: right - x, height: bottom - y });
  }
  return out;
}
