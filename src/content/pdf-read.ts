// A watched PDF read for comparison: its text by page (as blocks with their boxes) and a picture of
// its first pages for the visual diff. Built on poppler's pdftotext and pdftoppm, run as bounded
// subprocesses so a hostile PDF costs a bounded time and memory and never the event loop.

/** One text block of a page: a paragraph as pdftotext lays it out. */
export interface PdfBlock {
  text: string;
  /** Where it is in the picture, image pixels (null for pages past the picture). */
  box: { x: number; y: number; width: number; height: number } | null;
}

export interface PdfPage {
  /** 1-based page number. */
  page: number;
  blocks: PdfBlock[];
}

export interface PdfReading {
  /** The document's page count. */
  pageCount: number;
  /** Pages whose text was read (fewer than pageCount when maxPages cut it). */
  pagesRead: number;
  /** Why only part was read, in words; absent when all of it was. */
  cut?: string;
  pages: PdfPage[];
  /** PNG: the first pages, one under the other. */
  picture: Buffer;
}

export interface PdfReadLimits {
  /** Pages whose text is read. */
  maxPages: number;
  /** Pages drawn into the picture. */
  picturePages: number;
  timeoutMs: number;
  memoryMb: number;
}

/**
 * Read a PDF. A file poppler cannot read, or one over a bound, rejects with an AppError
 * (`render_failed`) whose message says why in words.
 */
export function readPdf(_bytes: Buffer, _limits: PdfReadLimits, _signal: AbortSignal): Promise<PdfReading> {
  return Promise.reject(new Error('readPdf is not built yet')); // placeholder: the PDF reader replaces it
}
