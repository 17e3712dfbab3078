// Before/after crops for messages (src/channels/crops.ts): the right part of each image, with its margin,
// clipped to the image and scaled down to MAX_CROP_WIDTH; decoded here with pngjs.
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import {
  CROP_MARGIN,
  MAX_CROP_SOURCE_HEIGHT,
  MAX_CROP_WIDTH,
  MAX_CROPS,
  regionCrops,
} from '../../src/channels/crops.js';

/** A white image with a coloured rectangle. */
function image(width: number, height: number, box?: { x: number; y: number; width: number; height: number }) {
  const png = new PNG({ width, height });
  png.data.fill(255);
  if (box)
    for (let y = box.y; y < box.y + box.height; y++)
      for (let x = box.x; x < box.x + box.width; x++) {
        const i = (y * width + x) * 4;
        png.data[i + 1] = 0;
        png.data[i + 2] = 0;
      }
  return PNG.sync.write(png);
}

const pixel = (png: PNG, x: number, y: number) => [
  ...png.data.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 4),
];

describe('regionCrops', () => {
  const region = { x: 100, y: 50, width: 200, height: 40 };

  it('cuts the same box, with its margin, from the capture (after) and the baseline (before)', () => {
    const [crop] = regionCrops([region], image(1280, 800, region), image(1280, 800));
    const after = PNG.sync.read(crop!.after!);
    const before = PNG.sync.read(crop!.before!);
    for (const png of [after, before]) {
      expect(png.width).toBe(region.width + 2 * CROP_MARGIN);
      expect(png.height).toBe(region.height + 2 * CROP_MARGIN);
    }
    expect(pixel(after, CROP_MARGIN + 10, CROP_MARGIN + 10)).toEqual([255, 0, 0, 255]); // the change
    expect(pixel(after, 2, 2)).toEqual([255, 255, 255, 255]); // the margin around it
    expect(pixel(before, CROP_MARGIN + 10, CROP_MARGIN + 10)).toEqual([255, 255, 255, 255]);
  });

  it(`scales a region wider than ${MAX_CROP_WIDTH} px down to ${MAX_CROP_WIDTH}, keeping its proportions`, () => {
    const wide = { x: 0, y: 100, width: 1280, height: 100 };
    const [crop] = regionCrops([wide], image(1280, 800, wide), undefined);
    const after = PNG.sync.read(crop!.after!);
    expect(after.width).toBe(MAX_CROP_WIDTH);
    expect(after.height).toBe(Math.round(((wide.height + 2 * CROP_MARGIN) * MAX_CROP_WIDTH) / 1280));
    expect(pixel(after, 300, Math.round(after.height / 2))).toEqual([255, 0, 0, 255]);
  });

  it(`keeps a crop exactly ${MAX_CROP_WIDTH} px wide as it is, and scales one a pixel wider`, () => {
    const at = { x: CROP_MARGIN, y: 100, width: MAX_CROP_WIDTH - 2 * CROP_MARGIN, height: 400 };
    const kept = PNG.sync.read(regionCrops([at], image(1280, 1000), undefined)[0]!.after!);
    expect([kept.width, kept.height]).toEqual([MAX_CROP_WIDTH, 400 + 2 * CROP_MARGIN]);
    const over = { ...at, width: at.width + 1 };
    const scaled = PNG.sync.read(regionCrops([over], image(1280, 1000), undefined)[0]!.after!);
    expect([scaled.width, scaled.height]).toEqual([MAX_CROP_WIDTH, 447]); // 448 × 600/601
  });

  it('clips at the image edges and caps a tall region', () => {
    const edge = { x: 1270, y: 790, width: 50, height: 50 };
    const [crop] = regionCrops([edge], image(1280, 800), undefined);
    const after = PNG.sync.read(crop!.after!);
    expect([after.width, after.height]).toEqual([10 + CROP_MARGIN, 10 + CROP_MARGIN]);
    const tall = { x: 0, y: 0, width: 300, height: 5000 };
    const long = PNG.sync.read(regionCrops([tall], image(400, 6000), undefined)[0]!.after!);
    expect(long.height).toBe(MAX_CROP_SOURCE_HEIGHT);
  });

  it('gives no side for a missing or unreadable image, and no crop when neither side exists', () => {
    const [onlyAfter] = regionCrops([region], image(640, 480), undefined);
    expect(onlyAfter!.before).toBeUndefined();
    expect(onlyAfter!.after).toBeDefined();
    const [onlyBefore] = regionCrops([region], Buffer.from('not a png'), image(640, 480));
    expect(onlyBefore!.after).toBeUndefined();
    expect(regionCrops([region], undefined, undefined)).toEqual([]);
    // A region outside a (shorter) baseline: the after side only.
    expect(
      regionCrops([{ x: 10, y: 900, width: 10, height: 10 }], image(640, 1000), image(640, 480))[0]!.before,
    ).toBeUndefined();
  });

  it(`crops the first ${MAX_CROPS} regions only`, () => {
    const regions = [0, 1, 2, 3, 4].map((i) => ({ x: 10, y: 10 + i * 60, width: 20, height: 20 }));
    expect(regionCrops(regions, image(200, 400), undefined).map((c) => c.region)).toEqual([0, 1, 2]);
  });
});
