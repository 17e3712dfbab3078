import { describe, expect, it } from 'vitest';
import { dropLonePixels, PX } from '../../src/diff/pixels/classify.js';
import type { Box } from '../../src/domain/geometry.js';
import {
  findRegions as find,
  MAX_REGIONS,
  MIN_REGION_PIXELS,
  MIN_STRONG_PIXELS,
} from '../../src/diff/pixels/regions.js';

/** Pixel classes with the boxes filled with `value` (strong real differences unless told). */
function mask(width: number, height: number, boxes: readonly Box[] = [], value: number = PX.strong): Uint8Array {
  const m = new Uint8Array(width * height);
  for (const b of boxes) {
    for (let y = b.y; y < b.y + b.height; y++) m.fill(value, y * width + b.x, y * width + b.x + b.width);
  }
  return m;
}

/** The boxes only (region pixel counts are checked where they matter). */
const findRegions = (m: Uint8Array, width: number, height: number): Box[] =>
  find(m, width, height).regions.map(({ x, y, width: w, height: h }) => ({ x, y, width: w, height: h }));

const contains = (outer: Box, inner: Box): boolean =>
  outer.x <= inner.x &&
  outer.y <= inner.y &&
  outer.x + outer.width >= inner.x + inner.width &&
  outer.y + outer.height >= inner.y + inner.height;

const overlap = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Every set pixel of the mask lies inside some box. */
function covered(m: Uint8Array, width: number, boxes: readonly Box[]): boolean {
  for (let i = 0; i < m.length; i++) {
    if (m[i] === 0) continue;
    const pixel = { x: i % width, y: Math.floor(i / width), width: 1, height: 1 };
    if (!boxes.some((b) => contains(b, pixel))) return false;
  }
  return true;
}

describe('findRegions', () => {
  it('no changed pixel, no region', () => {
    expect(findRegions(mask(64, 64), 64, 64)).toEqual([]);
  });

  it('a 2×3 block (6 px, the minimum) is a box with exact bounds rather than its cell; 5 px is not a region', () => {
    expect(MIN_REGION_PIXELS).toBe(6);
    expect(find(mask(100, 100, [{ x: 37, y: 5, width: 2, height: 3 }]), 100, 100).regions).toEqual([
      { x: 37, y: 5, width: 2, height: 3, pixels: 6 },
    ]);
    const five = mask(100, 100, [{ x: 37, y: 5, width: 2, height: 3 }]);
    five[5 * 100 + 37] = PX.same;
    expect(findRegions(five, 100, 100)).toEqual([]);
  });

  it('a lone speck is no region, even strong', () => {
    expect(findRegions(mask(100, 100, [{ x: 37, y: 5, width: 2, height: 2 }]), 100, 100)).toEqual([]);
  });

  it('a cluster of weak differences (an edge moved by part of a pixel) needs 4 strong pixels to count', () => {
    expect(MIN_STRONG_PIXELS).toBe(4);
    const edge = { x: 20, y: 10, width: 1, height: 60 }; // a long stem, every pixel a weak difference
    expect(findRegions(mask(100, 100, [edge], PX.weak), 100, 100)).toEqual([]);
    const withThree = mask(100, 100, [edge], PX.weak);
    withThree.fill(PX.strong, 30 * 100 + 20, 30 * 100 + 20 + 3);
    expect(findRegions(withThree, 100, 100)).toEqual([]);
    const withFour = mask(100, 100, [edge], PX.weak);
    withFour.fill(PX.strong, 30 * 100 + 20, 30 * 100 + 20 + 4);
    expect(find(withFour, 100, 100).regions).toEqual([{ x: 20, y: 10, width: 4, height: 60, pixels: 63 }]);
  });

  it('anti-aliased edge pixels count towards a region; lone anti-aliased pixels do not', () => {
    // 4 strong pixels + 2 edge pixels = 6: a region only because the edge pixels count.
    const m = mask(100, 100, [{ x: 10, y: 10, width: 4, height: 1 }]);
    m.fill(PX.aaEdge, 11 * 100 + 10, 11 * 100 + 12);
    expect(find(m, 100, 100).regions).toEqual([{ x: 10, y: 10, width: 4, height: 2, pixels: 6 }]);
    m.fill(PX.aaAlone, 11 * 100 + 10, 11 * 100 + 12);
    expect(findRegions(m, 100, 100)).toEqual([]);
  });

  it('speckle far from a change is not merged into its region', () => {
    const change = { x: 10, y: 10, width: 20, height: 10 };
    const m = mask(400, 400, [change]);
    for (let i = 0; i < 30; i++) m[(100 + i * 9) * 400 + 300] = PX.strong; // isolated dots, 9 px apart down a column
    expect(find(m, 400, 400).regions).toEqual([
      { ...change, pixels: 200 },
      { x: 300, y: 100, width: 1, height: 262, pixels: 30 },
    ]);
  });

  it('a block that straddles cell edges keeps its exact pixel bounds', () => {
    const block = { x: 13, y: 30, width: 41, height: 9 };
    expect(findRegions(mask(128, 128, [block]), 128, 128)).toEqual([block]);
  });

  it('a paragraph of glyphs is one box, not one per glyph', () => {
    const glyphs: Box[] = [];
    for (let line = 0; line < 5; line++) {
      let x = 20;
      for (let word = 0; word < 8; word++) {
        for (let g = 0; g < 4; g++)
          glyphs.push({ x: x + g * 9, y: 100 + line * 22, width: 6, height: 12 + (g % 2) * 3 });
        x += 4 * 9 + 10; // a word space
      }
    }
    const regions = findRegions(mask(500, 300, glyphs), 500, 300);
    const right = Math.max(...glyphs.map((g) => g.x + g.width));
    const bottom = Math.max(...glyphs.map((g) => g.y + g.height));
    expect(regions).toEqual([{ x: 20, y: 100, width: right - 20, height: bottom - 100 }]);
  });

  it('changes far apart stay apart, sorted top to bottom then left to right', () => {
    const a = { x: 300, y: 10, width: 5, height: 5 };
    const b = { x: 10, y: 10, width: 5, height: 5 };
    const c = { x: 100, y: 200, width: 20, height: 3 };
    expect(findRegions(mask(400, 300, [c, a, b]), 400, 300)).toEqual([b, a, c]);
  });

  it('more than 10 groups are merged, closest first, down to 10 that cover all and do not overlap', () => {
    const blobs: Box[] = [];
    for (let i = 0; i < 50; i++) blobs.push({ x: (i % 10) * 70, y: Math.floor(i / 10) * 70, width: 4, height: 4 });
    const m = mask(700, 350, blobs);
    const regions = findRegions(m, 700, 350);
    expect(regions).toHaveLength(MAX_REGIONS);
    expect(covered(m, 700, regions)).toBe(true);
    for (let i = 0; i < regions.length; i++) {
      for (let j = i + 1; j < regions.length; j++) expect(overlap(regions[i] as Box, regions[j] as Box)).toBe(false);
    }
  });

  it('the closest pair merges first', () => {
    // 10 dots 120 px apart plus one 48 px before the dot at 600: too far to group (3 cells), closest to merge.
    const dots: Box[] = [];
    for (let i = 0; i < 10; i++) dots.push({ x: i * 120, y: 0, width: 4, height: 4 });
    dots.push({ x: 550, y: 0, width: 4, height: 4 });
    const regions = findRegions(mask(1200, 10, dots), 1200, 10);
    expect(regions).toHaveLength(10);
    expect(regions).toContainEqual({ x: 550, y: 0, width: 54, height: 4 });
    expect(regions).toContainEqual({ x: 480, y: 0, width: 4, height: 4 });
  });

  /** `dots` strong specks of size×size pixels at seeded random places. */
  const scatter = (dots: number, width: number, height: number, size = 1): Uint8Array => {
    const m = new Uint8Array(width * height);
    let seed = 7;
    for (let i = 0; i < dots; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const at = seed % (width * (height - size));
      for (let dy = 0; dy < size; dy++)
        m.fill(PX.strong, at + dy * width, Math.min(at + dy * width + size, (Math.floor(at / width) + dy + 1) * width));
    }
    return m;
  };

  it('a lone pixel every 20 px over a 1280×4000 page: dropped as specks, no region (kept, they would join into one)', () => {
    const m = new Uint8Array(1280 * 4000);
    for (let y = 5; y < 4000; y += 20) for (let x = 5; x < 1280; x += 20) m[y * 1280 + x] = PX.strong;
    expect(findRegions(m, 1280, 4000)).toEqual([{ x: 5, y: 5, width: 1261, height: 3981 }]);
    dropLonePixels(m, 1280, 4000);
    expect(m.includes(PX.strong)).toBe(false);
    expect(findRegions(m, 1280, 4000)).toEqual([]);
  });

  it('20,000 noise specks of 2×2 (about one per cell: dense enough to join) give at most 10 boxes covering them', () => {
    const m = scatter(20_000, 1280, 4000, 2);
    const found = find(m, 1280, 4000);
    expect(found.regions.length).toBeGreaterThan(0);
    expect(found.regions.length).toBeLessThanOrEqual(MAX_REGIONS);
    // Every pixel of a kept cluster is inside a box (a few dots with no neighbour are left out as specks).
    const kept = m.map((v, i) =>
      v !== 0 && found.keptCells[Math.floor(Math.floor(i / 1280) / 16) * found.cols + Math.floor((i % 1280) / 16)] === 1
        ? 1
        : 0,
    );
    expect(kept.reduce((a, b) => a + b, 0)).toBeGreaterThan(10_000);
    expect(covered(kept, 1280, found.regions)).toBe(true);
  });

  it('a fully changed mask is one box holding every pixel', () => {
    expect(find(new Uint8Array(300 * 200).fill(PX.strong), 300, 200).regions).toEqual([
      { x: 0, y: 0, width: 300, height: 200, pixels: 60_000 },
    ]);
  });

  it('rejects a mask of the wrong size', () => {
    expect(() => findRegions(new Uint8Array(10), 4, 4)).toThrow(/expected 4×4/);
  });
});
