// Merging change regions for display: the closest pair joins until few enough remain and none overlap.
// Apart from regions.ts, which finds the clusters; this is plain box geometry on what it found.
import type { Box } from '../domain/geometry.js';
import type { ChangeRegion } from './regions.js';

/** Empty space between two boxes (0 when they touch or overlap). */
function gap(a: Box, b: Box): number {
  const dx = Math.max(0, b.x - (a.x + a.width), a.x - (b.x + b.width));
  const dy = Math.max(0, b.y - (a.y + a.height), a.y - (b.y + b.height));
  return Math.hypot(dx, dy);
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

function union(a: ChangeRegion, b: ChangeRegion): ChangeRegion {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return {
    x,
    y,
    pixels: a.pixels + b.pixels,
    width: Math.max(a.x + a.width, b.x + b.width) - x,
    height: Math.max(a.y + a.height, b.y + b.height) - y,
  };
}

/**
 * Merge the closest pair until at most `max` boxes remain and none overlap (overlapping outlines would read
 * as one change drawn twice). Ties go to the pair whose union adds the least area.
 */
export function mergeClosest(input: ChangeRegion[], max: number): ChangeRegion[] {
  const boxes = [...input];
  for (;;) {
    let best: [number, number] | null = null;
    let bestGap = Infinity;
    let bestGrowth = Infinity;
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i] as ChangeRegion;
        const b = boxes[j] as ChangeRegion;
        const g = gap(a, b);
        if (boxes.length <= max && !overlaps(a, b)) continue;
        const u = union(a, b);
        const growth = u.width * u.height - a.width * a.height - b.width * b.height;
        if (g < bestGap || (g === bestGap && growth < bestGrowth)) {
          best = [i, j];
          bestGap = g;
          bestGrowth = growth;
        }
      }
    }
    if (best === null) return boxes;
    const [i, j] = best;
    boxes[i] = union(boxes[i] as ChangeRegion, boxes[j] as ChangeRegion);
    boxes.splice(j, 1);
  }
}
