/**
 * Parse PDF bytes with pdfjs-dist (legacy build, which is the one that runs
 * in Node) into page count, page sizes, text and the document info dict.
 *
 * Node notes:
 *  - In Node the legacy build always uses a "fake worker" (runs the worker
 *    code in-process by dynamically importing ./pdf.worker.mjs), so no worker
 *    setup is needed.
 *  - getDocument() rejects a Node Buffer ("Please provide binary data as
 *    Uint8Array") and may transfer/detach the ArrayBuffer it is given, so we
 *    always hand it a fresh copy.
 */
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface ParsedPdfPage {
  widthPt: number;
  heightPt: number;
  text: string;
}

export interface ParsedPdf {
  pageCount: number;
  pages: ParsedPdfPage[];
  /** All pages' text joined with "\n". */
  text: string;
  info: { title?: string; author?: string; subject?: string; keywords?: string };
}

function infoString(info: unknown, key: string): string | undefined {
  if (info === null || typeof info !== 'object') return undefined;
  const v = (info as Record<string, unknown>)[key];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

export async function parsePdf(bytes: Uint8Array | Buffer): Promise<ParsedPdf> {
  // Fresh, exactly-sized Uint8Array (not a Buffer, not a view into a pool).
  const data = new Uint8Array(bytes.byteLength);
  data.set(bytes);

  const task = getDocument({
    data,
    disableFontFace: true,
    useSystemFonts: false,
    isEvalSupported: false,
    verbosity: 0, // errors only; silences "Warning: ..." chatter
  });
  const doc = await task.promise;
  try {
    const pages: ParsedPdfPage[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      // view = [xMin, yMin, xMax, yMax] of the crop box (falls back to media box), in points.
      const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = page.view;
      let widthPt = Math.abs(x1 - x0);
      let heightPt = Math.abs(y1 - y0);
      if (page.rotate % 180 !== 0) [widthPt, heightPt] = [heightPt, widthPt];

      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue; // TextMarkedContent
        text += item.str;
        if (item.hasEOL) text += '\n';
      }
      pages.push({ widthPt, heightPt, text });
      page.cleanup();
    }

    const { info } = await doc.getMetadata();
    const parsedInfo: ParsedPdf['info'] = {};
    const title = infoString(info, 'Title');
    const author = infoString(info, 'Author');
    const subject = infoString(info, 'Subject');
    const keywords = infoString(info, 'Keywords');
    if (title !== undefined) parsedInfo.title = title;
    if (author !== undefined) parsedInfo.author = author;
    if (subject !== undefined) parsedInfo.subject = subject;
    if (keywords !== undefined) parsedInfo.keywords = keywords;

    return {
      pageCount: doc.numPages,
      pages,
      text: pages.map((p) => p.text).join('\n'),
      info: parsedInfo,
    };
  } finally {
    await task.destroy();
  }
}
