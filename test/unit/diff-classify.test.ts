// The region decision on synthetic images drawn with anti-aliased edges (4×4 supersampled coverage), like
// rendered text and shapes: a glyph-sized change is found on a capture of any height, anti-aliasing speckle
// is not, and anti-aliased pixels bordering a real change are counted with it.
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { comparePngs, type DiffOptions } from '../../src/diff/pixels/compare.js';

const OPTS: DiffOptions = { threshold: 0.1, includeAA: false, ignore: [] };

type Shape = (x: number, y: number) => boolean;

/** Black shapes on white, each pixel grey by how much of it the shapes cover (16 samples). */
function draw(width: number, height: number, shapes: readonly Shape[]): PNG {
  const png = new PNG({ width, height });
  png.data.fill(255);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let cover = 0;
      for (let s = 0; s < 16; s++) {
        const sx = x + ((s % 4) + 0.5) / 4;
        const sy = y + (Math.floor(s / 4) + 0.5) / 4;
        if (shapes.some((inside) => inside(sx, sy))) cover++;
      }
      if (cover === 0) continue;
      const v = Math.round(255 - (cover / 16) * 255);
      png.data.set([v, v, v, 255], (y * width + x) * 4);
    }
  }
  return png;
}
const encode = (png: PNG): Buffer => PNG.sync.write(png);

const bar =
  (x0: number, y0: number, x1: number, y1: number): Shape =>
  (x, y) =>
    x >= x0 && x < x1 && y >= y0 && y < y1;
const disc =
  (cx: number, cy: number, r: number): Shape =>
  (x, y) =>
    (x - cx) ** 2 + (y - cy) ** 2 <= r * r;

/**
 * A 12 px-tall digit at (x, y) with 1.3 px strokes at a fractional offset, like small rendered text: "3" is the
 * three bars and the right stem; "8" adds the left stems — the change of the 12 px corpus case (Stock: 3 → 8).
 */
function digit(kind: '3' | '8', x: number, y: number): Shape[] {
  const w = 1.3;
  const three = [
    bar(x, y, x + 7, y + w),
    bar(x + 1, y + 5.5, x + 7, y + 5.5 + w),
    bar(x, y + 11 - w, x + 7, y + 11),
    bar(x + 7 - w, y, x + 7, y + 11),
  ];
  return kind === '3' ? three : [...three, bar(x, y, x + w, y + 5.5), bar(x, y + 5.5, x + w, y + 11)];
}

/** A line of twelve digits 50.4 px from the top of a 1280×120 strip; the sixth is `kind`, the others 3s. */
function line(kind: '3' | '8'): PNG {
  const shapes: Shape[] = [];
  for (let i = 0; i < 12; i++) shapes.push(...digit(i === 5 ? kind : '3', 20.3 + i * 9, 50.4));
  return draw(1280, 120, shapes);
}

/** The strip at the bottom of an otherwise white 1280×`height` capture. */
function atBottom(strip: PNG, height: number): PNG {
  const png = new PNG({ width: strip.width, height });
  png.data.fill(255);
  strip.data.copy(png.data, (height - strip.height) * strip.width * 4);
  return png;
}

describe('the region decision', () => {
  it('one 12 px digit (3 → 8) is one region on a 1280×120 strip, holding every counted pixel', () => {
    const r = comparePngs(encode(line('3')), encode(line('8')), OPTS);
    expect(r.regions).toHaveLength(1);
    const [region] = r.regions;
    // Inside the changed digit's box (x 20.3 + 45 = 65.3 .. 72.3, y 50.4 .. 61.4), give or take its soft edge.
    expect(region!.x).toBeGreaterThanOrEqual(64);
    expect(region!.x + region!.width).toBeLessThanOrEqual(68);
    expect(region!.y).toBeGreaterThanOrEqual(50);
    expect(region!.y + region!.height).toBeLessThanOrEqual(62);
    expect(region!.pixels).toBe(r.diffPixels);
    expect(r.diffPixels).toBeGreaterThanOrEqual(12);
  });

  it('the same digit on a 1280×10,000 capture: the same region and pixels; a ratio to the page would be 0.000001', () => {
    const small = comparePngs(encode(line('3')), encode(line('8')), OPTS);
    const tall = comparePngs(encode(atBottom(line('3'), 10_000)), encode(atBottom(line('8'), 10_000)), OPTS);
    expect(tall.regions).toEqual(small.regions.map((r) => ({ ...r, y: r.y + 9_880 })));
    expect(tall.diffPixels).toBe(small.diffPixels);
    expect(tall.diffRatio).toBeLessThan(0.000_01);
  });

  it('anti-aliasing speckle: a disc moved by 0.3 px is no region by default; includeAA true counts it', () => {
    const a = encode(draw(120, 120, [disc(60, 60, 30)]));
    const b = encode(draw(120, 120, [disc(60.3, 60, 30)]));
    const quiet = comparePngs(a, b, OPTS);
    expect(quiet).toMatchObject({ diffPixels: 0, diffRatio: 0, regions: [], diffPng: null });
    const strict = comparePngs(a, b, { ...OPTS, includeAA: true });
    expect(strict.regions.length).toBeGreaterThan(0);
    expect(strict.diffPixels).toBeGreaterThan(20);
  });

  it('a text line rotated by a hair (under 0.15 px of movement) is no region', () => {
    const shapes = (tilt: number): Shape[] => {
      const out: Shape[] = [];
      for (let i = 0; i < 40; i++) {
        const dy = i * 9 * tilt;
        out.push(...digit('8', 10.3 + i * 9, 20.4 + dy));
      }
      return out;
    };
    const r = comparePngs(encode(draw(400, 50, shapes(0))), encode(draw(400, 50, shapes(0.0004))), OPTS);
    expect(r.regions).toEqual([]);
  });

  it('anti-aliased pixels next to a real change are counted: a new disc counts its soft edge too', () => {
    const blank = draw(80, 80, []);
    const withDisc = draw(80, 80, [disc(40.3, 40.3, 6)]);
    // pixelmatch alone leaves some of the edge out as anti-aliasing...
    const out = new Uint8Array(80 * 80 * 4);
    const pixelmatchCount = pixelmatch(blank.data, withDisc.data, out, 80, 80, { threshold: 0.1, includeAA: false });
    // ...every pixel that differs over the threshold, edge included:
    const everything = comparePngs(encode(blank), encode(withDisc), { ...OPTS, includeAA: true }).diffPixels;
    const r = comparePngs(encode(blank), encode(withDisc), OPTS);
    expect(pixelmatchCount).toBeLessThan(everything);
    expect(r.diffPixels).toBe(everything);
    expect(r.regions).toEqual([{ ...r.regions[0], pixels: everything }]);
  });

  it('lone changed pixels are specks: 8 black dots 3 px apart (close enough to group) are no region; 2×3 pixels are one', () => {
    const base = draw(60, 60, []);
    const dots = draw(
      60,
      60,
      Array.from({ length: 8 }, (_, i) => bar(10 + i * 3, 30, 11 + i * 3, 31)),
    );
    expect(comparePngs(encode(base), encode(dots), OPTS).regions).toEqual([]);
    const block = draw(60, 60, [bar(30, 30, 32, 33)]);
    expect(comparePngs(encode(base), encode(block), OPTS).regions).toEqual([
      { x: 30, y: 30, width: 2, height: 3, pixels: 6 },
    ]);
  });
});
