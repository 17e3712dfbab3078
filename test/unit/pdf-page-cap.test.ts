import { describe, expect, it } from 'vitest';
import { capPageRanges } from '../../src/http/pdf-page-cap.js';

describe('capPageRanges', () => {
  it('no pageRanges: the first `cap` pages', () => {
    expect(capPageRanges(undefined, 51)).toBe('1-51');
  });

  it('a selection within the cap is unchanged (normalised)', () => {
    expect(capPageRanges('1-3,5', 51)).toBe('1-3,5');
    expect(capPageRanges(' 2 - 4 , 9 ', 51)).toBe('2-4,9');
  });

  it('a longer selection is cut after `cap` pages, counted in page order', () => {
    expect(capPageRanges('1-1000', 51)).toBe('1-51');
    expect(capPageRanges('100-200', 51)).toBe('100-150');
    expect(capPageRanges('1-10,60-99', 51)).toBe('1-10,60-99'); // 10 + 40 = 50 pages
    expect(capPageRanges('1-10,60-200', 51)).toBe('1-10,60-100'); // 10 + 41 = 51
    expect(capPageRanges('60-200,1-10', 51)).toBe('1-10,60-100'); // Chromium prints in page order
  });

  it('overlapping and adjacent ranges are counted once', () => {
    expect(capPageRanges('1-40,30-70', 51)).toBe('1-51');
    expect(capPageRanges('1-2,3-4', 3)).toBe('1-3');
    expect(capPageRanges('5,5,5', 51)).toBe('5');
  });

  it('a range Chromium refuses anyway is passed through for it to refuse', () => {
    expect(capPageRanges('5-3', 51)).toBe('5-3');
    expect(capPageRanges('0', 51)).toBe('0');
  });
});
