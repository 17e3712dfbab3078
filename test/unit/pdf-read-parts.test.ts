// The pure parts of the PDF reader: what it takes from pdfinfo, the resolution of the picture at its
// bounds, poppler's errors said in words, and the blocks of a -bbox-layout document.
import { describe, expect, it } from 'vitest';
import { parseBbox } from '../../src/content/pdf-bbox.js';
import {
  PICTURE_MAX_PAGE_HEIGHT,
  PICTURE_MAX_WIDTH,
  parsePdfinfo,
  pictureResolution,
} from '../../src/content/pdf-read.js';
import { popplerReason } from '../../src/content/poppler.js';

describe('parsePdfinfo', () => {
  it('reads the page count and the sizes as shown, a quarter turn swapping them', () => {
    const info = parsePdfinfo(
      [
        'Producer:        pdf-lib',
        'Pages:           12',
        'Encrypted:       no',
        'Page    1 size:  595.28 x 841.89 pts (A4)',
        'Page    1 rot:   0',
        'Page    2 size:  595.28 x 841.89 pts (A4)',
        'Page    2 rot:   90',
      ].join('\n'),
    );
    expect(info).toEqual({
      pageCount: 12,
      pageSizes: [
        { width: 595.28, height: 841.89 },
        { width: 841.89, height: 595.28 },
      ],
    });
  });

  it('says 0 pages when pdfinfo names none', () => {
    expect(parsePdfinfo('Encrypted: no\n').pageCount).toBe(0);
  });
});

describe('pictureResolution', () => {
  it('is 72 dpi up to the widest page the picture takes, and less just past it', () => {
    expect(pictureResolution([{ width: PICTURE_MAX_WIDTH, height: 800 }])).toBe('72.000');
    expect(Number(pictureResolution([{ width: PICTURE_MAX_WIDTH + 1, height: 800 }]))).toBeLessThan(72);
    // A0 (2384 pt wide) is drawn 1240 px wide.
    expect(Number(pictureResolution([{ width: 2384, height: 3370 }])) * (2384 / 72)).toBeCloseTo(PICTURE_MAX_WIDTH, 0);
  });

  it('is 72 dpi up to the tallest page, and less just past it', () => {
    expect(pictureResolution([{ width: 100, height: PICTURE_MAX_PAGE_HEIGHT }])).toBe('72.000');
    expect(Number(pictureResolution([{ width: 100, height: PICTURE_MAX_PAGE_HEIGHT + 1 }]))).toBeLessThan(72);
  });

  it('takes the largest of the pages, and 72 dpi for pages without a size', () => {
    expect(
      Number(
        pictureResolution([
          { width: 600, height: 800 },
          { width: 2480, height: 800 },
        ]),
      ),
    ).toBe(36);
    expect(pictureResolution([{ width: 0, height: 0 }])).toBe('72.000');
  });
});

describe('popplerReason', () => {
  it('names a file that is not a PDF plainly', () => {
    expect(
      popplerReason(
        'Syntax Warning: May not be a PDF file (continuing anyway)\nSyntax Error (2): Illegal character <21>\n',
      ),
    ).toBe('it is not a PDF (it does not start with %PDF-)');
  });

  it("gives poppler's last error, without its prefix", () => {
    expect(
      popplerReason(
        "Syntax Error: End of file inside dictionary\nSyntax Error: Couldn't find trailer dictionary\nSyntax Error: Couldn't read xref table\n",
      ),
    ).toBe(`poppler says "Couldn't read xref table"`);
  });

  it('says there are no pages when the page tree leads nowhere', () => {
    expect(
      popplerReason(
        'Syntax Error: Page count (7) larger than number of objects (6)\nCommand Line Error: Wrong page range given: the first page (1) can not be after the last page (0).\n',
      ),
    ).toBe('poppler finds no page in it (Page count (7) larger than number of objects (6))');
  });

  it('says when poppler gave no reason', () => {
    expect(popplerReason('')).toBe('poppler gives no reason');
  });
});

describe('parseBbox', () => {
  const page = (body: string) =>
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">' +
    `<html xmlns="http://www.w3.org/1999/xhtml"><head></head><body><doc>${body}</doc></body></html>`;

  it('joins words with spaces and lines of a block, collapsing whitespace, and keeps words as written', () => {
    const pages = parseBbox(
      page(
        '<page width="612" height="792"><flow>' +
          '<block xMin="72" yMin="54.5" xMax="341" yMax="77"><line><word>Total:</word><word>007</word></line>' +
          '<line><word>A&amp;B</word><word>&lt;x&gt;</word></line></block>' +
          '<block xMin="1" yMin="2" xMax="3" yMax="4"><line><word> </word></line></block>' +
          '</flow><flow><block xMin="72" yMin="100" xMax="90" yMax="110"><line><word>1e5</word></line></block></flow></page>' +
          '<page width="0" height="0"></page>',
      ),
    );
    expect(pages).toEqual([
      {
        width: 612,
        height: 792,
        blocks: [
          { text: 'Total: 007 A&B <x>', box: { xMin: 72, yMin: 54.5, xMax: 341, yMax: 77 } },
          { text: '1e5', box: { xMin: 72, yMin: 100, xMax: 90, yMax: 110 } },
        ],
      },
      { width: 0, height: 0, blocks: [] },
    ]);
  });
});
