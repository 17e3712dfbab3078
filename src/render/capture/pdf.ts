import type { Page } from 'playwright';
import { invalidRequest } from '../../errors.js';
import type { PdfSpec } from '../../domain/render-spec.js';
import { singlePageSize } from './single-page.js';
import { inSpan } from '../../tracing/spans.js';

export interface PdfCapture {
  bytes: Buffer;
  pageCount: number;
}

// Chromium shows its own date/title header when only a footer is given (and the reverse): blank it.
const EMPTY_TEMPLATE = '<span></span>';

/** Chromium prints the page (span `capture`), then the service adds metadata and counts pages (`post-processing`). */
export async function capturePdf(page: Page, req: PdfSpec): Promise<PdfCapture> {
  const printed = await inSpan('capture', {}, () => printPdf(page, req));
  return inSpan('post-processing', { 'pagewatch.pdf.metadata': req.metadata !== undefined }, async (span) => {
    const bytes = req.metadata ? await withMetadata(printed, req.metadata) : printed;
    const pageCount = countPages(bytes);
    span.setAttribute('pagewatch.pdf.pages', pageCount);
    return { bytes, pageCount };
  });
}

async function printPdf(page: Page, req: PdfSpec): Promise<Buffer> {
  const headerFooter = req.headerTemplate !== undefined || req.footerTemplate !== undefined;
  const margin = { top: '10mm', right: '10mm', bottom: '10mm', left: '10mm', ...cssLengths(req.margin) };
  // singlePage: explicit paper, already turned as landscape asks.
  const single = req.singlePage ? await singlePageSize(page, req, margin) : undefined;
  const paper = single
    ? { width: single.width, height: single.height }
    : req.width !== undefined
      ? { width: cssLength(req.width), height: cssLength(req.height!) }
      : { format: req.format ?? 'A4' };
  const transparent = req.omitBackground ? await transparentBackground(page) : undefined;
  try {
    return await page.pdf({
      ...paper,
      landscape: single ? false : req.landscape,
      margin,
      scale: req.scale,
      printBackground: req.printBackground,
      preferCSSPageSize: req.preferCSSPageSize,
      pageRanges: req.pageRanges,
      displayHeaderFooter: headerFooter,
      headerTemplate: headerFooter ? (req.headerTemplate ?? EMPTY_TEMPLATE) : undefined,
      footerTemplate: headerFooter ? (req.footerTemplate ?? EMPTY_TEMPLATE) : undefined,
      tagged: req.tagged,
      outline: req.outline,
    });
  } catch (err) {
    // Chromium only knows the page count while printing, so an out-of-range pageRanges surfaces here.
    if (/page range/i.test(String(err))) {
      throw invalidRequest('pageRanges is outside the document', [
        { path: 'pageRanges', message: 'exceeds the page count' },
      ]);
    }
    throw err;
  } finally {
    await transparent?.();
  }
}

/**
 * omitBackground: Chromium paints the page's default background (the canvas colour: white, or dark under a
 * dark color-scheme) transparent while printing. The override belongs to a CDP session of its own, cleared
 * and detached right after the print: a warm page's next render gets the default again (a session left
 * attached would also make Chromium drop the emulated media on the next navigation; see warm-page.ts).
 */
async function transparentBackground(page: Page): Promise<() => Promise<void>> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
  } catch (err) {
    await cdp.detach().catch(() => undefined);
    throw err;
  }
  return async () => {
    await cdp.send('Emulation.setDefaultBackgroundColorOverride', {}).catch(() => undefined);
    await cdp.detach().catch(() => undefined);
  };
}

function cssLength(v: string | number): string {
  return typeof v === 'number' ? `${v}px` : v.trim();
}

function cssLengths(m: PdfSpec['margin']): Record<string, string> {
  return Object.fromEntries(
    Object.entries(m ?? {})
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, cssLength(v)]),
  );
}

/** Chromium writes one `/Type /Page` object per page and no object streams, so counting them is exact. */
export function countPages(pdf: Buffer): number {
  return (pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;
}

async function withMetadata(pdf: Buffer, meta: NonNullable<PdfSpec['metadata']>): Promise<Buffer> {
  const { PDFDocument } = await import('pdf-lib'); // loaded only by renders that ask for metadata
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  if (meta.title !== undefined) doc.setTitle(meta.title);
  if (meta.author !== undefined) doc.setAuthor(meta.author);
  if (meta.subject !== undefined) doc.setSubject(meta.subject);
  // One string, written as given: pdf-lib joins an array with spaces, which would eat the caller's commas.
  if (meta.keywords !== undefined) doc.setKeywords([meta.keywords]);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}
