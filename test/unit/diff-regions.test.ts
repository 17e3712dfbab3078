import { describe, expect, it } from 'vitest';
import type { Box } from '../../src/diff/compare.js';
import { findRegions, MAX_REGIONS } from '../../src/diff/regions.js';

function mask(width: number, height: number, boxes: readonly Box[] = []): Uint8Array {
  const m = new Uint8Array(width * height);
  for (const b of boxes) {
    for (let y = b.y; y < b.y + b.height; y++) m.fill(1, y * width + b.x, y * width + b.x + b.width);
  }
  return m;
}

const contains = (outer: Box, inner: Box): boolean =>
  outer.x <= inner.x && outer.y <= inner.y &&
  outer.x + outer.width >= inner.x + inner.width && outer.y + outer.height >= inner.y + inner.height;

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

  it('a single pixel is a 1×1 box, with exact bounds rather than its cell', () => {
    expect(findRegions(mask(100, 100, [{ x: 37, y: 5, width: 1, height: 1 }]), 100, 100)).toEqual([
      { x: 37, y: 5, width: 1, height: 1 },
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
        for (let g = 0; g < 4; g++) glyphs.push({ x: x + g * 9, y: 100 + line * 22, width: 6, height: 12 + (g % 2) * 3 });
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
    for (let i = 0; i < 10; i++) dots.push({ x: i * 120, y: 0, width: 2, height: 2 });
    dots.push({ x: 550, y: 0, width: 2, height: 2 });
    const regions = findRegions(mask(1200, 10, dots), 1200, 10);
    expect(regions).toHaveLength(10);
    expect(regions).toContainEqual({ x: 550, y: 0, width: 52, height: 2 });
    expect(regions).toContainEqual({ x: 480, y: 0, width: 2, height: 2 });
  });

  it.each([400, 20_000])('%i noise pixels over a page give at most 10 boxes covering them, quickly', (dots) => {
    const width = 1280;
    const height = 4000;
    const m = new Uint8Array(width * height);
    let seed = 7;
    for (let i = 0; i < dots; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      m[seed % m.length] = 1;
    }
    const t0 = performance.now();
    const regions = findRegions(m, width, height);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(regions.length).toBeLessThanOrEqual(MAX_REGIONS);
    expect(covered(m, width, regions)).toBe(true);
  });

  it('a fully changed mask is one box', () => {
    expect(findRegions(new Uint8Array(300 * 200).fill(1), 300, 200)).toEqual([{ x: 0, y: 0, width: 300, height: 200 }]);
  });

  it('rejects a mask of the wrong size', () => {
    expect(() => findRegions(new Uint8Array(10), 4, 4)).toThrow(/expected 4×4/);
  });
});
