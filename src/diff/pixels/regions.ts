/**
 * Changed pixels → the few regions that are a change, as boxes a person can look at. Pixels are binned into
 * coarse cells, occupied cells within a small gap of each other form one cluster, and each cluster's box is the
 * exact bounds of its pixels. A changed paragraph gives one cluster (glyphs, word gaps and line leading fall
 * within the gap), not one per glyph. Each cluster is judged on its own (see isSignificant), so a change is
 * found the same way on a 800 px viewport and on a 10,000 px page.
 */
import type { Box } from '../../domain/geometry.js';
import { isCounted, PX } from './classify.js';

export const MAX_REGIONS = 10;

/** Cell edge in pixels: small enough that far-apart changes stay apart, big enough to keep the grid cheap. */
const CELL = 16;
/** Cells this far apart (Chebyshev, in cells) join: up to one empty cell between them, i.e. gaps of ≤ 16–47 px. */
const JOIN_RADIUS = 2;
/**
 * Past this many groups (noise all over a page) the join radius doubles until it is met: the closest-pair
 * merge below is cubic in the group count, and a thousand boxes would say nothing anyway.
 */
const MAX_GROUPS_BEFORE_MERGE = 64;

/** A reported region: its box and how many counted pixels it holds. */
export interface ChangeRegion extends Box {
  pixels: number;
}

/**
 * A cluster is a change when it holds at least this many counted pixels (anti-aliased edges of real
 * differences included)... One glyph of 12 px text redrawn is 20–60 of them; a lone anti-aliasing speck is 1–5.
 */
export const MIN_REGION_PIXELS = 6;
/**
 * ...and at least this many strong ones (a difference as large as the contrast around it, see classify.ts).
 * A sub-pixel shift of an edge gives only weak ones, however long the edge.
 */
export const MIN_STRONG_PIXELS = 4;

/** The rule for one cluster. */
export function isSignificant(pixels: number, strong: number): boolean {
  return pixels >= MIN_REGION_PIXELS && strong >= MIN_STRONG_PIXELS;
}

/** Exact pixel bounds of the changed pixels in each cell (-1 for empty cells), and how many there are. */
interface CellBounds {
  cols: number;
  rows: number;
  minX: Int32Array;
  minY: Int32Array;
  maxX: Int32Array;
  maxY: Int32Array;
  pixels: Int32Array;
  strong: Int32Array;
}

function cellBounds(mask: Uint8Array, classes: Uint8Array, width: number, height: number): CellBounds {
  const cols = Math.ceil(width / CELL);
  const rows = Math.ceil(height / CELL);
  const n = cols * rows;
  const minX = new Int32Array(n).fill(-1);
  const minY = new Int32Array(n).fill(-1);
  const maxX = new Int32Array(n).fill(-1);
  const maxY = new Int32Array(n).fill(-1);
  const pixels = new Int32Array(n);
  const strong = new Int32Array(n);
  // Masks are mostly zeros (a few changed blocks) or mostly ones (a page that shifted): walk each row by runs
  // of ones, found with the native indexOf on a row view rather than testing every byte in JS, and update
  // each cell once per run.
  for (let y = 0; y < height; y++) {
    const row = mask.subarray(y * width, (y + 1) * width);
    const cellRow = ((y / CELL) | 0) * cols;
    for (let start = row.indexOf(1); start !== -1; start = row.indexOf(1, start)) {
      let end = row.indexOf(0, start);
      if (end === -1) end = width;
      for (let cx = (start / CELL) | 0; cx * CELL < end; cx++) {
        const c = cellRow + cx;
        const lo = Math.max(start, cx * CELL);
        const hi = Math.min(end, (cx + 1) * CELL) - 1;
        pixels[c] = (pixels[c] as number) + hi - lo + 1;
        let s = 0;
        for (let i = y * width + lo; i <= y * width + hi; i++) if (classes[i] === PX.strong) s++;
        strong[c] = (strong[c] as number) + s;
        if (minX[c] === -1) {
          minX[c] = lo;
          maxX[c] = hi;
          minY[c] = y;
          maxY[c] = y;
        } else {
          if (lo < (minX[c] as number)) minX[c] = lo;
          if (hi > (maxX[c] as number)) maxX[c] = hi;
          maxY[c] = y; // rows are scanned top to bottom
        }
      }
      if (end === width) break;
      start = end;
    }
  }
  return { cols, rows, minX, minY, maxX, maxY, pixels, strong };
}

interface Cluster extends ChangeRegion {
  strong: number;
  cells: number[];
}

/** Connected groups of occupied cells (cells within `radius` of each other), each as its pixel bounds and counts. */
function groupCells(cells: CellBounds, radius: number): Cluster[] {
  const { cols, rows, minX, minY, maxX, maxY } = cells;
  const seen = new Uint8Array(cols * rows);
  const boxes: Cluster[] = [];
  const stack: number[] = [];
  for (let start = 0; start < seen.length; start++) {
    if (seen[start] || minX[start] === -1) continue;
    seen[start] = 1;
    stack.push(start);
    let x0 = Infinity,
      y0 = Infinity,
      x1 = -1,
      y1 = -1;
    let pixels = 0,
      strong = 0;
    const members: number[] = [];
    while (stack.length > 0) {
      const c = stack.pop() as number;
      members.push(c);
      pixels += cells.pixels[c] as number;
      strong += cells.strong[c] as number;
      x0 = Math.min(x0, minX[c] as number);
      x1 = Math.max(x1, maxX[c] as number);
      y0 = Math.min(y0, minY[c] as number);
      y1 = Math.max(y1, maxY[c] as number);
      const cx = c % cols;
      const cy = (c / cols) | 0;
      for (let ny = Math.max(0, cy - radius); ny <= Math.min(rows - 1, cy + radius); ny++) {
        for (let nx = Math.max(0, cx - radius); nx <= Math.min(cols - 1, cx + radius); nx++) {
          const nc = ny * cols + nx;
          if (seen[nc] || minX[nc] === -1) continue;
          seen[nc] = 1;
          stack.push(nc);
        }
      }
    }
    boxes.push({ x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1, pixels, strong, cells: members });
  }
  return boxes;
}

export interface FoundRegions {
  /** The significant clusters, merged to at most `max` boxes, sorted top→bottom, left→right. */
  regions: ChangeRegion[];
  /** Per CELL×CELL cell (row-major, `cols` wide): 1 when its pixels belong to a significant cluster. */
  keptCells: Uint8Array;
  cols: number;
}

export const CELL_SIZE = CELL;

/** Every cluster before the decision, with its counts: how close a page came to the rule (bench, pictures). */
export function clusterCounts(
  classes: Uint8Array,
  width: number,
  height: number,
): (ChangeRegion & { strong: number; significant: boolean })[] {
  const mask = countedMask(classes);
  return groupCells(cellBounds(mask, classes, width, height), JOIN_RADIUS).map(({ cells: _cells, ...c }) => ({
    ...c,
    significant: isSignificant(c.pixels, c.strong),
  }));
}

function countedMask(classes: Uint8Array): Uint8Array {
  const mask = new Uint8Array(classes.length);
  for (let i = 0; i < classes.length; i++) if (classes[i] !== 0 && isCounted(classes[i] as number)) mask[i] = 1;
  return mask;
}

/**
 * Pixel classes (see classify.ts) → the significant clusters of counted pixels. Clusters are judged at the
 * normal join gap, before any merging for display, so speckle far from a change never rides along with it.
 */
export function findRegions(classes: Uint8Array, width: number, height: number, max = MAX_REGIONS): FoundRegions {
  if (classes.length !== width * height)
    throw new Error(`mask has ${classes.length} bytes, expected ${width}×${height}`);
  const cells = cellBounds(countedMask(classes), classes, width, height);
  const keptCells = new Uint8Array(cells.cols * cells.rows);
  for (const cluster of groupCells(cells, JOIN_RADIUS)) {
    const keep = isSignificant(cluster.pixels, cluster.strong);
    for (const c of cluster.cells) {
      if (keep) keptCells[c] = 1;
      else cells.minX[c] = -1; // dropped: later grouping no longer sees it
    }
  }
  let radius = JOIN_RADIUS;
  let groups = groupCells(cells, radius);
  while (groups.length > MAX_GROUPS_BEFORE_MERGE) {
    radius *= 2;
    groups = groupCells(cells, radius);
  }
  const boxes = groups.map(({ x, y, width: w, height: h, pixels }) => ({ x, y, width: w, height: h, pixels }));
  const regions = mergeClosest(boxes, max).sort((a, b) => a.y - b.y || a.x - b.x);
  return { regions, keptCells, cols: cells.cols };
}

// --- merging the found regions for display -------------------------------------------------------
// The closest pair joins until few enough remain and none overlap: plain box geometry on the clusters.

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
