// The pdf-lib steps run in a worker thread, not a child process. Measured on the 2-core box, both cost
// about the same to start (~0.3 s, most of it loading pdf-lib; a spare thread started after each pass
// hides it from the next, see PdfLibThreads), but a thread takes the PDF as a transferred
// ArrayBuffer and hands the result back the same way, where a child process would copy the bytes through
// a pipe both ways. Its heap is bounded (resourceLimits, pdf.memoryMb) and
// it is terminated when the deadline passes or the caller aborts. Uploads reach it already checked and
// rewritten by qpdf without object streams, so pdf-lib parses only: a compressed bomb never inflates here.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PdfFinishing } from '../domain/pdf-spec.js';
import { AppError, invalidPdf } from '../errors.js';
import { projectRoot } from '../project-root.js';
import { aborted, pdfOutOfMemory, pdfTimeout, type Bounds } from './qpdf.js';
import type { PdfLibPassInput, PdfLibPassReply } from './pdf-lib-thread.js';
import { PDF_LIB_STEPS, type PdfLibOption, type StepContext } from './steps.js';

/** The compiled thread script: a worker cannot load .ts, so even under vitest this runs dist/. */
export const PDF_LIB_THREAD_SCRIPT = join(projectRoot(), 'dist/src/pdf/pdf-lib-thread.js');

const startThread = (memoryMb: number) =>
  new Worker(PDF_LIB_THREAD_SCRIPT, { resourceLimits: { maxOldGenerationSizeMb: memoryMb } });

/**
 * A thread started ahead of the next pass, so that pass does not wait for pdf-lib to load (most of a small
 * document's finishing time). Each pass still has a thread of its own, ended after it: nothing of one
 * document stays for the next. The spare is started only after a first pass, so a service that never
 * finishes a PDF never starts one; it does not keep the process alive.
 */
export class PdfLibThreads {
  private spare?: { worker: Worker; memoryMb: number };

  /** The spare if it is ready for this bound, else a thread started now. */
  take(memoryMb: number): Worker {
    const spare = this.spare;
    this.spare = undefined;
    if (spare?.memoryMb === memoryMb) {
      spare.worker.ref();
      return spare.worker;
    }
    void spare?.worker.terminate();
    return startThread(memoryMb);
  }

  /** Starts the spare for the next pass, unless one is there. */
  refill(memoryMb: number): void {
    if (this.spare) return;
    const worker = startThread(memoryMb);
    worker.unref();
    const spare = { worker, memoryMb };
    // A spare that dies unused (it should not) is simply forgotten; the next pass starts its own.
    worker.once('exit', () => {
      if (this.spare === spare) this.spare = undefined;
    });
    worker.once('error', () => undefined);
    this.spare = spare;
  }

  async stop(): Promise<void> {
    const spare = this.spare;
    this.spare = undefined;
    await spare?.worker.terminate();
  }
}

/**
 * Loads `pdf` once, applies `steps` in order, saves once (no object streams). `pdf`'s memory is handed to
 * the worker (the Buffer is unusable afterwards) when it owns its whole ArrayBuffer; else it is copied once.
 */
export async function runPdfLibPass(
  pdf: Buffer,
  steps: PdfLibOption[],
  finishing: PdfFinishing,
  context: StepContext,
  bounds: Bounds,
  threads?: PdfLibThreads,
): Promise<{ bytes: Buffer; pageCount: number }> {
  if (!existsSync(PDF_LIB_THREAD_SCRIPT))
    throw new Error(`pdf-lib thread script ${PDF_LIB_THREAD_SCRIPT} not found: run \`npm run build\` first`);
  const prepared: PdfLibPassInput['prepared'] = {};
  for (const name of steps) {
    const prepare = PDF_LIB_STEPS[name]?.prepare as
      ((o: unknown, f: PdfFinishing, c: StepContext) => Promise<unknown>) | undefined;
    if (prepare) prepared[name] = await prepare(finishing[name], finishing, context);
  }
  const owned = pdf.byteOffset === 0 && pdf.byteLength === pdf.buffer.byteLength;
  const buffer = (
    owned ? pdf.buffer : pdf.buffer.slice(pdf.byteOffset, pdf.byteOffset + pdf.byteLength)
  ) as ArrayBuffer;
  const input: PdfLibPassInput = { pdf: buffer, steps, finishing, prepared };
  if (bounds.signal?.aborted) throw aborted();
  const remaining = bounds.deadline - Date.now();
  if (remaining <= 0) throw pdfTimeout(bounds.timeoutMs);
  const worker = threads ? threads.take(bounds.memoryMb) : startThread(bounds.memoryMb);
  let onAbort = () => {};
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(pdfTimeout(bounds.timeoutMs)), remaining);
      const settle = (fn: () => void) => {
        clearTimeout(timer);
        fn();
      };
      onAbort = () => settle(() => reject(aborted()));
      bounds.signal?.addEventListener('abort', onAbort, { once: true });
      worker.once('message', (reply: PdfLibPassReply) =>
        settle(() => {
          if (reply.ok) resolve({ bytes: Buffer.from(reply.pdf), pageCount: reply.pageCount });
          else if (reply.refusal)
            reject(new AppError(reply.refusal.code, reply.message, { details: reply.refusal.details }));
          else
            reject(
              invalidPdf(`The PDF could not be finished (${reply.step}): ${reply.message}.`, [
                { path: reply.step, message: reply.message },
              ]),
            );
        }),
      );
      worker.once('error', (err: Error & { code?: string }) =>
        settle(() => reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? pdfOutOfMemory(bounds.memoryMb) : err)),
      );
      worker.once('exit', (code) => settle(() => reject(new Error(`pdf-lib thread exited with code ${code}`))));
      worker.postMessage(input, [buffer]);
    });
  } finally {
    bounds.signal?.removeEventListener('abort', onAbort);
    await worker.terminate();
    threads?.refill(bounds.memoryMb);
  }
}
