// The archive steps of a finishing, in the engine's order (metadata, embeds, facturx, then pdfua and pdfa
// last, so their checks and claims see the final document), and the checks that refuse a finishing
// before any work is done.
import type { PDFDocument } from 'pdf-lib';
import type { PdfALevel, PdfFinishing } from '../../domain/pdf-spec.js';
import { invalidRequest, type ErrorDetail } from '../../errors.js';
import { attachFiles } from './attachments.js';
import { attachInvoice, checkInvoiceXml, FACTURX_PROFILES, invoiceLevel } from './facturx.js';
import { applyMetadata, checkMetadata } from './metadata.js';
import { makePdfA } from './pdfa.js';
import { makePdfUA, type DeclaredPage } from './pdfua.js';

/** The PDF/A level the finishing produces: the one asked for, or PDF/A-3b for an e-invoice. */
export function effectivePdfA(finishing: PdfFinishing): PdfALevel | undefined {
  return finishing.facturx ? 'PDF/A-3b' : finishing.pdfa;
}

/** Every reason to refuse these archive options (400), before the PDF is touched. */
export function checkArchiveOptions(finishing: PdfFinishing): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (finishing.metadata) problems.push(...checkMetadata(finishing.metadata));
  const level = effectivePdfA(finishing);
  if (finishing.pdfa === 'PDF/A-2b') {
    // ISO 19005-2 6.8: embedded files must themselves be PDF/A; PDF/A-3 lifts that.
    if (finishing.embeds?.length)
      problems.push({ path: 'embeds', message: 'PDF/A-2b allows no attached files: use pdfa "PDF/A-3b"' });
    if (finishing.facturx)
      problems.push({
        path: 'facturx',
        message: 'an e-invoice is a PDF/A-3b file: use pdfa "PDF/A-3b" or leave pdfa out',
      });
  }
  // ISO 19005-2 6.1.3: no encryption.
  if (level && finishing.encrypt)
    problems.push({
      path: 'encrypt',
      message: `a PDF/A file cannot be encrypted${finishing.facturx ? ' (an e-invoice is PDF/A-3b)' : ''}`,
    });
  if (finishing.facturx) {
    if (!invoiceLevel(finishing.facturx.profile))
      problems.push({ path: 'facturx.profile', message: `must be one of ${FACTURX_PROFILES.join(', ')}` });
    else {
      const fileName = invoiceLevel(finishing.facturx.profile)!.fileName;
      finishing.embeds?.forEach((e, i) => {
        if (e.name === fileName)
          problems.push({ path: `embeds[${i}].name`, message: `${fileName} is the e-invoice's own attachment` });
      });
    }
    problems.push(...checkInvoiceXml(finishing.facturx.xml));
  }
  const seen = new Set<string>();
  finishing.embeds?.forEach((e, i) => {
    if (seen.has(e.name)) problems.push({ path: `embeds[${i}].name`, message: 'is the name of an earlier attachment' });
    seen.add(e.name);
  });
  return problems;
}

/**
 * Runs the archive steps the finishing asks for on the loaded document (the engine saves it once after).
 * `page`: what the rendered page declared (after a render; absent for an uploaded PDF), for PDF/UA.
 */
export function finishArchive(doc: PDFDocument, finishing: PdfFinishing, now: Date, page?: DeclaredPage): void {
  const problems = checkArchiveOptions(finishing);
  if (problems.length > 0) throw invalidRequest('The PDF options cannot be combined as given.', problems);
  if (finishing.metadata) applyMetadata(doc, finishing.metadata, now);
  if (finishing.embeds?.length) attachFiles(doc, finishing.embeds, now);
  if (finishing.facturx) attachInvoice(doc, finishing.facturx, now);
  if (finishing.pdfua) makePdfUA(doc, page, finishing.metadata);
  const level = effectivePdfA(finishing);
  if (level) makePdfA(doc, level);
}
