import { describe, expect, it } from 'vitest';
import { fitToCaps, outputPixels, truncationOf } from '../../src/render/image-caps.js';

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
    expect(fitToCaps(30_000, 30_000, 1, caps)).toEqual({ width: 2000, height: 1000, cut: { width: true, height: true } });
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
