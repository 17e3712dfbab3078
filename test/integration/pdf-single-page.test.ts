// PDF options named after Gotenberg's: singlePage (one page as tall as the content) and omitBackground (the
// page's default background left unpainted), each proven in the PDF itself: page count and size, text, and
// the drawing operators of the page (pdfjs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { parsePdf, type ParsedPdf } from '../helpers/pdf.js';

const PT_PER_PX = 0.75;
const MM_PX = 96 / 25.4;
const A4_PX = { short: 8.27 * 96, long: 11.7 * 96 };
const TOL_PT = 2; // Chromium rounds paper sizes to whole CSS pixels; one px of slack is added on purpose

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

const doc = (body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0}</style>${head}</head><body>${body}</body></html>`;

async function pdfOf(body: Record<string, unknown>): Promise<{ bytes: Buffer; pdf: ParsedPdf }> {
  const res = await svc.post('/api/pdf', body);
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  const bytes = await bytesOf(res);
  return { bytes, pdf: await parsePdf(bytes) };
}

/** 3,100 px of content: a tall block and a last line, no margins around them. */
const TALL = doc('<div style="height:3000px">TOP-MARK</div><div style="height:100px">BOTTOM-MARK</div>');
const TALL_PX = 3100;

describe('singlePage', () => {
  it('portrait: exactly one page, A4 wide, as tall as the content plus the margins', async () => {
    const { pdf } = await pdfOf({ html: TALL, singlePage: true });
    expect(pdf.pageCount).toBe(1);
    const page = pdf.pages[0]!;
    expect(page.text).toContain('TOP-MARK');
    expect(page.text).toContain('BOTTOM-MARK');
    expect(Math.abs(page.widthPt - A4_PX.short * PT_PER_PX)).toBeLessThanOrEqual(TOL_PT);
    const expected = (TALL_PX + 20 * MM_PX) * PT_PER_PX; // default margins: 10 mm top and bottom
    expect(Math.abs(page.heightPt - expected), `height ${page.heightPt} ≈ ${expected}`).toBeLessThanOrEqual(TOL_PT);
  });

  it('without it the same document is several A4 pages (the control)', async () => {
    const { pdf } = await pdfOf({ html: TALL });
    expect(pdf.pageCount).toBeGreaterThan(1);
  });

  it('margins: zero margins make the page exactly the content', async () => {
    const { pdf } = await pdfOf({ html: TALL, singlePage: true, margin: { top: 0, right: 0, bottom: 0, left: 0 } });
    expect(pdf.pageCount).toBe(1);
    expect(Math.abs(pdf.pages[0]!.heightPt - TALL_PX * PT_PER_PX)).toBeLessThanOrEqual(TOL_PT);
  });

  it('landscape: the long side is the width, and text wrapped at that width makes a shorter page', async () => {
    const words = Array.from({ length: 1500 }, (_, i) => `word${i}`).join(' ');
    const html = doc(`<p style="font:16px/20px sans-serif;margin:0">${words} LAST-WORD</p>`);
    const portrait = (await pdfOf({ html, singlePage: true })).pdf;
    const landscape = (await pdfOf({ html, singlePage: true, landscape: true })).pdf;
    for (const pdf of [portrait, landscape]) {
      expect(pdf.pageCount).toBe(1);
      expect(pdf.text).toContain('LAST-WORD');
    }
    expect(Math.abs(landscape.pages[0]!.widthPt - A4_PX.long * PT_PER_PX)).toBeLessThanOrEqual(TOL_PT);
    expect(landscape.pages[0]!.heightPt).toBeLessThan(portrait.pages[0]!.heightPt * 0.8);
  });

  it('width (without height) sets the page width; scale shrinks the height with the content', async () => {
    const { pdf } = await pdfOf({
      html: TALL,
      singlePage: true,
      width: '500px',
      scale: 0.5,
      margin: { top: 0, right: 0, bottom: 0, left: 0 },
    });
    expect(pdf.pageCount).toBe(1);
    expect(Math.abs(pdf.pages[0]!.widthPt - 500 * PT_PER_PX)).toBeLessThanOrEqual(TOL_PT);
    expect(Math.abs(pdf.pages[0]!.heightPt - TALL_PX * 0.5 * PT_PER_PX)).toBeLessThanOrEqual(TOL_PT);
  });

  it('a short document is a short page, not a viewport tall', async () => {
    const { pdf } = await pdfOf({
      html: doc('<div style="height:200px">SHORT</div>'),
      singlePage: true,
      margin: { top: 0, right: 0, bottom: 0, left: 0 },
    });
    expect(pdf.pageCount).toBe(1);
    expect(Math.abs(pdf.pages[0]!.heightPt - 200 * PT_PER_PX)).toBeLessThanOrEqual(TOL_PT);
  });

  it.each([
    [{ height: '300mm', width: '200mm' }, 'height'],
    [{ pageRanges: '1' }, 'pageRanges'],
    [{ preferCSSPageSize: true }, 'preferCSSPageSize'],
  ])('with %j: 400 naming %s', async (extra, field) => {
    const res = await svc.post('/api/pdf', { html: TALL, singlePage: true, ...extra });
    const err = await errorOf(res);
    expect(res.status).toBe(400);
    expect(err.details?.map((d) => d.path)).toEqual([field]);
    expect(err.details?.[0]?.message).toMatch(/cannot be combined with singlePage/);
  });
});

/** How many fill operators page 1 draws (the document below draws none of its own: only the canvas can). */
async function fills(bytes: Buffer): Promise<number> {
  const task = getDocument({
    data: new Uint8Array(bytes),
    disableFontFace: true,
    isEvalSupported: false,
    verbosity: 0,
  });
  try {
    const ops = await (await (await task.promise).getPage(1)).getOperatorList();
    const fillOps = new Set<number>([OPS.fill, OPS.eoFill, OPS.fillStroke, OPS.eoFillStroke]);
    return ops.fnArray.filter((fn) => fillOps.has(fn)).length;
  } finally {
    await task.destroy();
  }
}

describe('omitBackground', () => {
  // A dark color-scheme gives the canvas a dark default background, which Chromium paints onto every page.
  const dark = doc('<p>TEXT-ON-CANVAS</p>', '<meta name="color-scheme" content="dark">');

  it('the default background is painted without it, and not with it; the next render paints it again', async () => {
    // Several rounds: more renders than the service has warm pages, so a page that kept the override shows.
    for (let i = 0; i < 3; i++) {
      const painted = await pdfOf({ html: dark });
      expect(await fills(painted.bytes), 'the canvas fill').toBeGreaterThan(0);
      const omitted = await pdfOf({ html: dark, omitBackground: true });
      expect(await fills(omitted.bytes)).toBe(0);
      expect(omitted.pdf.text).toContain('TEXT-ON-CANVAS');
    }
  });

  it("the page's own CSS background is still printed", async () => {
    const html = doc('<p>OWN</p>', '<style>body{background:rgb(10,120,200)}</style>');
    const { bytes } = await pdfOf({ html, omitBackground: true });
    expect(await fills(bytes)).toBeGreaterThan(0);
  });

  it('with printBackground false: 400', async () => {
    const res = await svc.post('/api/pdf', { html: dark, omitBackground: true, printBackground: false });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details?.map((d) => d.path)).toEqual(['omitBackground']);
  });
});
