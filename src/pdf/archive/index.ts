// The archive steps the PDF engine runs on a loaded document: metadata and XMP, attachments, Factur-X,
// PDF/UA and PDF/A; and the conformance a PDF's XMP claims, for reading metadata.
export { applyMetadata, checkMetadata, readArchiveClaims, readXmp, syncXmp } from './metadata.js';
export { attachFiles } from './attachments.js';
export { attachInvoice, checkInvoiceXml, FACTURX_PROFILES, invoiceLevel } from './facturx.js';
export { makePdfUA, pdfUaProblems, type DeclaredPage } from './pdfua.js';
export { makePdfA } from './pdfa.js';
export { checkArchiveOptions, effectivePdfA, finishArchive } from './finish.js';
