// POST /api/pdf: every PDF option, each proven by what ends up in the PDF (page sizes, page texts, text
// positions, fill colours, outline, info dictionary) or in the response headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { parsePdf, type ParsedPdf } from '../helpers/pdf.js';

const A4 = { w: 595.92, h: 842.88 };
const LETTER = { w: 612, h: 792 };
const MM = 72 / 25.4; // points per millimetre
const TOL = 1.5; // Chromium rounds paper sizes to whole CSS pixels

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

const doc = (body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;

/** `n` pages, one per forced page break, reading PAGE-1 … PAGE-n. */
const pagesDoc = (n: number, head = '') =>
  doc(
    Array.from(
      { length: n },
      (_, i) => `<section style="${i < n - 1 ? 'break-after: page' : ''}">PAGE-${i + 1}</section>`,
    ).join(''),
    head,
  );

async function pdfOf(body: Record<string, unknown>): Promise<{ res: Response; bytes: Buffer; pdf: ParsedPdf }> {
  const res = await svc.post('/api/pdf', body);
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  const bytes = await bytesOf(res);
  return { res, bytes, pdf: await parsePdf(bytes) };
}

function expectSize(page: { widthPt: number; heightPt: number } | undefined, w: number, h: number): void {
  expect(page).toBeDefined();
  expect(Math.abs(page!.widthPt - w), `width ${page!.widthPt} ≈ ${w}`).toBeLessThanOrEqual(TOL);
  expect(Math.abs(page!.heightPt - h), `height ${page!.heightPt} ≈ ${h}`).toBeLessThanOrEqual(TOL);
}

/** Direct pdfjs access for what parsePdf does not expose: text positions, fill colours, the outline. */
async function withPdfjs<T>(
  bytes: Buffer,
  fn: (d: Awaited<ReturnType<typeof getDocument>['promise']>) => Promise<T>,
): Promise<T> {
  const task = getDocument({
    data: new Uint8Array(bytes),
    disableFontFace: true,
    isEvalSupported: false,
    verbosity: 0,
  });
  try {
    return await fn(await task.promise);
  } finally {
    await task.destroy();
  }
}

/** Every fill colour (as "#rrggbb") set on page 1, in order. */
const fillColours = (bytes: Buffer) =>
  withPdfjs(bytes, async (d) => {
    const ops = await (await d.getPage(1)).getOperatorList();
    return ops.fnArray.flatMap((fn, i) =>
      fn === OPS.setFillRGBColor
        ? [
            '#' +
              Array.from(ops.argsArray[i] as ArrayLike<number>)
                .slice(0, 3)
                .map((c) => c.toString(16).padStart(2, '0'))
                .join(''),
          ]
        : [],
    );
  });

/** Left edge (pt from the page's left) and baseline (pt from the page's top) of the first text item containing `s`. */
const textBox = (bytes: Buffer, s: string) =>
  withPdfjs(bytes, async (d) => {
    const page = await d.getPage(1);
    const { items } = await page.getTextContent();
    const item = items.find((it) => 'str' in it && it.str.includes(s));
    if (!item || !('str' in item)) throw new Error(`text ${s} not found`);
    return { left: item.transform[4] as number, baseline: page.view[3]! - (item.transform[5] as number) };
  });

describe('POST /api/pdf — paper', () => {
  it('defaults to A4 portrait', async () => {
    const { pdf } = await pdfOf({ html: doc('<p>DEFAULT-PAPER</p>') });
    expect(pdf.pageCount).toBe(1);
    expectSize(pdf.pages[0], A4.w, A4.h);
    expect(pdf.text).toContain('DEFAULT-PAPER');
  });

  it('format Letter gives 612 × 792 pt', async () => {
    const { pdf } = await pdfOf({ html: doc('<p>LETTER</p>'), format: 'Letter' });
    expectSize(pdf.pages[0], LETTER.w, LETTER.h);
  });

  it('landscape swaps the A4 sides', async () => {
    const { pdf } = await pdfOf({ html: doc('<p>WIDE</p>'), landscape: true });
    expect(pdf.pages[0]!.widthPt).toBeGreaterThan(pdf.pages[0]!.heightPt);
    expectSize(pdf.pages[0], A4.h, A4.w);
  });

  it('width/height set a custom paper size', async () => {
    const { pdf } = await pdfOf({
      html: doc('<p>CUSTOM</p>'),
      width: '100mm',
      height: '50mm',
      margin: { top: 0, right: 0, bottom: 0, left: 0 },
    });
    expectSize(pdf.pages[0], 100 * MM, 50 * MM);
    expect(pdf.text).toContain('CUSTOM');
  });

  it('preferCSSPageSize: @page size wins only when true', async () => {
    const html = doc('<p>CSS-SIZE</p>', '<style>@page { size: 100mm 100mm }</style>');
    const css = await pdfOf({ html, preferCSSPageSize: true });
    expectSize(css.pdf.pages[0], 100 * MM, 100 * MM);
    const a4 = await pdfOf({ html });
    expectSize(a4.pdf.pages[0], A4.w, A4.h);
  });
});

describe('POST /api/pdf — layout', () => {
  // 200 mm of content fits in A4's 297 mm with margin 0 or the default 10 mm, but not below a 100 mm top margin.
  const tall = doc('<div style="height:200mm">TALL-TOP</div>', '<style>html,body{margin:0}</style>');

  it('margin: a 100 mm top margin pushes 200 mm of content onto a second page', async () => {
    expect((await pdfOf({ html: tall, margin: { top: 0, right: 0, bottom: 0, left: 0 } })).pdf.pageCount).toBe(1);
    expect((await pdfOf({ html: tall })).pdf.pageCount).toBe(1);
    expect((await pdfOf({ html: tall, margin: { top: '100mm' } })).pdf.pageCount).toBe(2);
  });

  it('margin: the text starts at the left margin (default 10 mm, explicit 40 mm)', async () => {
    const html = doc('<p style="margin:0">MARGIN-X</p>', '<style>html,body{margin:0}</style>');
    const byDefault = await textBox((await pdfOf({ html })).bytes, 'MARGIN-X');
    expect(Math.abs(byDefault.left - 10 * MM)).toBeLessThan(3);
    const wide = await textBox((await pdfOf({ html, margin: { left: '40mm', top: '40mm' } })).bytes, 'MARGIN-X');
    expect(Math.abs(wide.left - 40 * MM)).toBeLessThan(3);
    expect(wide.baseline - byDefault.baseline).toBeCloseTo(30 * MM, 0);
  });

  it('scale 0.5 fits a 3-page document on fewer pages', async () => {
    // 3 blocks of 900 px: 2700 px > 2 × 1047 px (A4 minus 10 mm margins) → 3 pages at scale 1.
    const html = doc(
      [1, 2, 3].map((i) => `<div style="height:900px">BLOCK-${i}</div>`).join(''),
      '<style>html,body{margin:0}</style>',
    );
    const full = await pdfOf({ html });
    expect(full.pdf.pageCount).toBe(3);
    const half = await pdfOf({ html, scale: 0.5 });
    expect(half.pdf.pageCount).toBeLessThan(3);
    expect(half.pdf.text).toContain('BLOCK-3');
  });

  it('printBackground: the page background is painted only when true (default)', async () => {
    // A distinctive magenta background; with printBackground false nothing may be filled in it.
    const html = doc('<p>BACKGROUND</p>', '<style>html { background: #ff00ff }</style>');
    const withBg = await pdfOf({ html });
    expect(await fillColours(withBg.bytes)).toContain('#ff00ff');
    const without = await pdfOf({ html, printBackground: false });
    expect(without.pdf.text).toContain('BACKGROUND');
    expect(await fillColours(without.bytes)).not.toContain('#ff00ff');
  });

  it('media: print by default, screen on request', async () => {
    const html = doc(
      '<p class="s">SCREEN-ONLY</p><p class="p">PRINT-ONLY</p>',
      '<style>@media print { .s { display:none } } @media screen { .p { display:none } }</style>',
    );
    const print = await pdfOf({ html });
    expect(print.pdf.text).toContain('PRINT-ONLY');
    expect(print.pdf.text).not.toContain('SCREEN-ONLY');
    const screen = await pdfOf({ html, media: 'screen' });
    expect(screen.pdf.text).toContain('SCREEN-ONLY');
    expect(screen.pdf.text).not.toContain('PRINT-ONLY');
  });
});

describe('POST /api/pdf — pages', () => {
  it('pageRanges "2-3" of a 5-page document keeps pages 2 and 3', async () => {
    const { res, pdf } = await pdfOf({ html: pagesDoc(5), pageRanges: '2-3' });
    expect(pdf.pageCount).toBe(2);
    expect(pdf.pages[0]!.text).toContain('PAGE-2');
    expect(pdf.pages[1]!.text).toContain('PAGE-3');
    expect(pdf.text).not.toMatch(/PAGE-[145]/);
    expect(res.headers.get('x-page-count')).toBe('2');
  });

  it('pageRanges beyond the page count is a 400 naming pageRanges', async () => {
    const res = await svc.post('/api/pdf', { html: pagesDoc(2), pageRanges: '5-7' });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.code).toBe('invalid_request');
    expect(err.details?.map((d) => d.path)).toContain('pageRanges');
  });

  it('headerTemplate/footerTemplate number the pages', async () => {
    const { pdf } = await pdfOf({
      html: pagesDoc(3),
      margin: { top: '20mm', bottom: '20mm' },
      headerTemplate: '<div style="font-size:10px">HDR-<span class="title"></span></div>',
      footerTemplate:
        '<div style="font-size:10px"><span class="pageNumber"></span>/<span class="totalPages"></span></div>',
    });
    expect(pdf.pageCount).toBe(3);
    pdf.pages.forEach((p, i) => {
      expect(p.text.replace(/\s+/g, '')).toContain(`${i + 1}/3`);
      expect(p.text).toContain('HDR-');
      expect(p.text).toContain(`PAGE-${i + 1}`);
    });
  });

  it('X-Page-Count equals the parsed page count', async () => {
    const { res, pdf } = await pdfOf({ html: pagesDoc(3) });
    expect(pdf.pageCount).toBe(3);
    expect(res.headers.get('x-page-count')).toBe('3');
  });
});

describe('POST /api/pdf — document', () => {
  it('metadata title/author/subject/keywords land in the info dictionary', async () => {
    const metadata = { title: 'Quarterly report', author: 'Ada Lovelace', subject: 'Numbers', keywords: 'finance' };
    const { pdf, res } = await pdfOf({ html: doc('<p>META</p>', '<title>Ignored title</title>'), metadata });
    expect(pdf.info).toEqual(metadata);
    expect(pdf.text).toContain('META');
    expect(res.headers.get('x-page-count')).toBe('1');
  });

  it('metadata keywords are written as given (separators kept)', async () => {
    const { pdf } = await pdfOf({ html: doc('<p>KEYWORDS</p>'), metadata: { keywords: 'finance, q3, New York' } });
    expect(pdf.info.keywords).toBe('finance, q3, New York');
  });

  it('the title defaults to the document <title>, also when other metadata is given', async () => {
    const html = doc('<p>TITLED</p>', '<title>From the page</title>');
    expect((await pdfOf({ html })).pdf.info.title).toBe('From the page');
    const { pdf } = await pdfOf({ html, metadata: { author: 'Only the author' } });
    expect(pdf.info).toMatchObject({ title: 'From the page', author: 'Only the author' });
  });

  it('tagged (default true) writes a structure tree; outline: true writes the headings as bookmarks', async () => {
    const html = doc('<h1>Chapter One</h1><h2>Section A</h2><p>text</p><h1>Chapter Two</h1>');
    const withOutline = await pdfOf({ html, outline: true });
    // Chromium writes no object streams, so the catalog's keys are readable in the raw bytes.
    expect(withOutline.bytes.toString('latin1')).toContain('/StructTreeRoot');
    const outline = await withPdfjs(withOutline.bytes, (d) => d.getOutline());
    const titles = JSON.stringify(
      outline?.map(function flat(o): unknown {
        return [o.title, o.items.map(flat)];
      }),
    );
    expect(titles).toContain('Chapter One');
    expect(titles).toContain('Section A');
    expect(titles).toContain('Chapter Two');
    const plain = await pdfOf({ html, tagged: false, outline: false });
    expect(plain.pdf.text).toContain('Chapter One');
    expect(await withPdfjs(plain.bytes, (d) => d.getOutline())).toBeNull();
    expect(plain.bytes.toString('latin1')).not.toContain('/StructTreeRoot');
  });
});

describe('POST /api/pdf — response', () => {
  it('sends application/pdf inline as render.pdf by default', async () => {
    const { res, bytes } = await pdfOf({ html: doc('<p>HEADERS</p>') });
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe('inline; filename="render.pdf"');
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    // Present and a whole number of milliseconds (Number(null) would be 0: compare the text).
    expect(res.headers.get('x-render-ms')).toMatch(/^\d+$/);
  });

  it('filename "invoice 7" becomes inline; filename="invoice 7.pdf"', async () => {
    const { res } = await pdfOf({ html: doc('<p>NAMED</p>'), filename: 'invoice 7' });
    expect(res.headers.get('content-disposition')).toBe('inline; filename="invoice 7.pdf"');
  });

  it('response "json" wraps a valid base64 PDF with its meta', async () => {
    const res = await svc.post('/api/pdf', { html: pagesDoc(2), response: 'json', filename: 'doc' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as {
      contentType: string;
      bytes: number;
      data: string;
      meta: Record<string, unknown>;
    };
    expect(body.contentType).toBe('application/pdf');
    const bytes = Buffer.from(body.data, 'base64');
    expect(bytes.length).toBe(body.bytes);
    const pdf = await parsePdf(bytes);
    expect(pdf.pageCount).toBe(2);
    expect(pdf.pages[1]!.text).toContain('PAGE-2');
    expect(body.meta).toMatchObject({ filename: 'doc.pdf', pageCount: 2, truncated: false });
    expect(typeof body.meta.renderMs).toBe('number');
  });

  it('a text/html body is rendered with the defaults', async () => {
    const res = await svc.post('/api/pdf', doc('<p>RAW-HTML-BODY</p>'), { 'content-type': 'text/html; charset=utf-8' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const pdf = await parsePdf(await bytesOf(res));
    expect(pdf.text).toContain('RAW-HTML-BODY');
    expectSize(pdf.pages[0], A4.w, A4.h);
  });
});
