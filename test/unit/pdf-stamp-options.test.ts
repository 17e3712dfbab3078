// A watermark's or stamp's options checked before anything is drawn: each refusal is a 400 naming the
// option, each limit tried at and just over its edge, and attacker text kept out of the stamp page's markup.
import { PDFDocument } from 'pdf-lib';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import type { PdfStamp } from '../../src/domain/pdf-spec.js';
import { AppError } from '../../src/errors.js';
import { applyStamp } from '../../src/pdf/stamp/apply-stamp.js';
import { pageIndexes } from '../../src/pdf/page-ranges.js';
import { STAMP_LIMITS, stampPage } from '../../src/pdf/stamp/stamp-page.js';

const base = { opacity: 1, rotation: 0, position: 'center', offsetX: 0, offsetY: 0 } as const;
const text = (extra: Partial<PdfStamp> = {}): PdfStamp => ({ ...base, text: 'Draft', ...extra });
const png = PNG.sync.write(new PNG({ width: 4, height: 2 }));
const image = (contentType: string, bytes: Buffer = png): PdfStamp => ({ ...base, image: { contentType, bytes } });

/** The refusal `act` throws: its status and the paths its details name. */
function refusal(act: () => unknown) {
  try {
    act();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const { status, extra, message } = err as AppError;
    return { status, paths: (extra.details ?? []).map((d) => d.path), message };
  }
  throw new Error('expected a refusal');
}

describe('pages', () => {
  it('names every page when absent or empty, and the ranges given otherwise, in order without repeats', () => {
    expect(pageIndexes(undefined, 3, 'stamp.pages')).toEqual([0, 1, 2]);
    expect(pageIndexes(' ', 3, 'stamp.pages')).toEqual([0, 1, 2]);
    expect(pageIndexes('5, 1-3', 5, 'stamp.pages')).toEqual([0, 1, 2, 4]);
    expect(pageIndexes('2,1-2', 5, 'stamp.pages')).toEqual([0, 1]);
    expect(pageIndexes('5', 5, 'stamp.pages')).toEqual([4]); // the last page: at the edge
  });

  it.each([
    ['6', 'past the last page'],
    ['0', 'page 0'],
    ['1-6', 'a range past the last page'],
    ['3-2', 'a backwards range'],
    ['1,,2', 'an empty part'],
    ['first', 'words'],
    ['1-2-3', 'a range of three'],
  ])('refuses %j (%s) with a 400 naming the option', (ranges) => {
    const refused = refusal(() => pageIndexes(ranges, 5, 'watermark.pages'));
    expect(refused).toMatchObject({ status: 400, paths: ['watermark.pages'] });
  });

  it('refuses pages outside the document before drawing anything, naming watermark or stamp', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    doc.addPage();
    const stampDoc = await PDFDocument.create();
    stampDoc.addPage([100, 50]).drawRectangle({ width: 10, height: 10 });
    const stampPdf = await stampDoc.save();
    await expect(applyStamp(doc, stampPdf, text({ pages: '3' }), 'under')).rejects.toMatchObject({
      status: 400,
      extra: { details: [{ path: 'watermark.pages' }] },
    });
    await expect(applyStamp(doc, stampPdf, text({ pages: '2-3' }), 'over')).rejects.toMatchObject({
      extra: { details: [{ path: 'stamp.pages' }] },
    });
    await applyStamp(doc, stampPdf, text({ pages: '2' }), 'over'); // the edge itself is fine
  });
});

describe('what a stamp is', () => {
  it.each([
    ['both text and image', { ...image('image/png'), text: 'x' }, 'stamp.text'],
    ['neither text nor image', { ...base }, 'stamp.text'],
    ['empty text', text({ text: ' \n ' }), 'stamp.text'],
    ['an unsupported image type', image('image/bmp'), 'stamp.image.contentType'],
    ['a PNG sent as a JPEG', image('image/jpeg'), 'stamp.image'],
    ['bytes that are no image', image('image/png', Buffer.from('not a picture')), 'stamp.image'],
    [
      'an SVG without a size',
      image('image/svg+xml', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')),
      'stamp.image',
    ],
    ['a colour that ends the CSS declaration', text({ color: 'red; background: url(x)' }), 'stamp.color'],
    ['a five-digit hex colour', text({ color: '#12345' }), 'stamp.color'],
    ['a font family with a semicolon', text({ fontFamily: 'Arial; color: red' }), 'stamp.fontFamily'],
    ['a font family with markup', text({ fontFamily: 'a"><script>' }), 'stamp.fontFamily'],
    ['fontSize just over its maximum', text({ fontSize: STAMP_LIMITS.maxFontSize + 0.5 }), 'stamp.fontSize'],
    ['fontSize just under its minimum', text({ fontSize: 0.5 }), 'stamp.fontSize'],
    ['opacity over 1', text({ opacity: 1.01 }), 'stamp.opacity'],
    ['opacity not a number', text({ opacity: Number.NaN }), 'stamp.opacity'],
    ['rotation over a full turn', text({ rotation: 361 }), 'stamp.rotation'],
    ['offsetX past a page', text({ offsetX: 14_401 }), 'stamp.offsetX'],
    ['width past a page', { ...image('image/png'), width: 14_401 }, 'stamp.width'],
    ['text one character over its limit', text({ text: 'x'.repeat(STAMP_LIMITS.maxTextLength + 1) }), 'stamp.text'],
  ] as [string, PdfStamp, string][])('refuses %s with a 400 naming it', (_, stamp, path) => {
    expect(refusal(() => stampPage(stamp))).toMatchObject({ status: 400, paths: [path] });
  });

  it('accepts each limit at its edge, and each kind of colour and font family', () => {
    for (const stamp of [
      text({ text: 'x'.repeat(STAMP_LIMITS.maxTextLength), fontSize: 1 }),
      text({ fontSize: STAMP_LIMITS.maxFontSize, text: 'x' }),
      text({ fontSize: STAMP_LIMITS.minFontSize, opacity: 0, rotation: -360, offsetX: -14_400, offsetY: 14_400 }),
      text({ color: '#f00a' }),
      text({ color: 'rgb(255 0 0 / 50%)' }),
      text({ color: 'hsla(120, 100%, 50%, 0.3)' }),
      text({ color: 'rebeccapurple' }),
      text({ fontFamily: '"Noto Sans CJK JP", 微软雅黑, serif' }),
      { ...image('image/png'), width: 14_400 / 2 },
    ])
      expect(() => stampPage(stamp)).not.toThrow();
  });

  it('refuses text too wide for a page at its fontSize, just over the edge', () => {
    // (characters + 0.5 em of padding) × fontSize: 143.5 × 100 = 14,350 pt fits; 144.5 × 100 does not.
    expect(stampPage(text({ text: 'x'.repeat(143), fontSize: 100 })).widthPt).toBe(14_350);
    expect(refusal(() => stampPage(text({ text: 'x'.repeat(144), fontSize: 100 })))).toMatchObject({
      status: 400,
      paths: ['stamp.text'],
    });
  });

  it('refuses an image of more pixels than allowed, just over the edge (read from its header alone)', () => {
    const header = (width: number, height: number) => {
      const ihdr = Buffer.alloc(25);
      ihdr.writeUInt32BE(13, 0);
      ihdr.write('IHDR', 4, 'latin1');
      ihdr.writeUInt32BE(width, 8);
      ihdr.writeUInt32BE(height, 12);
      ihdr.set([8, 6, 0, 0, 0], 16);
      return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr]);
    };
    // 8000 × 5000 = 40 megapixels, drawn 100 pt wide.
    expect(stampPage({ ...image('image/png', header(8000, 5000)), width: 100 }).heightPt).toBe(62.5);
    expect(refusal(() => stampPage({ ...image('image/png', header(8000, 5001)), width: 100 }))).toMatchObject({
      status: 400,
      paths: ['stamp.image'],
    });
  });
});

describe('the stamp page', () => {
  it('keeps attacker text out of the markup', () => {
    const { html } = stampPage(text({ text: `</div><script>alert(1)</script><img src=x onerror=alert(2)>&"'` }));
    expect(html).not.toMatch(/<script|<img/);
    expect(html).toContain('&#60;/div&#62;&#60;script&#62;alert(1)&#60;/script&#62;');
  });

  it('sizes an image page from the image (96 dpi, or the width given) and a text page from its text', () => {
    expect(stampPage(image('image/png'))).toMatchObject({ widthPt: 3, heightPt: 1.5 });
    expect(stampPage({ ...image('image/png'), width: 200 })).toMatchObject({ widthPt: 200, heightPt: 100 });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"></svg>');
    expect(stampPage(image('image/svg+xml', svg))).toMatchObject({ widthPt: 30, heightPt: 15 });
    // Two lines of 5 characters at 10 pt: (5 + 0.5) em wide, (2 × 1.2 + 0.5) em tall.
    expect(stampPage(text({ text: 'Draft\nAgain', fontSize: 10 }))).toMatchObject({ widthPt: 55, heightPt: 29 });
  });

  it('sets the text against the edges it is placed at when upright, and centres it when turned', () => {
    expect(stampPage(text({ position: 'top-left' })).html).toContain(
      'justify-content: flex-start; align-items: flex-start',
    );
    expect(stampPage(text({ position: 'bottom-right' })).html).toContain(
      'justify-content: flex-end; align-items: flex-end',
    );
    expect(stampPage(text({ position: 'top-left', rotation: 30 })).html).toContain(
      'justify-content: center; align-items: center',
    );
  });
});
