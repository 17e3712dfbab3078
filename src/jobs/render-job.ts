// The runner of `pdf` and `image` jobs: render through the shared renderer, store the bytes, record
// the result (and its webhook event) in one transaction.
import type { JobRecord } from '../db/jobs.js';
import type { Renderer, RenderOutput } from '../render/renderer.js';
import type { ImageSpec, PdfSpec, RenderSpec } from '../render/spec.js';
import type { FileStore } from '../storage/file-store.js';
import type { JobQueue } from './queue.js';
import type { JobRunner } from './worker.js';

export class RenderJobRunner implements JobRunner {
  constructor(
    private readonly queue: JobQueue,
    private readonly renderer: Renderer,
    private readonly results: FileStore,
    private readonly resultTtlMs: number,
    /** Called when an event was recorded in the outbox (so the dispatcher sends it now). */
    private readonly onEvent: () => void,
  ) {}

  async run(job: JobRecord, owner: string, signal: AbortSignal): Promise<void> {
    // Earlier tries of this job died with their worker; a file one of them stored is not a result.
    for (let attempt = 1; attempt < job.attempts; attempt++) await this.results.remove(resultKey(job.id, attempt));
    const key = resultKey(job.id, job.attempts);
    const out = await this.render(job, signal);
    if (signal.aborted) return;
    await this.results.put(key, out.bytes);
    const now = new Date();
    const recorded = this.queue.succeed(
      job,
      owner,
      {
        key,
        contentType: out.contentType,
        bytes: out.bytes.length,
        expiresAt: new Date(now.getTime() + this.resultTtlMs).toISOString(),
        meta: { renderMs: out.renderMs, finalUrl: out.finalUrl, pageCount: out.pageCount, truncated: out.truncated },
      },
      now,
    );
    if (recorded) this.onEvent();
    else await this.results.remove(key); // canceled or taken over while it rendered: not this try's result
  }

  private render(job: JobRecord, signal: AbortSignal): Promise<RenderOutput> {
    const request = JSON.parse(job.request) as RenderSpec;
    return job.kind === 'pdf'
      ? this.renderer.renderPdf(request as PdfSpec, signal, { background: true })
      : this.renderer.renderImage(request as ImageSpec, signal, { background: true });
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
