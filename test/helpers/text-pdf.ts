// PDFs of plain paragraphs made with pdf-lib, for the PDF reader of monitors: each page an A4 sheet whose
// paragraphs are drawn one under the other in Helvetica, so poppler finds each as a block of its own.
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';

export const A4 = { width: 595.28, height: 841.89 };
/** Where the first paragraph's baseline is, from the page's top, and the step to the next, in points. */
export const FIRST_BASELINE = 72;
export const PARAGRAPH_STEP = 60;
export const FONT_SIZE = 14;

/** A PDF with one A4 page per entry of `pages`, each paragraph of a page drawn on its own line. */
export async function textPdf(pages: string[][]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const paragraphs of pages) {
    const page = doc.addPage([A4.width, A4.height]);
    paragraphs.forEach((text, i) =>
      page.drawText(text, {
        x: 72,
        y: A4.height - FIRST_BASELINE - i * PARAGRAPH_STEP,
        size: FONT_SIZE,
        font,
        color: rgb(0, 0, 0),
      }),
    );
  }
  return Buffer.from(await doc.save());
}

/** The paragraphs of a price list of `count` pages; `page3Price` is the one thing that changes. */
export function priceList(count: number, page3Price = '120 EUR'): string[][] {
  return Array.from({ length: count }, (_, i) => [
    `Price list page ${i + 1}`,
    i === 2 ? `Price: ${page3Price}` : `Nothing changes on page ${i + 1}`,
    `Item ${i + 1} in stock`,
  ]);
}
