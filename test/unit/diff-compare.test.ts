import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { comparePngs, coveredArea, type DiffOptions } from '../../src/diff/pixels/compare.js';
import type { Box } from '../../src/domain/geometry.js';
import { pngSize } from '../../src/diff/pixels/png-size.js';
import { pngHeaderOnly } from '../helpers/png-header.js';

type Rgb = readonly [number, number, number];
const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];
const OPTS: DiffOptions = { threshold: 0.1, includeAA: false, ignore: [] };

function canvas(width: number, height: number, bg: Rgb = WHITE): PNG {
  const png = new PNG({ width, height });
  for (let i = 0; i < width * height; i++) png.data.set([...bg, 255], i * 4);
  return png;
}

function rect(png: PNG, box: Box, rgb: Rgb): PNG {
  for (let y = box.y; y < Math.min(png.height, box.y + box.height); y++) {
    for (let x = box.x; x < Math.min(png.width, box.x + box.width); x++)
      png.data.set([...rgb, 255], (y * png.width + x) * 4);
  }
  return png;
}

/** Some "content" so an unchanged page is not blank: a black bar at the top. */
function page(width = 400, height = 300): PNG {
  return rect(canvas(width, height), { x: 10, y: 10, width: 200, height: 8 }, BLACK);
}

const encode = (png: PNG): Buffer => PNG.sync.write(png);

/** A disc drawn with 4×4 supersampled coverage, so its edge is anti-aliased like rendered shapes. */
function disc(cx: number, cy: number, r: number): Buffer {
  const png = canvas(80, 80);
  for (let y = 0; y < 80; y++) {
    for (let x = 0; x < 80; x++) {
      let cover = 0;
      for (let s = 0; s < 16; s++) {
        const dx = x + ((s % 4) + 0.5) / 4 - cx;
        const dy = y + (Math.floor(s / 4) + 0.5) / 4 - cy;
        if (dx * dx + dy * dy <= r * r) cover++;
      }
      const v = Math.round(255 - (cover / 16) * 255);
      png.data.set([v, v, v, 255], (y * 80 + x) * 4);
    }
  }
  return encode(png);
}

describe('comparePngs', () => {
  it('identical images: nothing changed, no diff image', () => {
    const r = comparePngs(encode(page()), encode(page()), OPTS);
    expect(r).toEqual({
      width: 400,
      height: 300,
      diffPixels: 0,
      comparedPixels: 120_000,
      diffRatio: 0,
      regions: [],
      diffPng: null,
    });
  });

  it('a changed 100×40 rectangle counts its area and gives one region around it', () => {
    const box = { x: 50, y: 60, width: 100, height: 40 };
    const r = comparePngs(encode(page()), encode(rect(page(), box, [200, 30, 30])), OPTS);
    expect(r.diffPixels).toBe(4000); // a solid fill has no anti-aliased edge
    expect(r.diffRatio).toBeCloseTo(4000 / 120_000, 10);
    expect(r.regions).toEqual([{ ...box, pixels: 4000 }]);
  });

  it('two far-apart changes give two regions, top first', () => {
    const low = { x: 300, y: 250, width: 30, height: 20 };
    const high = { x: 20, y: 40, width: 50, height: 10 };
    const r = comparePngs(encode(page()), encode(rect(rect(page(), low, BLACK), high, BLACK)), OPTS);
    expect(r.diffPixels).toBe(600 + 500);
    expect(r.regions).toEqual([
      { ...high, pixels: 500 },
      { ...low, pixels: 600 },
    ]);
  });

  it('a change inside an ignore box is not counted, and the box leaves the denominator', () => {
    const change = { x: 50, y: 60, width: 100, height: 40 };
    const ignore = [{ x: 40, y: 50, width: 200, height: 100 }];
    const r = comparePngs(encode(page()), encode(rect(page(), change, BLACK)), { ...OPTS, ignore });
    expect(r.diffPixels).toBe(0);
    expect(r.diffPng).toBeNull();
    expect(r.comparedPixels).toBe(120_000 - 20_000);
  });

  it('ignore boxes are clamped to the image and overlaps are not subtracted twice', () => {
    const ignore = [
      { x: -50, y: -50, width: 100, height: 100 }, // 50×50 inside
      { x: 25, y: 25, width: 50, height: 50 }, // overlaps the first by 25×25
      { x: 390, y: 290, width: 100, height: 100 }, // 10×10 inside
      { x: 500, y: 0, width: 10, height: 10 }, // entirely outside
    ];
    const r = comparePngs(encode(page()), encode(page()), { ...OPTS, ignore });
    expect(r.comparedPixels).toBe(120_000 - (2500 + 2500 - 625) - 100);
    expect(
      coveredArea([
        { x: 0, y: 0, width: 10, height: 10 },
        { x: 0, y: 0, width: 10, height: 10 },
      ]),
    ).toBe(100);
  });

  it('a partly ignored change counts only the part outside the box', () => {
    const change = { x: 100, y: 100, width: 100, height: 40 };
    const ignore = [{ x: 150, y: 0, width: 400, height: 400 }];
    const r = comparePngs(encode(page()), encode(rect(page(), change, BLACK)), { ...OPTS, ignore });
    expect(r.diffPixels).toBe(50 * 40);
    expect(r.regions).toEqual([{ x: 100, y: 100, width: 50, height: 40, pixels: 2000 }]);
  });

  it('a taller current image: the extra rows count as changed, with a region over them', () => {
    const r = comparePngs(encode(page(200, 100)), encode(page(200, 150)), OPTS);
    expect(r).toMatchObject({ width: 200, height: 150, diffPixels: 200 * 50, comparedPixels: 200 * 150 });
    expect(r.regions).toEqual([{ x: 0, y: 100, width: 200, height: 50, pixels: 10_000 }]);
  });

  it('different widths and heights: everything outside the overlap counts, the compared area is the union', () => {
    const r = comparePngs(encode(page(100, 100)), encode(canvas(120, 80)), OPTS);
    expect(r.width).toBe(120);
    expect(r.height).toBe(100);
    // the black bar inside the overlap (x 10..99, y 10..17) + the L outside the 100×80 overlap
    expect(r.diffPixels).toBe(90 * 8 + (120 * 100 - 100 * 80));
  });

  it('includeAA: false leaves out anti-aliased edge pixels that includeAA: true counts', () => {
    const a = disc(40, 40, 20);
    const b = disc(40.5, 40.25, 20); // the same shape moved by a fraction of a pixel
    const without = comparePngs(a, b, { ...OPTS, includeAA: false }).diffPixels;
    const withAA = comparePngs(a, b, { ...OPTS, includeAA: true }).diffPixels;
    expect(withAA).toBeGreaterThan(50);
    expect(without).toBeLessThan(withAA);
  });

  it('threshold: a faint colour change is under 0.1 and over 0; a strong one is counted at 0.1', () => {
    const box = { x: 50, y: 60, width: 100, height: 40 };
    const faint = encode(rect(page(), box, [250, 250, 250]));
    expect(comparePngs(encode(page()), faint, OPTS).diffPixels).toBe(0);
    expect(comparePngs(encode(page()), faint, { ...OPTS, threshold: 0 }).diffPixels).toBe(4000);
    const strong = encode(rect(page(), box, [200, 200, 200]));
    expect(comparePngs(encode(page()), strong, OPTS).diffPixels).toBe(4000);
  });

  it('the diff image: union size, red where changed, faded elsewhere, ignored boxes tinted, regions outlined', () => {
    const change = { x: 50, y: 60, width: 100, height: 40 };
    const ignore = [{ x: 300, y: 200, width: 50, height: 50 }];
    const current = rect(page(400, 320), change, [0, 128, 0]);
    const r = comparePngs(encode(page()), encode(current), { ...OPTS, ignore });
    expect(r.diffPng).not.toBeNull();
    const img = PNG.sync.read(r.diffPng as Buffer);
    expect([img.width, img.height]).toEqual([400, 320]);
    const px = (x: number, y: number): number[] => [...img.data.subarray((y * 400 + x) * 4, (y * 400 + x) * 4 + 4)];
    expect(px(100, 80)).toEqual([255, 0, 0, 255]); // changed
    expect(px(200, 310)).toEqual([255, 0, 0, 255]); // only the current image has these rows
    const [r1, g1, b1] = px(20, 12); // the unchanged black bar, faded to a light grey
    expect(r1).toBe(g1);
    expect(g1).toBe(b1);
    expect(r1).toBeGreaterThan(120);
    expect(r1).toBeLessThan(250);
    expect(px(380, 20)).toEqual([255, 255, 255, 255]); // white stays white
    const [ri, , bi] = px(320, 220); // ignored: tinted blue
    expect(bi).toBeGreaterThan((ri as number) + 50);
    expect(px(change.x - 1, change.y - 1)).toEqual([255, 0, 255, 255]); // outline just outside the region
  });

  it('50 separate changes are grouped into at most 10 regions that still cover every change', () => {
    const squares: Box[] = [];
    for (let row = 0; row < 5; row++) {
      for (let col = 0; col < 10; col++) squares.push({ x: 10 + col * 60, y: 10 + row * 60, width: 12, height: 12 });
    }
    const current = canvas(620, 320);
    for (const s of squares) rect(current, s, BLACK);
    const r = comparePngs(encode(canvas(620, 320)), encode(current), OPTS);
    expect(r.diffPixels).toBe(50 * 144);
    expect(r.regions.length).toBe(10);
    for (const s of squares) {
      expect(
        r.regions.some(
          (b) => b.x <= s.x && b.y <= s.y && b.x + b.width >= s.x + s.width && b.y + b.height >= s.y + s.height,
        ),
      ).toBe(true);
    }
    const ys = r.regions.map((b) => b.y);
    expect(ys).toEqual([...ys].sort((a, b) => a - b));
  });

  it('bytes that are not a PNG throw, naming which image', () => {
    expect(() => comparePngs(Buffer.from('not a png'), encode(page()), OPTS)).toThrow(/decode baseline PNG/);
    expect(() => comparePngs(encode(page()), Buffer.alloc(0), OPTS)).toThrow(/decode current PNG/);
  });

  it("leaves the caller's buffers untouched", () => {
    const a = encode(page());
    const b = encode(rect(page(), { x: 0, y: 0, width: 50, height: 50 }, BLACK));
    const [a0, b0] = [Buffer.from(a), Buffer.from(b)];
    comparePngs(a, b, { ...OPTS, ignore: [{ x: 0, y: 0, width: 20, height: 20 }] });
    expect(a.equals(a0) && b.equals(b0)).toBe(true);
  });
});

describe('comparePngs: the pixel cap (maxPixels) is checked from the header, before decoding', () => {
  it('refuses a PNG whose header claims 100000×100000 pixels, naming its size and the limit', () => {
    const huge = pngHeaderOnly(100_000, 100_000);
    expect(pngSize(huge)).toEqual({ width: 100_000, height: 100_000 });
    const options = { ...OPTS, maxPixels: 50_000_000 };
    expect(() => comparePngs(huge, encode(page()), options)).toThrow(
      'the baseline image is 100000×100000 = 10000000000 pixels, over the limit of 50000000 (limits.maxImagePixels)',
    );
    expect(() => comparePngs(encode(page()), huge, options)).toThrow(/the current image is 100000×100000/);
    // Without the cap the same bytes reach the decoder (which fails on them differently): the check above came first.
    expect(() => comparePngs(huge, encode(page()), OPTS)).toThrow(/decode baseline PNG/);
  });

  it('accepts images at the cap and refuses one pixel over it', () => {
    const a = encode(page(400, 300));
    expect(comparePngs(a, encode(page(400, 300)), { ...OPTS, maxPixels: 120_000 }).diffPixels).toBe(0);
    expect(() => comparePngs(a, encode(page(400, 300)), { ...OPTS, maxPixels: 119_999 })).toThrow(
      /400×300 = 120000 pixels, over the limit of 119999/,
    );
  });
});
