// The service side of the missing-glyph check: what the page returned is coerced and bounded, and
// failOnMissingGlyphs words its 422. The page side runs in Chromium (test/integration/fonts.test.ts).
import { describe, expect, it } from 'vitest';
import {
  codePointName,
  coerceMissingGlyphs,
  MAX_MISSING_GLYPHS,
  missingGlyphsError,
} from '../../src/render/page-reads/missing-glyphs.js';

describe('coerceMissingGlyphs', () => {
  it('keeps one code point per entry with its selector, and names the code point', () => {
    expect(
      coerceMissingGlyphs([
        { char: '中', selector: '#zh' },
        { char: '😀', selector: 'p' },
      ]),
    ).toEqual({
      glyphs: [
        { char: '中', codePoint: 'U+4E2D', selector: '#zh' },
        { char: '😀', codePoint: 'U+1F600', selector: 'p' },
      ],
      more: false,
    });
  });

  it('drops what is not one code point, repeats and non-objects', () => {
    const read = [{ char: 'ab', selector: 'p' }, { char: '', selector: 'p' }, { char: '中', selector: 1 }, null, 'x'];
    expect(coerceMissingGlyphs([...read, { char: '中', selector: 'a' }, { char: '中', selector: 'b' }]).glyphs).toEqual(
      [{ char: '中', codePoint: 'U+4E2D', selector: 'a' }],
    );
    expect(coerceMissingGlyphs('nonsense')).toEqual({ glyphs: [], more: false });
  });

  it('keeps 50: exactly 50 is all of them, 51 is "more"', () => {
    const entries = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ char: String.fromCodePoint(0x4e00 + i), selector: 'p' }));
    expect(MAX_MISSING_GLYPHS).toBe(50);
    expect(coerceMissingGlyphs(entries(50))).toMatchObject({ more: false });
    expect(coerceMissingGlyphs(entries(50)).glyphs).toHaveLength(50);
    const over = coerceMissingGlyphs(entries(51));
    expect(over.glyphs).toHaveLength(50);
    expect(over.more).toBe(true);
  });

  it('bounds a selector', () => {
    const [glyph] = coerceMissingGlyphs([{ char: '中', selector: 'x'.repeat(10_000) }]).glyphs;
    expect(glyph!.selector.length).toBeLessThanOrEqual(600);
  });
});

describe('codePointName', () => {
  it('writes at least four hex digits, upper case', () => {
    expect(codePointName(0x41)).toBe('U+0041');
    expect(codePointName(0x4e2d)).toBe('U+4E2D');
    expect(codePointName(0x10fffd)).toBe('U+10FFFD');
  });
});

describe('missingGlyphsError', () => {
  it('is render_failed naming each character, the option as the detail path and its element in the message', () => {
    const err = missingGlyphsError({
      glyphs: [{ char: '中', codePoint: 'U+4E2D', selector: '#zh' }],
      more: false,
    });
    expect(err.code).toBe('render_failed');
    expect(err.message).toBe('no font could draw this character: 中 U+4E2D (failOnMissingGlyphs)');
    expect(err.extra.details).toEqual([
      { path: 'failOnMissingGlyphs', message: '#zh: U+4E2D "中" has no glyph in any font' },
    ]);
  });

  it('says when the list was cut', () => {
    const glyphs = [{ char: '中', codePoint: 'U+4E2D', selector: '#zh' }];
    expect(missingGlyphsError({ glyphs, more: true }).message).toContain('more than 1 characters; the first 1');
  });
});
