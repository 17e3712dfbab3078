// The picture of a watched PDF: its first pages as pdftoppm draws them, one under the other, left-aligned,
// with a grey gap between pages (and grey to the right of a page narrower than the widest), as one PNG
// the visual diff compares like a web page's screenshot. Decoding and encoding PNGs is CPU work of a few
// hundred milliseconds for a handful of pages, so this runs in the reader's thread (pdf-read-thread.ts).
import { PNG } from 'pngjs';

/** Pixels between two pages. */
export const PAGE_GAP = 16;
const GREY = 0xd0;

export interface PagePlace {
  /** Where the page starts in the picture, in pixels from its top. */
  top: number;
  width: number;
  height: number;
}

export function stitchPages(pages: Buffer[]): { png: Buffer; places: PagePlace[] } {
  const decoded = pages.map((bytes) => PNG.sync.read(bytes));
  const width = Math.max(1, ...decoded.map((p) => p.width));
  const places: PagePlace[] = [];
  let height = 0;
  for (const page of decoded) {
    if (places.length) height += PAGE_GAP;
    places.push({ top: height, width: page.width, height: page.height });
    height += page.height;
  }
  const out = new PNG({ width, height: Math.max(1, height) });
  out.data.fill(GREY);
  decoded.forEach((page, i) => {
    const rowBytes = page.width * 4;
    const top = places[i]!.top;
    for (let y = 0; y < page.height; y++)
      page.data.copy(out.data, (top + y) * width * 4, y * rowBytes, (y + 1) * rowBytes);
  });
  // RGB: the pages are opaque, and a quarter fewer bytes to deflate and store.
  return { png: PNG.sync.write(out, { colorType: 2 }), places };
}
