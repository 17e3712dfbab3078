// The pdf-lib worker's bounds, on the object-stream bomb handed to it directly (the engine's qpdf checks
// would stop it first): pdf-lib inflates object streams while loading, so this file runs the thread out
// of heap in ~4 s. The time bound, an abort and the memory bound each end the thread with their error.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { PdfLibThreads, runPdfLibPass } from '../../src/pdf/pdf-lib-pass.js';
import type { Bounds } from '../../src/pdf/qpdf.js';
import { projectRoot } from '../../src/project-root.js';

const bomb = () => readFileSync(join(projectRoot(), 'test/fixtures/pdf-hostile/objstm-bomb.pdf'));
const context = { renderStamp: () => Promise.reject(new Error('no stamps here')) };
// Over a bound: posting the file to the thread and terminating it.
const SLACK_MS = 1000;

async function pass(bounds: Omit<Bounds, 'deadline'>): Promise<{ error: AppError; ms: number }> {
  const started = Date.now();
  const error = await runPdfLibPass(bomb(), ['flatten'], { flatten: true }, context, {
    ...bounds,
    deadline: started + bounds.timeoutMs,
  }).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(AppError);
  return { error: error as AppError, ms: Date.now() - started };
}

describe('the pdf-lib thread under its bounds', () => {
  it('is terminated at the deadline: 422 naming pdf.timeoutMs', async () => {
    const { error, ms } = await pass({ timeoutMs: 1000, memoryMb: 2048 });
    expect(error.code).toBe('invalid_pdf');
    expect(error.message).toMatch(/did not finish within the limit of 1 s \(pdf\.timeoutMs\)/);
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(ms).toBeLessThan(1000 + SLACK_MS);
  });

  it('is terminated when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const { error, ms } = await pass({ timeoutMs: 30_000, memoryMb: 2048, signal: controller.signal });
    expect(error.message).toBe('The PDF processing was cancelled.');
    expect(ms).toBeLessThan(300 + SLACK_MS);
  });

  it('runs out of its heap: 422 naming pdf.memoryMb', async () => {
    const { error } = await pass({ timeoutMs: 30_000, memoryMb: 256 });
    expect(error.code).toBe('invalid_pdf');
    expect(error.message).toMatch(/needed more than the memory limit of 256 MiB \(pdf\.memoryMb\)/);
  });
});

describe('the spare thread', () => {
  /** The threads a pass took, in order. */
  class RecordingThreads extends PdfLibThreads {
    readonly taken: Worker[] = [];
    override take(memoryMb: number): Worker {
      const worker = super.take(memoryMb);
      this.taken.push(worker);
      return worker;
    }
  }
  const spareOf = (threads: PdfLibThreads) => (threads as unknown as { spare?: { worker: Worker } }).spare?.worker;
  const onePage = async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    return Buffer.from(await doc.save());
  };
  const bounds = () => ({ timeoutMs: 30_000, memoryMb: 512, deadline: Date.now() + 30_000 });

  it('is started after a pass and serves the next one; each pass has a thread of its own, ended after it', async () => {
    const threads = new RecordingThreads();
    try {
      expect(spareOf(threads)).toBeUndefined(); // none before a first pass: an unused engine starts nothing
      const first = await runPdfLibPass(
        await onePage(),
        ['metadata'],
        { metadata: { author: 'A' } },
        context,
        bounds(),
        threads,
      );
      expect(first.pageCount).toBe(1);
      const spare = spareOf(threads);
      expect(spare).toBeInstanceOf(Worker);
      expect(spare).not.toBe(threads.taken[0]);
      await runPdfLibPass(await onePage(), ['metadata'], { metadata: { author: 'B' } }, context, bounds(), threads);
      expect(threads.taken[1]).toBe(spare);
      // Both passes' threads were ended (exit resolves at once for an ended thread); a new spare waits.
      for (const used of threads.taken) expect(await used.terminate()).toBeUndefined();
      expect(spareOf(threads)).toBeInstanceOf(Worker);
      expect(spareOf(threads)).not.toBe(spare);
    } finally {
      await threads.stop();
    }
  });
});
