// The before and after pictures of a change, small enough for a message: the first changed regions (image
// pixels, as the capture reports them) cut from the baseline's image and the capture's, with a margin of
// context, and scaled down to fit a chat or email column. A missing image (failed capture, removed by
// retention, no baseline) gives no crop for that side.
import { PNG } from 'pngjs';

/** Regions cropped per capture. */
export const MAX_CROPS = 3;
/** Context kept around a region, image pixels. */
export const CROP_MARGIN = 24;
/** Widest crop sent, pixels. */
export const MAX_CROP_WIDTH = 600;
/** Tallest part of the page a crop shows (before scaling): a full-page region stays a readable strip. */
export const MAX_CROP_SOURCE_HEIGHT = 1600;

export interface CropBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Crop {
  /** Index of the region in the capture's `regions`. */
  region: number;
  before?: Buffer;
  after?: Buffer;
}

/** `box` widened by the margin and clipped to the image; undefined when nothing of it is inside. */
export function cropBox(box: CropBox, imageWidth: number, imageHeight: number): CropBox | undefined {
  const x0 = Math.max(0, Math.floor(box.x) - CROP_MARGIN);
  const y0 = Math.max(0, Math.floor(box.y) - CROP_MARGIN);
  const x1 = Math.min(imageWidth, Math.ceil(box.x + box.width) + CROP_MARGIN);
  const y1 = Math.min(imageHeight, Math.ceil(box.y + box.height) + CROP_MARGIN, y0 + MAX_CROP_SOURCE_HEIGHT);
  if (x1 <= x0 || y1 <= y0) return undefined;
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** The part `box` of `image`, scaled down (area average) so it is at most MAX_CROP_WIDTH wide; a PNG. */
export function cropPng(image: PNG, box: CropBox): Buffer {
  const scale = Math.min(1, MAX_CROP_WIDTH / box.width);
  const width = Math.max(1, Math.round(box.width * scale));
  const height = Math.max(1, Math.round(box.height * scale));
  const out = new PNG({ width, height });
  for (let oy = 0; oy < height; oy++) {
    const sy0 = box.y + Math.floor((oy * box.height) / height);
    const sy1 = Math.max(sy0 + 1, box.y + Math.floor(((oy + 1) * box.height) / height));
    for (let ox = 0; ox < width; ox++) {
      const sx0 = box.x + Math.floor((ox * box.width) / width);
      const sx1 = Math.max(sx0 + 1, box.x + Math.floor(((ox + 1) * box.width) / width));
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = sy0; sy < sy1; sy++) {
        for (let sx = sx0; sx < sx1; sx++) {
          const i = (sy * image.width + sx) * 4;
          r += image.data[i]!;
          g += image.data[i + 1]!;
          b += image.data[i + 2]!;
          a += image.data[i + 3]!;
        }
      }
      const n = (sy1 - sy0) * (sx1 - sx0);
      const o = (oy * width + ox) * 4;
      out.data[o] = Math.round(r / n);
      out.data[o + 1] = Math.round(g / n);
      out.data[o + 2] = Math.round(b / n);
      out.data[o + 3] = Math.round(a / n);
    }
  }
  return PNG.sync.write(out);
}

function decode(bytes: Buffer | undefined): PNG | undefined {
  if (!bytes) return undefined;
  try {
    return PNG.sync.read(bytes);
  } catch {
    return undefined; // not a PNG we can read: no crop rather than no message
  }
}

/**
 * Crops of the first MAX_CROPS regions: `after` from the capture's image, `before` from the baseline's, the
 * same box on both (a page that grew shows what was there before). Regions with neither side are left out.
 */
export function regionCrops(
  regions: readonly CropBox[],
  captureImage: Buffer | undefined,
  baselineImage: Buffer | undefined,
): Crop[] {
  const after = decode(captureImage);
  const before = decode(baselineImage);
  const crops: Crop[] = [];
  regions.slice(0, MAX_CROPS).forEach((region, index) => {
    const afterBox = after && cropBox(region, after.width, after.height);
    const beforeBox = before && cropBox(region, before.width, before.height);
    const crop: Crop = {
      region: index,
      ...(after && afterBox && { after: cropPng(after, afterBox) }),
      ...(before && beforeBox && { before: cropPng(before, beforeBox) }),
    };
    if (crop.after || crop.before) crops.push(crop);
  });
  return crops;
}
