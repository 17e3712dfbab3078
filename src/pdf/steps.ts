// The pdf-lib steps of the finishing pass, by the option that asks for them: the ONE place a step is
// registered. The engine loads the PDF once in a worker thread, runs the steps whose option is present in
// PDF_LIB_ORDER, and saves once. A step that needs the main thread first (the stamp, drawn by Chromium)
// says so in `prepare`; what it returns reaches `apply` as `prepared`.
import type { PDFDocument } from 'pdf-lib';
import type { PdfFinishing } from '../domain/pdf-spec.js';
import { flattenForms } from './flatten.js';

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

export const PDF_LIB_STEPS: { [K in PdfLibOption]?: PdfLibStep<K> } = {
  flatten: { apply: (doc, on) => (on ? flattenForms(doc) : undefined) },
};

/** The options of `finishing` that have a registered pdf-lib step, in the order they run. */
export function pdfLibStepsFor(finishing: PdfFinishing): PdfLibOption[] {
  return PDF_LIB_ORDER.filter((name) => {
    const option = finishing[name];
    return option !== undefined && option !== false && PDF_LIB_STEPS[name] !== undefined;
  });
}
