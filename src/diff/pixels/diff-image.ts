/**
 * The diff PNG a person looks at: the page faded to grey so colour means "changed", counted changes in strong
 * red, ignored boxes tinted blue (so it is plain what was left out), each region outlined in magenta.
 */
import { endianness } from 'node:os';
import { PNG } from 'pngjs';
import type { Box } from '../../domain/geometry.js';

export interface DiffImageInput {
  width: number;
  height: number;
  baseline: PNG;
  current: PNG;
  /** width*height, 1 = counted change (already 0 inside ignored boxes). */
  mask: Uint8Array;
  /** Clamped to the image. */
  ignore: readonly Box[];
  regions: readonly Box[];
}

/** How much of the original contrast is kept: black text ends up light grey, readable but quiet. */
const FADE = 0.3;
const CHANGED = [255, 0, 0] as const;
const IGNORE_TINT = [40, 110, 255] as const;
const IGNORE_OPACITY = 0.35;
const OUTLINE = [255, 0, 255] as const;
const OUTLINE_PX = 2;

/**
 * Measured on the 1280×10000 page of bench/diff.ts: pngjs's defaults (level 9, all five filters tried per row,
 * Z_RLE) take ≈ 1 s. The Up filter suits a page (rows repeat) and with level 1 and zlib's default strategy
 * gives ≈ 200 ms and ≈ 0.6 MB; Sub + RLE was as fast but 4× larger, Paeth 2× slower for the same size.
 */
const ENCODE = { deflateLevel: 1, filterType: 2, deflateStrategy: 0 } as const;

/** Faded grey of one RGBA pixel, blended over white by its alpha (pixelmatch's own background formula). */
function fadedGrey(src: Uint8Array, i: number): number {
  const luma =
    (src[i] as number) * 0.29889531 + (src[i + 1] as number) * 0.58662247 + (src[i + 2] as number) * 0.11448223;
  return Math.round(255 + ((luma - 255) * FADE * (src[i + 3] as number)) / 255);
}

/** An opaque grey as one 32-bit RGBA word: R=G=B, so only where alpha sits depends on the byte order. */
const OPAQUE = endianness() === 'LE' ? 0xff000000 : 0x000000ff;
const GREY_UNIT = endianness() === 'LE' ? 0x010101 : 0x01010100;

/** A Uint32 view of RGBA bytes (copied in the unlikely case they are not 4-byte aligned). */
function words(bytes: Uint8Array): Uint32Array {
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  return new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4);
}

/** Faded copy of the current image; where only the baseline has pixels, of the baseline; else white. */
function drawBackground(out: Uint32Array, input: DiffImageInput): void {
  const { width, height, baseline, current } = input;
  const sources = { current: words(current.data), baseline: words(baseline.data) };
  for (let y = 0; y < height; y++) {
    // Each row is a run from the current image, then a run from the baseline past the current's right edge,
    // then white: deciding per run keeps bounds tests out of the per-pixel loop.
    const fromCurrent = y < current.height ? current.width : 0;
    const fromBaseline = y < baseline.height ? Math.max(fromCurrent, baseline.width) : fromCurrent;
    fadeRun(out, y * width, current, sources.current, y, 0, fromCurrent);
    fadeRun(out, y * width, baseline, sources.baseline, y, fromCurrent, fromBaseline);
    out.fill(OPAQUE | (255 * GREY_UNIT), y * width + fromBaseline, (y + 1) * width);
  }
}

function fadeRun(
  out: Uint32Array,
  outRow: number,
  src: PNG,
  src32: Uint32Array,
  y: number,
  x0: number,
  x1: number,
): void {
  // Pages are long runs of one colour: reuse the last conversion while the source pixel repeats.
  let last = -1;
  let lastOut = 0;
  for (let x = x0; x < x1; x++) {
    const k = y * src.width + x;
    const p = src32[k] as number;
    if (p !== last) {
      last = p;
      lastOut = (OPAQUE | (fadedGrey(src.data, k * 4) * GREY_UNIT)) >>> 0;
    }
    out[outRow + x] = lastOut;
  }
}

function tint(out: Uint8Array, width: number, box: Box): void {
  const keep = 1 - IGNORE_OPACITY;
  for (let y = box.y; y < box.y + box.height; y++) {
    for (let x = box.x; x < box.x + box.width; x++) {
      const o = (y * width + x) * 4;
      out[o] = (out[o] as number) * keep + IGNORE_TINT[0] * IGNORE_OPACITY;
      out[o + 1] = (out[o + 1] as number) * keep + IGNORE_TINT[1] * IGNORE_OPACITY;
      out[o + 2] = (out[o + 2] as number) * keep + IGNORE_TINT[2] * IGNORE_OPACITY;
    }
  }
}

function paintRect(
  out: Uint8Array,
  width: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  rgb: readonly number[],
): void {
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const o = (y * width + x) * 4;
      out[o] = rgb[0] as number;
      out[o + 1] = rgb[1] as number;
      out[o + 2] = rgb[2] as number;
      out[o + 3] = 255;
    }
  }
}

/** A 2 px frame just outside the box, so it does not hide the red; pushed inside where the image ends. */
function outline(out: Uint8Array, width: number, height: number, box: Box): void {
  const x0 = Math.max(0, box.x - OUTLINE_PX);
  const y0 = Math.max(0, box.y - OUTLINE_PX);
  const x1 = Math.min(width, box.x + box.width + OUTLINE_PX);
  const y1 = Math.min(height, box.y + box.height + OUTLINE_PX);
  paintRect(out, width, x0, y0, x1, Math.min(y1, y0 + OUTLINE_PX), OUTLINE);
  paintRect(out, width, x0, Math.max(y0, y1 - OUTLINE_PX), x1, y1, OUTLINE);
  paintRect(out, width, x0, y0, Math.min(x1, x0 + OUTLINE_PX), y1, OUTLINE);
  paintRect(out, width, Math.max(x0, x1 - OUTLINE_PX), y0, x1, y1, OUTLINE);
}

export function renderDiffPng(input: DiffImageInput): Buffer {
  const { width, height, mask } = input;
  // Our own Uint32Array, so the word view is guaranteed aligned and shares memory with the bytes pngjs encodes.
  const pixels = new Uint32Array(width * height);
  const out = new Uint8Array(pixels.buffer);
  drawBackground(pixels, input);
  for (const box of input.ignore) tint(out, width, box);
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] === 0) continue;
    const o = i * 4;
    out[o] = CHANGED[0];
    out[o + 1] = CHANGED[1];
    out[o + 2] = CHANGED[2];
  }
  for (const box of input.regions) outline(out, width, height, box);
  const png = new PNG(); // no size given: pngjs allocates nothing
  png.width = width;
  png.height = height;
  png.data = Buffer.from(pixels.buffer);
  return PNG.sync.write(png, ENCODE);
}
