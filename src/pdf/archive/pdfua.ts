// PDF/UA-1 (ISO 14289-1): Chromium's tagged output carries the structure tree, MarkInfo, /Lang from
// <html lang> and /Title from <title>; this checks those are there, shows the title in the window
// (7.1 / Matterhorn 07-001), orders each page's annotations by structure (7.18.3: /Tabs /S), gives each
// link a description (7.18.5: /Contents, which Chromium leaves out) and claims pdfuaid:part 1 with
// dc:title in the XMP (7.1 / Matterhorn 06-002, 06-003).
import { PDFArray, PDFBool, PDFDict, PDFDocument, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import type { PdfMetadata } from '../../domain/pdf-spec.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { syncXmp, titleAndLanguage } from './metadata.js';

/**
 * What the rendered page itself declared: document.title and <html lang> ('' when absent). Needed because
 * Chromium fills the gaps: a page without <title> gets its URL as /Title ("about:blank"), one without
 * lang gets the browser's locale as /Lang, and neither can be told apart from a declared one afterwards.
 */
export interface DeclaredPage {
  title: string;
  language: string;
}

/** A title that is only a URL: what Chromium writes for a page without <title>. */
const isUrlTitle = (title: string): boolean => /^(about|data|blob|file|https?):\S*$/i.test(title);

/**
 * What keeps the document from being PDF/UA, as details (empty: nothing). The title and language count
 * when the metadata sets them, or the page declared them (`page`, after a render), or (an uploaded PDF)
 * the PDF has them, a URL-only title not counting.
 */
export function pdfUaProblems(doc: PDFDocument, page?: DeclaredPage, metadata?: PdfMetadata): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const marked = doc.catalog.lookupMaybe(PDFName.of('MarkInfo'), PDFDict)?.get(PDFName.of('Marked'));
  if (!doc.catalog.has(PDFName.of('StructTreeRoot')) || marked !== PDFBool.True)
    problems.push({
      path: 'pdfua',
      message: 'the PDF is not tagged (no structure tree, or MarkInfo Marked is not true)',
    });
  const inPdf = titleAndLanguage(doc);
  const title =
    metadata?.title?.trim() || (page ? page.title.trim() : inPdf.title && !isUrlTitle(inPdf.title) ? inPdf.title : '');
  const language = metadata?.language?.trim() || (page ? page.language.trim() : (inPdf.language ?? ''));
  if (!title)
    problems.push({
      path: 'metadata.title',
      message: 'a PDF/UA document needs a title: give the page a <title> or set metadata.title',
    });
  if (!language)
    problems.push({
      path: 'metadata.language',
      message: 'a PDF/UA document needs a language: give the page <html lang="…"> or set metadata.language',
    });
  return problems;
}

/**
 * A link without /Contents gets its target as its description: the URI, which says where it goes in any
 * language (the link's own text is already in the structure tree, under its Link element).
 */
function describeLink(annot: PDFDict | undefined): void {
  if (!annot || annot.get(PDFName.of('Subtype')) !== PDFName.of('Link') || annot.has(PDFName.of('Contents'))) return;
  const uri = annot.lookupMaybe(PDFName.of('A'), PDFDict)?.lookup(PDFName.of('URI'));
  const target = uri instanceof PDFString || uri instanceof PDFHexString ? uri.decodeText() : 'Link';
  annot.set(PDFName.of('Contents'), PDFHexString.fromText(target));
}

/**
 * Makes the document PDF/UA-1, or throws 422 render_failed naming what it lacks (a title, a language,
 * tags): the request is valid, the page is what falls short.
 */
export function makePdfUA(doc: PDFDocument, page?: DeclaredPage, metadata?: PdfMetadata): void {
  const problems = pdfUaProblems(doc, page, metadata);
  if (problems.length > 0)
    throw new AppError(
      'render_failed',
      `The PDF cannot be made PDF/UA: ${problems.map((p) => p.message).join('; ')}.`,
      { details: problems },
    );
  let prefs = doc.catalog.lookupMaybe(PDFName.of('ViewerPreferences'), PDFDict);
  if (!prefs) {
    prefs = doc.context.obj({});
    doc.catalog.set(PDFName.of('ViewerPreferences'), prefs);
  }
  prefs.set(PDFName.of('DisplayDocTitle'), PDFBool.True);
  for (const page of doc.getPages()) {
    const annots = page.node.lookupMaybe(PDFName.of('Annots'), PDFArray);
    if (!annots) continue;
    page.node.set(PDFName.of('Tabs'), PDFName.of('S'));
    for (let i = 0; i < annots.size(); i++) describeLink(annots.lookupMaybe(i, PDFDict));
  }
  syncXmp(doc, { pdfua: 1 });
}
