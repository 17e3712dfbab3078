// The PDF engine: qpdf in bounded child processes for reading, joining, encrypting and splitting, and one
// pdf-lib pass in a bounded worker thread for the steps that change the document (steps.ts). Every call
// has one deadline (pdf.timeoutMs) for all its steps, its files in a work directory of its own (removed
// afterwards), and stops its processes when the caller aborts.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PdfFinishing } from '../domain/pdf-spec.js';
import { invalidPdf, invalidRequest } from '../errors.js';
import { checkArchiveOptions, effectivePdfA } from './archive/index.js';
import type { PdfEngine, PdfInput, PdfMetadataRead, PdfProduct } from './engine.js';
import { checkInput, checkPageCount } from './inputs.js';
import { everyPages, parsePageRanges, type PageRange } from './page-ranges.js';
import { PdfLibThreads, runPdfLibPass } from './pdf-lib-pass.js';
import { installedQpdf, qpdfMissing, runQpdf, withWorkDir, type Bounds } from './qpdf.js';
import { encryptArgs, mergeFiles, rewrite } from './qpdf-tools.js';
import { readMetadataOf } from './read-metadata.js';
import { pdfLibStepsFor, type StepContext } from './steps.js';
import { zipFiles } from './zip.js';

export interface PdfEngineLimits {
  /** pdf.timeoutMs: all the work of one call. */
  timeoutMs: number;
  /** pdf.memoryMb: each qpdf process and the pdf-lib worker. */
  memoryMb: number;
  /** pdf.maxPages: pages an input or the output may have. */
  maxPages: number;
  /** pdf.maxFiles: inputs to one call. */
  maxFiles: number;
}

export class QpdfPdfEngine implements PdfEngine {
  private readonly threads = new PdfLibThreads();

  constructor(
    private readonly limits: PdfEngineLimits,
    private readonly renderStamp: StepContext['renderStamp'],
  ) {}

  /** Whether the engine can work here: qpdf installed (its version), or why not. */
  static availability(): { usable: true; qpdf: string } | { usable: false; reason: string } {
    const version = installedQpdf();
    return version
      ? { usable: true, qpdf: version }
      : {
          usable: false,
          reason: 'qpdf is not installed, so the PDF tools answer 503; install it (Debian: apt-get install qpdf)',
        };
  }

  async finish(pdf: Buffer, asked: PdfFinishing, signal?: AbortSignal): Promise<PdfProduct> {
    const finishing = checkFinishing(asked);
    if (!needsWork(finishing)) return { kind: 'pdf', bytes: pdf, pageCount: await this.pageCountOf(pdf, signal) };
    const bounds = this.bounds(signal);
    return withWorkDir(async (dir) => {
      const file = join(dir, 'render.pdf');
      await writeFile(file, pdf);
      return this.finishFile(dir, file, finishing, bounds, false);
    });
  }

  async process(inputs: PdfInput[], asked: PdfFinishing, signal?: AbortSignal): Promise<PdfProduct> {
    const finishing = checkFinishing(asked);
    this.checkFileCount(inputs.length);
    const bounds = this.bounds(signal);
    return withWorkDir(async (dir) => {
      const checked = [];
      for (const [i, input] of inputs.entries())
        checked.push(await checkInput(dir, input, i, bounds, this.limits.maxPages));
      const total = checked.reduce((n, c) => n + c.pageCount, 0);
      checkPageCount(total, this.limits.maxPages, 'the joined PDF');
      const file =
        checked.length === 1
          ? checked[0]!.file
          : await mergeFiles(
              dir,
              checked.map((c) => c.file),
              bounds,
            );
      return this.finishFile(dir, file, finishing, bounds, true);
    });
  }

  async readMetadata(input: PdfInput, signal?: AbortSignal): Promise<PdfMetadataRead> {
    const bounds = this.bounds(signal);
    return withWorkDir(async (dir) => {
      const checked = await checkInput(dir, input, 0, bounds, this.limits.maxPages);
      return readMetadataOf(dir, checked.file, checked.source, checked.passwordArgs, checked.pageCount, bounds);
    });
  }

  /**
   * After the inputs: the pdf-lib pass, the final qpdf rewrite (encrypted when asked), the split and its zip.
   * `byQpdf`: the file was just written by qpdf (a checked or joined upload), so it has its /ID and a clean
   * xref already, and needs no rewrite unless something changes it.
   */
  private async finishFile(
    dir: string,
    file: string,
    finishing: PdfFinishing,
    bounds: Bounds,
    byQpdf: boolean,
  ): Promise<PdfProduct> {
    let current = file;
    let pageCount: number | undefined;
    const steps = pdfLibStepsFor(finishing);
    if (steps.length) {
      const done = await runPdfLibPass(
        await readFile(current),
        steps,
        finishing,
        { renderStamp: this.renderStamp },
        bounds,
        this.threads,
      );
      current = join(dir, 'finished.pdf');
      await writeFile(current, done.bytes);
      pageCount = done.pageCount;
    }
    pageCount ??= await this.countPages(dir, current, bounds);
    checkPageCount(pageCount, this.limits.maxPages, 'the PDF');

    if (!finishing.split && !finishing.encrypt && byQpdf && !steps.length)
      return { kind: 'pdf', bytes: await readFile(current), pageCount };
    if (!finishing.split) {
      const out = join(dir, 'out.pdf');
      await rewrite(dir, current, out, bounds, { encrypt: finishing.encrypt });
      return { kind: 'pdf', bytes: await readFile(out), pageCount };
    }
    const ranges: PageRange[] =
      finishing.split.ranges !== undefined
        ? parsePageRanges(finishing.split.ranges, pageCount, 'split.ranges')
        : everyPages(finishing.split.every!, pageCount);
    const parts = [];
    for (const [i, range] of ranges.entries()) {
      const name = `part-${i + 1}.pdf`;
      const out = join(dir, name);
      await rewrite(dir, current, out, bounds, { encrypt: finishing.encrypt, range });
      parts.push({ name, pageCount: range.to - range.from + 1, bytes: await readFile(out) });
    }
    const bytes = await zipFiles(parts);
    return { kind: 'zip', bytes, parts: parts.map(({ name, pageCount: n }) => ({ name, pageCount: n })) };
  }

  private bounds(signal?: AbortSignal): Bounds {
    if (!installedQpdf()) throw qpdfMissing();
    const { timeoutMs, memoryMb } = this.limits;
    return { deadline: Date.now() + timeoutMs, timeoutMs, memoryMb, signal };
  }

  private checkFileCount(count: number): void {
    const { maxFiles } = this.limits;
    if (count < 1) throw invalidRequest('Send at least one PDF.', [{ path: 'files', message: 'no PDF given' }]);
    if (count > maxFiles)
      throw invalidRequest(`${count} PDFs were sent; one call takes at most ${maxFiles} (pdf.maxFiles).`, [
        { path: 'files', message: `${count} PDFs; the limit is ${maxFiles}` },
      ]);
  }

  private async countPages(dir: string, file: string, bounds: Bounds): Promise<number> {
    const { stdout } = await runQpdf(dir, ['--show-npages', file], bounds, () =>
      invalidPdf('The PDF’s pages cannot be counted.'),
    );
    return Number(stdout.toString().trim());
  }

  private pageCountOf(pdf: Buffer, signal?: AbortSignal): Promise<number> {
    const bounds = this.bounds(signal);
    return withWorkDir(async (dir) => {
      const file = join(dir, 'render.pdf');
      await writeFile(file, pdf);
      return this.countPages(dir, file, bounds);
    });
  }
}

/** Whether `finishing` asks for anything at all (a request without options costs nothing). */
function needsWork(finishing: PdfFinishing): boolean {
  return Object.values(finishing).some((v) => v !== undefined && v !== false);
}

/**
 * Option combinations the engine refuses before any work; what it returns is what the work does: an
 * e-invoice is a PDF/A-3b file whether or not pdfa was given.
 */
function checkFinishing(finishing: PdfFinishing): PdfFinishing {
  // Among them: encrypt with pdfa (or facturx, which is PDF/A-3b), since PDF/A forbids encryption.
  const problems = checkArchiveOptions(finishing);
  if (problems.length > 0) throw invalidRequest('The PDF options cannot be combined as given.', problems);
  if (finishing.encrypt) encryptArgs(finishing.encrypt); // its passwords checked before any work
  const split = finishing.split;
  if (split && (split.ranges === undefined) === (split.every === undefined))
    throw invalidRequest('split takes exactly one of ranges and every.', [
      { path: 'split', message: 'give exactly one of ranges and every' },
    ]);
  if (split?.every !== undefined && !(Number.isInteger(split.every) && split.every >= 1))
    throw invalidRequest('split.every must be a whole number of pages, at least 1.', [
      { path: 'split.every', message: 'must be a whole number, at least 1' },
    ]);
  const pdfa = effectivePdfA(finishing);
  return pdfa === finishing.pdfa ? finishing : { ...finishing, pdfa };
}
