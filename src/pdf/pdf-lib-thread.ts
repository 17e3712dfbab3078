/**
 * worker_threads entry: the one pdf-lib pass of a finishing (steps.ts), started by runPdfLibPass from dist/
 * (compiled). The PDF arrives in a message as a transferred ArrayBuffer, is loaded once, changed by each
 * step in order, saved once, and the result is transferred back; the thread is then ended.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { PDFDocument } from 'pdf-lib';
import type { PdfFinishing } from '../domain/pdf-spec.js';
import { AppError, type ErrorCode, type ErrorDetail } from '../errors.js';
import { PDF_LIB_STEPS, type PdfLibOption, type PdfLibStep } from './steps.js';

export interface PdfLibPassInput {
  pdf: ArrayBuffer;
  steps: PdfLibOption[];
  finishing: PdfFinishing;
  prepared: Partial<Record<PdfLibOption, unknown>>;
}
export type PdfLibPassReply =
  | { ok: true; pdf: ArrayBuffer; pageCount: number }
  | { ok: false; step: string; message: string; refusal?: { code: ErrorCode; details?: ErrorDetail[] } };

const port = parentPort;
if (port === null) throw new Error('src/pdf/pdf-lib-thread.ts must be started as a worker thread');
// Started ahead of need with its modules loaded (PdfLibThreads): the one pass arrives as a message.
port.once('message', (input: PdfLibPassInput) => void pass(port, input));

async function pass(port: MessagePort, input: PdfLibPassInput): Promise<void> {
  let step = 'load';
  try {
    const doc = await PDFDocument.load(new Uint8Array(input.pdf), { updateMetadata: false });
    // pdf-lib copies what it parses: the file as received is let go, so the thread holds two copies at
    // most (the parsed document and the saved one), not three.
    (input as { pdf?: ArrayBuffer }).pdf = undefined;
    for (const name of input.steps) {
      step = name;
      const entry = PDF_LIB_STEPS[name] as PdfLibStep<typeof name> | undefined;
      if (!entry) throw new Error(`no pdf-lib step is registered for ${name}`);
      await entry.apply(doc, input.finishing[name] as never, input.finishing, input.prepared[name]);
    }
    step = 'save';
    const bytes = await doc.save({ useObjectStreams: false });
    // pdf-lib writes into a buffer of exactly the file's size: transferred as it is, not copied.
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const pdf = (whole ? bytes.buffer : bytes.slice().buffer) as ArrayBuffer;
    port.postMessage({ ok: true, pdf, pageCount: doc.getPageCount() } satisfies PdfLibPassReply, [pdf]);
  } catch (err) {
    // A step's own refusal (a 400 naming an option, a 422 saying what PDF/UA lacks) crosses whole.
    port.postMessage({
      ok: false,
      step,
      message: err instanceof Error ? err.message : String(err),
      ...(err instanceof AppError && { refusal: { code: err.code, details: err.extra.details } }),
    } satisfies PdfLibPassReply);
  }
}
