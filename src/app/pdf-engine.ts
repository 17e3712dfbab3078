// The PDF engine as the service runs it: qpdf and pdf-lib under the `pdf.*` bounds, with watermark and
// stamp pages drawn by the service's own renderer (Chromium, the same fonts and egress policy as a render).
import type { Config } from '../config.js';
import { pdfRequestSchema } from '../http/schemas/render.js';
import type { PdfFinishing } from '../domain/pdf-spec.js';
import type { PdfEngine, PdfInput } from '../pdf/engine.js';
import { QpdfPdfEngine } from '../pdf/pdf-engine.js';
import { RenderLimiter } from '../render/limiter.js';
import type { Renderer } from '../render/renderer.js';

export function composePdfEngine(config: Readonly<Config>, renderer: Renderer): QpdfPdfEngine {
  // The stamp's page as a render request with every default filled in, as the API would take it.
  const schema = pdfRequestSchema(config.limits);
  const renderStamp = async ({ html, widthPt, heightPt }: { html: string; widthPt: number; heightPt: number }) => {
    const spec = schema.parse({
      html,
      width: `${widthPt / 72}in`,
      height: `${heightPt / 72}in`,
      margin: { top: 0, right: 0, bottom: 0, left: 0 },
      pageRanges: '1',
      printBackground: true,
      omitBackground: true, // transparent: the page under it shows through
      tagged: false, // an artifact: the document's tags stay the page's own
      javaScriptEnabled: false, // the stamp's page needs none: its text and image are the caller's
    });
    const out = await renderer.renderPdf(spec, new AbortController().signal, { background: true });
    return out.bytes;
  };
  return new QpdfPdfEngine(config.pdf, renderStamp);
}

/**
 * The engine as synchronous requests use it: at most `pdf.concurrency` calls at once (each may hold a qpdf
 * process and a pdf-lib worker of up to `pdf.memoryMb`), up to `pdf.queueSize` more waiting, and beyond that
 * 429 queue_full. Async jobs use the engine itself: the job worker already bounds how many run.
 */
export class LimitedPdfEngine implements PdfEngine {
  private readonly limiter: RenderLimiter;

  constructor(
    private readonly engine: PdfEngine,
    limits: { concurrency: number; queueSize: number },
  ) {
    this.limiter = new RenderLimiter(limits.concurrency, limits.queueSize, undefined, 'PDF');
  }

  finish(pdf: Buffer, finishing: PdfFinishing, signal?: AbortSignal) {
    return this.limiter.run(signal ?? NEVER, () => this.engine.finish(pdf, finishing, signal));
  }

  process(inputs: PdfInput[], finishing: PdfFinishing, signal?: AbortSignal) {
    return this.limiter.run(signal ?? NEVER, () => this.engine.process(inputs, finishing, signal));
  }

  readMetadata(input: PdfInput, signal?: AbortSignal) {
    return this.limiter.run(signal ?? NEVER, () => this.engine.readMetadata(input, signal));
  }
}

const NEVER = new AbortController().signal;
