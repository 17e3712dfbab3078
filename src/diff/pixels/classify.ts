/**
 * Every pixel of the compared area sorted into what kind of difference it is, before any decision is made:
 * pixelmatch tells a real rendering difference from an anti-aliased one, and we add how strong each differing
 * pixel is next to the contrast around it (a glyph drawn or erased, against an edge moved by part of a pixel).
 */
import pixelmatch from 'pixelmatch';
import type { PNG } from 'pngjs';

/** What one pixel of the width×height union is. Values are stored in a Uint8Array. */
export const PX = {
  /** Same colour within the threshold (or inside an ignored box). */
  same: 0,
  /** A real difference that is faint next to the contrast around it (an edge moved by part of a pixel). */
  weak: 1,
  /** A real difference about as large as the contrast around it: ink appeared or went, a colour changed. */
  strong: 2,
  /** An anti-aliased pixel that touches no real difference: speckle, never counted. */
  aaAlone: 3,
  /** An anti-aliased pixel next to a real difference: the soft edge of a changed glyph, counted. */
  aaEdge: 4,
  /** A real difference with no changed pixel around it: a speck, never counted. */
  lone: 5,
} as const;

/** A pixel counted as changed (diffPixels, region pixels, red in the diff image). */
export function isCounted(v: number): boolean {
  return v === PX.weak || v === PX.strong || v === PX.aaEdge;
}

/**
 * A differing pixel is strong when its own colour distance (pixelmatch's squared YIQ delta) is at least this share
 * of the largest distance within its 3×3 neighbourhood in either image. Moving an edge by f of a pixel changes
 * the pixel by f of the edge's contrast, i.e. f² of its squared delta: 0.25 keeps edges moved by up to 0.5 px weak.
 */
export const STRONG_SHARE = 0.25;

/** The top-left w×h pixels of an image, as a 4-byte-aligned RGBA array pixelmatch can view as Uint32. */
export function crop(png: PNG, w: number, h: number): Uint8Array {
  const { data } = png;
  if (png.width === w && data.byteOffset % 4 === 0) return data.subarray(0, w * h * 4); // rows are contiguous
  const out = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) out.set(data.subarray(y * png.width * 4, (y * png.width + w) * 4), y * w * 4);
  return out;
}

/** pixelmatch's colour distance (squared YIQ, alpha blended over white), without its sign. */
function delta(a: Uint8Array, i: number, b: Uint8Array, j: number): number {
  const aa = (a[i + 3] as number) / 255;
  const ba = (b[j + 3] as number) / 255;
  const r1 = 255 + ((a[i] as number) - 255) * aa,
    g1 = 255 + ((a[i + 1] as number) - 255) * aa,
    b1 = 255 + ((a[i + 2] as number) - 255) * aa;
  const r2 = 255 + ((b[j] as number) - 255) * ba,
    g2 = 255 + ((b[j + 1] as number) - 255) * ba,
    b2 = 255 + ((b[j + 2] as number) - 255) * ba;
  const y = (r1 - r2) * 0.29889531 + (g1 - g2) * 0.58662247 + (b1 - b2) * 0.11448223;
  const iq = (r1 - r2) * 0.59597799 - (g1 - g2) * 0.2741761 - (b1 - b2) * 0.32180189;
  const q = (r1 - r2) * 0.21147017 - (g1 - g2) * 0.52261711 + (b1 - b2) * 0.31114694;
  return 0.5053 * y * y + 0.299 * iq * iq + 0.1957 * q * q;
}

/** Is the real difference at (x, y) about as large as the contrast around it, in either image? */
function isStrong(a: Uint8Array, b: Uint8Array, w: number, h: number, x: number, y: number): boolean {
  const p = (y * w + x) * 4;
  const own = delta(a, p, b, p);
  let local = own;
  for (let ny = Math.max(0, y - 1); ny <= Math.min(h - 1, y + 1); ny++) {
    for (let nx = Math.max(0, x - 1); nx <= Math.min(w - 1, x + 1); nx++) {
      const q = (ny * w + nx) * 4;
      if (q === p) continue;
      local = Math.max(local, delta(a, p, a, q), delta(b, p, b, q));
    }
  }
  return own >= STRONG_SHARE * local;
}

const RED = [255, 0, 0] as const;
const BLUE = [0, 0, 255] as const;

/** One RGBA colour as the Uint32 word it is in memory on this machine. */
function word(rgb: readonly number[]): number {
  return new Uint32Array(
    new Uint8Array([rgb[0] as number, rgb[1] as number, rgb[2] as number, 255]).buffer,
  )[0] as number;
}

/**
 * The classes over the width×height union. With includeAA every pixel over the threshold is a strong real
 * difference (the strict setting: nothing is put down to anti-aliasing or sub-pixel movement). Pixels outside
 * the overlap of the two images are strong real differences (the page's shape changed there), including the
 * corner neither covers.
 */
export function classifyPixels(
  a: PNG,
  b: PNG,
  width: number,
  height: number,
  threshold: number,
  includeAA: boolean,
): Uint8Array {
  const ow = Math.min(a.width, b.width);
  const oh = Math.min(a.height, b.height);
  const classes = new Uint8Array(width * height).fill(PX.strong);
  if (ow === 0 || oh === 0) return classes;
  const img1 = crop(a, ow, oh);
  const img2 = crop(b, ow, oh);
  // Not a mask: pixelmatch paints real differences red and anti-aliased ones (only with includeAA false) blue,
  // on a white page (alpha 0 fades the original out: r = g = b, never pure red or blue).
  const out = new Uint8Array(ow * oh * 4);
  pixelmatch(img1, img2, out, ow, oh, {
    threshold,
    includeAA,
    diffMask: false,
    alpha: 0,
    diffColor: [...RED],
    diffColorAlt: [...RED],
    aaColor: [...BLUE],
  });
  const out32 = new Uint32Array(out.buffer);
  const red = word(RED);
  const blue = word(BLUE);
  for (let y = 0; y < oh; y++) {
    const row = y * width;
    const src = y * ow;
    classes.fill(PX.same, row, row + ow);
    for (let x = 0; x < ow; x++) {
      const v = out32[src + x];
      if (v !== red && v !== blue) continue;
      if (includeAA) {
        // every difference pixelmatch sees counts in full: no allowance for anti-aliasing at all
        classes[row + x] = PX.strong;
        continue;
      }
      // pixelmatch's anti-aliasing test also fires inside the 1 px strokes of small text, so a glyph that
      // changed can be mostly "anti-aliased" pixels: one whose difference is as large as the contrast around
      // it is a real difference whatever that test said.
      if (isStrong(img1, img2, ow, oh, x, y)) classes[row + x] = PX.strong;
      else classes[row + x] = v === red ? PX.weak : PX.aaAlone;
    }
  }
  return classes;
}

/**
 * Anti-aliased pixels that touch a real difference (8 neighbours) become part of it: the soft edge of a changed glyph.
 */
export function joinAntiAliasedEdges(classes: Uint8Array, width: number, height: number): void {
  // Anti-aliased pixels are few; the native indexOf finds them without a JS test per pixel.
  for (let i = classes.indexOf(PX.aaAlone); i !== -1; i = classes.indexOf(PX.aaAlone, i + 1)) {
    const x = i % width;
    const y = (i - x) / width;
    search: for (let ny = Math.max(0, y - 1); ny <= Math.min(height - 1, y + 1); ny++) {
      for (let nx = Math.max(0, x - 1); nx <= Math.min(width - 1, x + 1); nx++) {
        const v = classes[ny * width + nx];
        if (v === PX.weak || v === PX.strong) {
          classes[i] = PX.aaEdge;
          break search;
        }
      }
    }
  }
}

const counted = (v: number | undefined): boolean => v === PX.weak || v === PX.strong || v === PX.aaEdge;

/**
 * Counted pixels with no counted pixel among their 8 neighbours become specks: a change is drawn with
 * strokes, not single dots. Run after joinAntiAliasedEdges, so a glyph's soft edge keeps its pixels company.
 */
export function dropLonePixels(classes: Uint8Array, width: number, height: number): void {
  const lone: number[] = [];
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (!counted(classes[row + x])) continue;
      // Fast path: inside a changed area a row neighbour is changed too.
      if ((x > 0 && counted(classes[row + x - 1])) || (x + 1 < width && counted(classes[row + x + 1]))) continue;
      let company = false;
      for (let ny = Math.max(0, y - 1); ny <= Math.min(height - 1, y + 1) && !company; ny++) {
        if (ny === y) continue;
        for (let nx = Math.max(0, x - 1); nx <= Math.min(width - 1, x + 1); nx++) {
          if (counted(classes[ny * width + nx])) {
            company = true;
            break;
          }
        }
      }
      if (!company) lone.push(row + x);
    }
  }
  for (const i of lone) classes[i] = PX.lone;
}
