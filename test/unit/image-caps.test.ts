import { describe, expect, it } from 'vitest';
import { fitToCaps, outputPixels, truncationOf, viewportOverCaps } from '../../src/render/capture/image-caps.js';

const caps = { maxSide: 2000, maxPixels: 2_000_000 };

describe('fitToCaps', () => {
  it('leaves a region at the caps whole', () => {
    expect(fitToCaps(2000, 1000, 1, caps)).toEqual({ width: 2000, height: 1000, cut: { width: false, height: false } });
    expect(fitToCaps(500, 1000, 2, caps)).toEqual({ width: 500, height: 1000, cut: { width: false, height: false } });
  });

  it('cuts each side to maxSide', () => {
    expect(fitToCaps(100, 30_000, 1, caps)).toEqual({ width: 100, height: 2000, cut: { width: false, height: true } });
    expect(fitToCaps(30_000, 100, 1, caps)).toEqual({ width: 2000, height: 100, cut: { width: true, height: false } });
    expect(fitToCaps(2001, 10, 1, caps).cut).toEqual({ width: true, height: false });
  });

  it('over the pixel cap keeps the width and reduces the height', () => {
    expect(fitToCaps(1500, 1500, 1, caps)).toEqual({ width: 1500, height: 1333, cut: { width: false, height: true } });
    expect(fitToCaps(500, 1001, 2, caps)).toEqual({ width: 500, height: 1000, cut: { width: false, height: true } });
    expect(fitToCaps(30_000, 30_000, 1, caps)).toEqual({
      width: 2000,
      height: 1000,
      cut: { width: true, height: true },
    });
  });

  it('counts output pixels rounded up at a fractional scale, and never goes over', () => {
    const fitted = fitToCaps(412, 30_000, 2.625, caps);
    expect(outputPixels(fitted.width, fitted.height, 2.625)).toBeLessThanOrEqual(caps.maxPixels);
    expect(outputPixels(fitted.width, fitted.height + 1, 2.625)).toBeGreaterThan(caps.maxPixels);
  });

  it('reduces the width too only when not one CSS px of height fits', () => {
    const tiny = { maxSide: 2000, maxPixels: 1000 };
    const fitted = fitToCaps(2000, 500, 2, tiny);
    expect(fitted.height).toBe(1);
    expect(outputPixels(fitted.width, fitted.height, 2)).toBeLessThanOrEqual(1000);
    expect(fitted.cut).toEqual({ width: true, height: true });
  });
});

describe('fitToCaps refuses sizes that are not real', () => {
  it('NaN, Infinity, zero or a negative width, height or scale throws rather than slipping past the caps', () => {
    for (const bad of [NaN, Infinity, 0, -1]) {
      expect(() => fitToCaps(bad, 100, 1, caps)).toThrow(RangeError);
      expect(() => fitToCaps(100, bad, 1, caps)).toThrow(RangeError);
      expect(() => fitToCaps(100, 100, bad, caps)).toThrow(/^no image can be made of/);
    }
  });
});

describe('truncationOf (the X-Truncated value)', () => {
  it('is "full-page" for a full page cut in height only, the axes otherwise', () => {
    expect(truncationOf({ width: false, height: false }, true)).toBeUndefined();
    expect(truncationOf({ width: false, height: true }, true)).toBe('full-page');
    expect(truncationOf({ width: true, height: false }, true)).toBe('width');
    expect(truncationOf({ width: true, height: true }, true)).toBe('width, height');
    expect(truncationOf({ width: false, height: true }, false)).toBe('height');
    expect(truncationOf({ width: true, height: true }, false)).toBe('width, height');
  });
});

describe("viewportOverCaps (the renderer's own check, for stored requests)", () => {
  it('a viewport at the caps fits; one CSS px or one output row over does not, naming the setting', () => {
    expect(viewportOverCaps(2000, 1000, 1, caps)).toBeUndefined();
    expect(viewportOverCaps(500, 1000, 2, caps)).toBeUndefined();
    expect(viewportOverCaps(10, 2000, 1, caps)).toBeUndefined();
    expect(viewportOverCaps(500, 1001, 2, caps)).toBe(
      'the viewport, 500×1001 CSS px at scale 2, is 2002000 output pixels, over the limit of 2000000 (limits.maxImagePixels)',
    );
    expect(viewportOverCaps(2001, 10, 1, caps)).toBe(
      'the viewport, 2001×10 CSS px, is over the limit of 2000 CSS px a side (limits.maxFullPageHeight)',
    );
    expect(viewportOverCaps(10, 2001, 1, caps)).toMatch(/^the viewport, 10×2001 CSS px, is over/);
  });
});
