/**
 * worker_threads entry of the PDF reader (pdf-read.ts), started from dist/ (compiled): the CPU-heavy half
 * of a read, off the event loop. It parses pdftotext's -bbox-layout XML, stitches pdftoppm's page PNGs
 * into one picture, and places each block's box in that picture; then it answers once and is ended.
 */
import { readFileSync } from 'node:fs';
import { parentPort, type MessagePort } from 'node:worker_threads';
import type { PdfPage } from './pdf-read.js';
import { parseBbox, type BboxPage, type PointBox } from './pdf-bbox.js';
import { stitchPages, type PagePlace } from './pdf-picture.js';

export interface PdfReadThreadInput {
  /** pdftotext's output, UTF-8. */
  xml: ArrayBuffer;
  /** The page PNGs of the picture, first page first. */
  pictureFiles: string[];
}
export type PdfReadThreadReply =
  { ok: true; pages: PdfPage[]; picture: ArrayBuffer; pictureMs: number } | { ok: false; message: string };

const port = parentPort;
if (port === null) throw new Error('src/content/pdf-read-thread.ts must be started as a worker thread');
port.once('message', (input: PdfReadThreadInput) => answer(port, input));

/** A box in points → whole pixels of its page's place, rounded outwards and kept inside the page. */
function toPixels(box: PointBox, page: BboxPage, place: PagePlace): PdfPage['blocks'][number]['box'] {
  if (page.width <= 0 || page.height <= 0) return null;
  const sx = place.width / page.width;
  const sy = place.height / page.height;
  const clampX = (x: number) => Math.min(place.width, Math.max(0, x));
  const clampY = (y: number) => Math.min(place.height, Math.max(0, y));
  const x = clampX(Math.floor(box.xMin * sx));
  const y = clampY(Math.floor(box.yMin * sy));
  const right = clampX(Math.ceil(box.xMax * sx));
  const bottom = clampY(Math.ceil(box.yMax * sy));
  return { x, y: place.top + y, width: right - x, height: bottom - y };
}

function answer(port: MessagePort, input: PdfReadThreadInput): void {
  try {
    const bbox = parseBbox(Buffer.from(input.xml).toString('utf8'));
    const started = performance.now();
    const { png, places } = stitchPages(input.pictureFiles.map((file) => readFileSync(file)));
    const pictureMs = performance.now() - started;
    const pages: PdfPage[] = bbox.map((page, i) => {
      const place = places[i];
      return {
        page: i + 1,
        blocks: page.blocks.map(({ text, box }) => ({ text, box: place ? toPixels(box, page, place) : null })),
      };
    });
    const whole = png.byteOffset === 0 && png.byteLength === png.buffer.byteLength;
    const picture = (
      whole ? png.buffer : png.buffer.slice(png.byteOffset, png.byteOffset + png.byteLength)
    ) as ArrayBuffer;
    port.postMessage({ ok: true, pages, picture, pictureMs } satisfies PdfReadThreadReply, [picture]);
  } catch (err) {
    port.postMessage({
      ok: false,
      message: err instanceof Error ? err.message : String(err),
    } satisfies PdfReadThreadReply);
  }
}
