// singlePage (Gotenberg's name): the whole document on one PDF page as tall as its content. The paper's width
// comes from format (its long side with landscape) or width; the content is measured at the width it will be
// printed at (that width less the margins, divided by scale), in the render's media, once the page is ready.
import type { Page } from 'playwright';
import type { CssLength, PaperFormat, PdfSpec } from '../../domain/render-spec.js';

/** Paper sizes in inches, as Playwright prints them (its PagePaperFormats). */
const PAPER_INCHES: Record<PaperFormat, { width: number; height: number }> = {
  Letter: { width: 8.5, height: 11 },
  Legal: { width: 8.5, height: 14 },
  Tabloid: { width: 11, height: 17 },
  A3: { width: 11.7, height: 16.54 },
  A4: { width: 8.27, height: 11.7 },
  A5: { width: 5.83, height: 8.27 },
};

const PX_PER_UNIT: Record<string, number> = { px: 1, in: 96, cm: 96 / 2.54, mm: 96 / 25.4 };

/**
 * Chromium's tallest page, in CSS px: 200 inches, the largest page PDF viewers are bound to show (PDF 1.7,
 * Annex C). Content taller than this continues on further pages of that height.
 */
export const MAX_SINGLE_PAGE_PX = 200 * 96;

/** A schema-checked CSS length ("10mm", "1in", " 96 px ", 96) in CSS pixels. */
export function cssPx(length: CssLength): number {
  if (typeof length === 'number') return length;
  const text = length.trim();
  const unit = text.slice(-2).toLowerCase();
  const perUnit = PX_PER_UNIT[unit];
  return parseFloat(text) * (perUnit ?? 1);
}

export interface SinglePageSize {
  width: string;
  height: string;
  /** The content's height as measured, CSS px (for the record). */
  contentPx: number;
}

/**
 * The paper for singlePage: the request's width, and the content's height plus the vertical margins. The
 * viewport is set to the printed width for the measure (layout that depends on width, such as wrapped text,
 * then has the height it will have on paper); the next render sets its own viewport as always.
 */
export async function singlePageSize(
  page: Page,
  req: PdfSpec,
  margin: Record<string, string>,
): Promise<SinglePageSize> {
  const paper = req.format !== undefined || req.width === undefined ? PAPER_INCHES[req.format ?? 'A4'] : undefined;
  const widthPx = paper ? (req.landscape ? paper.height : paper.width) * 96 : cssPx(req.width!);
  const printedWidth = Math.max(1, Math.floor((widthPx - cssPx(margin.left!) - cssPx(margin.right!)) / req.scale));
  const viewport = page.viewportSize();
  if (viewport?.width !== printedWidth)
    await page.setViewportSize({ width: printedWidth, height: viewport?.height ?? 800 });
  const contentPx = await page.evaluate(() => {
    const root = document.documentElement;
    // The root's box is the content (the viewport's height does not count, as scrollHeight would make it);
    // scrollHeight adds what overflows the root, such as absolutely placed content.
    const box = root.getBoundingClientRect().height;
    return Math.ceil(root.scrollHeight > innerHeight ? Math.max(box, root.scrollHeight) : box);
  });
  // One px of slack: Chromium rounds the page's content area, and a page a fraction short adds a blank page.
  const heightPx = Math.min(
    MAX_SINGLE_PAGE_PX,
    Math.ceil(contentPx * req.scale + cssPx(margin.top!) + cssPx(margin.bottom!)) + 1,
  );
  return { width: `${widthPx}px`, height: `${heightPx}px`, contentPx };
}
