// The fonts a PDF uses, read from its pages' resources with pdf-lib (what `pdffonts` lists: poppler is
// not installed everywhere the tests run): each font's name without its subset prefix, and whether its
// glyphs are in the PDF. Chromium (Skia) writes CFF-flavoured OpenType fonts, Noto Sans CJK among them, as
// Type 3 fonts: glyph outlines drawn by the PDF itself, no BaseFont, the font's name only in their
// FontDescriptor (pdffonts lists those as "[none]").
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRef, type PDFObject } from 'pdf-lib';

export interface PdfFont {
  /** "NotoSansCJKjp-Regular" (the "ABCDEF+" subset tag removed). */
  name: string;
  /** The font's program (FontFile*) or its glyph procedures (Type 3) are in the PDF. */
  embedded: boolean;
  type: string;
}

export async function pdfFonts(bytes: Uint8Array): Promise<PdfFont[]> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const deref = (obj: PDFObject | undefined): PDFObject | undefined =>
    obj instanceof PDFRef ? doc.context.lookup(obj) : obj;
  const dict = (obj: PDFObject | undefined) => {
    const d = deref(obj);
    return d instanceof PDFDict ? d : undefined;
  };
  const fonts = new Map<string, PdfFont>();
  const descriptorOf = (font: PDFDict) => {
    const descendants = deref(font.get(PDFName.of('DescendantFonts')));
    const target = descendants instanceof PDFArray ? (dict(descendants.get(0)) ?? font) : font;
    return dict(target.get(PDFName.of('FontDescriptor')));
  };
  for (const page of doc.getPages()) {
    const resources = dict(page.node.get(PDFName.of('Resources')));
    const fontDict = dict(resources?.get(PDFName.of('Font')));
    for (const [, ref] of fontDict?.entries() ?? []) {
      const font = dict(ref);
      if (!font) continue;
      const descriptor = descriptorOf(font);
      const named = deref(font.get(PDFName.of('BaseFont'))) ?? deref(descriptor?.get(PDFName.of('FontName')));
      if (!(named instanceof PDFName)) continue;
      const name = named.decodeText().replace(/^[A-Z]{6}\+/, '');
      const subtype = deref(font.get(PDFName.of('Subtype')));
      const type = subtype instanceof PDFName ? subtype.decodeText() : '';
      const embedded =
        type === 'Type3'
          ? font.get(PDFName.of('CharProcs')) !== undefined
          : ['FontFile', 'FontFile2', 'FontFile3'].some((k) => descriptor?.get(PDFName.of(k)) !== undefined);
      const known = fonts.get(name);
      fonts.set(name, { name, type: known?.type ?? type, embedded: (known?.embedded ?? false) || embedded });
    }
  }
  return [...fonts.values()];
}
