// The pdf-lib steps of the finishing pass, by the option that asks for them: the ONE place a step is
// registered. The engine loads the PDF once in a worker thread, runs the steps whose option is present in
// PDF_LIB_ORDER, and saves once. A step that needs the main thread first (the stamp, drawn by Chromium)
// says so in `prepare`; what it returns reaches `apply` as `prepared`.
import type { PDFDocument } from 'pdf-lib';
import type { PdfFinishing } from '../domain/pdf-spec.js';
import { flattenForms } from './flatten.js';
import { applyMetadata, attachFiles, attachInvoice, effectivePdfA, makePdfA, makePdfUA } from './archive/index.js';
import { applyStamp } from './stamp/apply-stamp.js';
import { stampPage } from './stamp/stamp-page.js';

/** What the main thread offers a step's `prepare` (set by the engine's constructor). */
export interface StepContext {
  renderStamp: (page: { html: string; widthPt: number; heightPt: number }) => Promise<Buffer>;
}

export interface PdfLibStep<K extends keyof PdfFinishing> {
  /** Main thread, before the worker starts: e.g. render a stamp page. Its result must be structured-cloneable. */
  prepare?: (option: NonNullable<PdfFinishing[K]>, finishing: PdfFinishing, context: StepContext) => Promise<unknown>;
  /** Worker thread: change the loaded document in place. */
  apply: (
    doc: PDFDocument,
    option: NonNullable<PdfFinishing[K]>,
    finishing: PdfFinishing,
    prepared: unknown,
  ) => Promise<void> | void;
}

/** The order the steps run in: forms flattened before anything draws over them; PDF/A last, over the result. */
export const PDF_LIB_ORDER = [
  'flatten',
  'metadata',
  'embeds',
  'facturx',
  'watermark',
  'stamp',
  'pdfua',
  'pdfa',
] as const satisfies readonly (keyof PdfFinishing)[];
export type PdfLibOption = (typeof PDF_LIB_ORDER)[number];

/** A watermark or stamp: its page printed by Chromium on the main thread, then drawn in the worker. */
const stampStep = (layer: 'under' | 'over'): PdfLibStep<'watermark' | 'stamp'> => ({
  prepare: (stamp, _finishing, context) =>
    context.renderStamp(stampPage(stamp, layer === 'under' ? 'watermark' : 'stamp')),
  apply: (doc, stamp, _finishing, prepared) => applyStamp(doc, prepared as Uint8Array, stamp, layer),
});

export const PDF_LIB_STEPS: { [K in PdfLibOption]?: PdfLibStep<K> } = {
  flatten: { apply: (doc, on) => (on ? flattenForms(doc) : undefined) },
  metadata: { apply: (doc, metadata) => applyMetadata(doc, metadata, new Date()) },
  embeds: { apply: (doc, files) => attachFiles(doc, files, new Date()) },
  facturx: { apply: (doc, invoice) => attachInvoice(doc, invoice, new Date()) },
  watermark: stampStep('under'),
  stamp: stampStep('over'),
  pdfua: { apply: (doc, on, finishing) => (on ? makePdfUA(doc, undefined, finishing.metadata) : undefined) },
  // An e-invoice is a PDF/A-3b file whether or not pdfa is given (the engine sets pdfa for it).
  pdfa: { apply: (doc, _level, finishing) => makePdfA(doc, effectivePdfA(finishing)!) },
};

/** The options of `finishing` that have a registered pdf-lib step, in the order they run. */
export function pdfLibStepsFor(finishing: PdfFinishing): PdfLibOption[] {
  return PDF_LIB_ORDER.filter((name) => {
    const option = finishing[name];
    return option !== undefined && option !== false && PDF_LIB_STEPS[name] !== undefined;
  });
}
