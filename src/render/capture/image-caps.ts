// How big an image may be, for every capture mode: each side at most `maxSide` CSS px, and at most
// `maxPixels` output pixels (device pixels: CSS size × scale on each axis). Pure functions, so the
// schema (what is known up front) and the capture (what is known only once the page is laid out)
// apply the same arithmetic.

export interface ImageCaps {
  /** limits.maxFullPageHeight: largest width or height, CSS px. */
  maxSide: number;
  /** limits.maxImagePixels: largest width × height in output (device) pixels. */
  maxPixels: number;
}

/** Output pixels of a CSS-px region at a device scale factor; rounded up, so the cap is never under-counted. */
export function outputPixels(width: number, height: number, scale: number): number {
  return Math.ceil(width * scale) * Math.ceil(height * scale);
}

export interface Fitted {
  width: number;
  height: number;
  /** The axes that were cut to fit. */
  cut: { width: boolean; height: boolean };
}

/**
 * The largest region from the same top-left corner that fits the caps. Each side is cut to maxSide;
 * if the pixels are still over, the width is kept and the height reduced (a page is read top to
 * bottom), and only when not even one CSS px of height fits is the width reduced too.
 */
export function fitToCaps(width: number, height: number, scale: number, caps: ImageCaps): Fitted {
  // NaN compares false with everything, so it would pass every cap below: a size must be a real one.
  if (![width, height, scale].every((n) => Number.isFinite(n) && n > 0)) {
    throw new RangeError(`no image can be made of ${width}×${height} CSS px at scale ${scale}`);
  }
  let w = Math.min(width, caps.maxSide);
  let h = Math.min(height, caps.maxSide);
  if (outputPixels(w, h, scale) > caps.maxPixels) {
    const rows = Math.floor(caps.maxPixels / Math.ceil(w * scale)); // whole output rows that fit
    h = Math.min(height, Math.max(1, Math.floor(rows / scale)));
    if (outputPixels(w, h, scale) > caps.maxPixels) w = Math.floor(caps.maxPixels / Math.ceil(h * scale) / scale);
  }
  return { width: w, height: h, cut: { width: w < width, height: h < height } };
}

/**
 * The X-Truncated value of a cut, or undefined when nothing was cut. A full page cut only in height
 * keeps the contract's original "full-page"; every other cut names its axes.
 */
export function truncationOf(cut: Fitted['cut'], fullPage: boolean): string | undefined {
  if (!cut.width && !cut.height) return undefined;
  if (fullPage && !cut.width) return 'full-page';
  return [cut.width && 'width', cut.height && 'height'].filter(Boolean).join(', ');
}

/**
 * Why a viewport at a scale is over the caps, or undefined when it fits. The request schema refuses
 * these up front; the renderer asks again because a stored monitor or job was checked against the caps
 * of its day, which an operator may since have lowered.
 */
export function viewportOverCaps(width: number, height: number, scale: number, caps: ImageCaps): string | undefined {
  if (width > caps.maxSide || height > caps.maxSide) {
    return (
      `the viewport, ${width}×${height} CSS px, is over the limit of ${caps.maxSide} CSS px a side ` +
      `(limits.maxFullPageHeight)`
    );
  }
  const pixels = outputPixels(width, height, scale);
  if (pixels <= caps.maxPixels) return undefined;
  return (
    `the viewport, ${width}×${height} CSS px at scale ${scale}, is ${pixels} output pixels, over the limit of ` +
    `${caps.maxPixels} (limits.maxImagePixels)`
  );
}
