// The runner of `pdf` and `image` jobs: render through the shared renderer and store the bytes; the
// queue records the result, and this runner's webhook event, in one transaction.
import type { Renderer, RenderOutput } from '../render/renderer.js';
import type { ImageSpec, PdfSpec } from '../domain/render-spec.js';
import { systemClock, type Clock } from '../domain/clock.js';
import type { FileStore } from '../stores/file-store.js';
import type { Tx } from '../stores/backend.js';
import type { JobRecord, JobRequest } from '../stores/jobs.js';
import { recordEvent } from '../webhooks/outbox.js';
import type { JobOf, JobOutcome, JobRunner, RunContext } from './runner.js';
import { jobEventData } from './view.js';
import { renderFailed } from '../errors.js';
import { decodeUpload, uploadKey, type UploadMarker } from './upload-bundle.js';
import type { PdfEngine } from '../pdf/engine.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { UploadedFile } from '../domain/render-spec.js';
import { isPdfWorkFile, pdfWorkFormat, runPdfWork, unpackPdfWork, type PdfWork } from './pdf-work.js';
import { inSpan } from '../tracing/spans.js';

/** The kinds the jobs API submits and shows. A PDF tool's job (/api/pdf/merge, ...) is a `pdf` job too. */
export type RenderJobKind = 'pdf' | 'image';
export const RENDER_JOB_KINDS: readonly RenderJobKind[] = ['pdf', 'image'];

type RenderJobRequest = JobRequest & {
  filename?: string;
  format?: string;
  upload?: UploadMarker;
  /** PDF work, as packed by pdf-work.ts (passwords sealed, files in the upload). */
  pdf?: JobRequest;
};

/** What PDF work needs: the engine, and the SecretBox that sealed its passwords. */
export interface PdfWorkDeps {
  engine: PdfEngine;
  secrets: SecretBox;
}

export class RenderJobRunner implements JobRunner<RenderJobRequest> {
  constructor(
    private readonly renderer: Renderer,
    private readonly results: FileStore,
    private readonly resultTtlMs: number,
    /** The cluster's clock (the database's): the sweeper of any node judges the expiry. */
    private readonly clock: Clock = systemClock,
    private readonly pdf?: PdfWorkDeps,
  ) {}

  async run(job: JobOf<RenderJobRequest>, { signal }: RunContext): Promise<JobOutcome> {
    // Earlier tries of this job died with their worker; a file one of them stored is not a result.
    for (let attempt = 1; attempt < job.attempts; attempt++) await this.results.remove(resultKey(job.id, attempt));
    const key = resultKey(job.id, job.attempts);
    const out = await this.render(job, signal);
    if (signal.aborted) return {}; // nothing stored: nothing to record or discard
    await inSpan('storage', { 'pagewatch.stored': 'result file' }, () => this.results.put(key, out.bytes));
    const now = this.clock.now();
    return {
      result: {
        key,
        contentType: out.contentType,
        bytes: out.bytes.length,
        expiresAt: new Date(now.getTime() + this.resultTtlMs).toISOString(),
        meta: {
          renderMs: out.renderMs,
          finalUrl: out.finalUrl,
          pageCount: out.pageCount,
          truncated: out.truncated,
          diagnostics: out.diagnostics,
        },
      },
    };
  }

  async onSucceeded(tx: Tx, job: JobRecord, _outcome: JobOutcome, now: Date): Promise<void> {
    await this.tell(tx, job, now);
    await this.removeUpload(job);
  }

  async onFailed(tx: Tx, job: JobRecord, now: Date): Promise<void> {
    await this.tell(tx, job, now);
    await this.removeUpload(job);
  }

  /**
   * A job that ended needs its upload no more. Removed in the transaction that ends it, before the commit:
   * should the commit fail, the job is tried again and fails for want of its upload, which says so. A
   * removal that fails is left to the sweeper's orphan pass, rather than undo the job's end.
   */
  private async removeUpload(job: JobRecord): Promise<void> {
    if (job.request.upload) await this.results.remove(uploadKey(job.id)).catch(() => undefined);
  }

  /** Canceled or taken over while it rendered: the file is not this try's result. */
  async discard(outcome: JobOutcome): Promise<void> {
    if (outcome.result) await this.results.remove(outcome.result.key);
  }

  /**
   * The result download needs only the file name and format; headers, cookies, credentials and the PDF
   * work (its sealed passwords with it) are dropped.
   */
  keepAfterFinish(request: RenderJobRequest): JobRequest {
    const work = request.pdf as Pick<PdfWork, 'finishing' | 'tool'> | undefined;
    const format = work ? pdfWorkFormat(work) : request.format;
    const kept: JobRequest = { filename: request.filename ?? null, format: format ?? null };
    if (work?.tool) kept.tool = work.tool;
    if (request.upload) kept.upload = true; // so its end (or a cancel) knows to remove the upload
    return kept;
  }

  private async tell(tx: Tx, job: JobRecord, now: Date): Promise<void> {
    if (!job.webhookUrl) return;
    await recordEvent(
      tx.deliveries,
      {
        keyId: job.keyId,
        url: job.webhookUrl,
        type: job.status === 'succeeded' ? 'job.succeeded' : 'job.failed',
        data: jobEventData(job),
        jobId: job.id,
      },
      now,
    );
  }

  private async render(job: JobOf<RenderJobRequest>, signal: AbortSignal): Promise<RenderOutput> {
    const { upload, pdf, ...request } = job.request;
    const bundle = upload ? await this.uploadOf(job.id) : [];
    const files = bundle.filter((f) => !isPdfWorkFile(f.path));
    const spec = upload ? { ...request, files } : request;
    const work = pdf && this.pdfWork(job.id, pdf, bundle);
    if (job.kind === 'image')
      return this.renderer.renderImage(spec as unknown as ImageSpec, signal, { background: true });
    if (work?.work.tool) {
      const started = performance.now();
      const made = await runPdfWork(work.engine, work.work, undefined, signal);
      return { ...made, renderMs: Math.round(performance.now() - started), truncated: false, blockedRequests: 0 };
    }
    const out = await this.renderer.renderPdf(spec as unknown as PdfSpec, signal, { background: true });
    if (!work) return out;
    // After the render has released its page: the engine's own time bound, not the render's.
    const made = await runPdfWork(work.engine, work.work, out.bytes, signal);
    return { ...out, ...made };
  }

  private pdfWork(jobId: string, stored: JobRequest, bundle: UploadedFile[]) {
    if (!this.pdf) throw new Error('a PDF job needs the PDF engine (RenderJobRunner pdf deps)');
    return { engine: this.pdf.engine, work: unpackPdfWork(stored, bundle, this.pdf.secrets, jobId) };
  }

  private async uploadOf(jobId: string) {
    try {
      return decodeUpload(await this.results.get(uploadKey(jobId)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      throw renderFailed("the job's uploaded files are gone (the job ended once before); submit it again", err);
    }
  }
}

/** Each try stores under its own name, so a late try can never remove another's result. */
export function resultKey(jobId: string, attempt: number): string {
  return `${jobId}-${attempt}`;
}

/** The job a stored result belongs to: the inverse of resultKey. */
export function jobIdOfResultKey(key: string): string {
  return key.replace(/-\d+$/, '');
}
