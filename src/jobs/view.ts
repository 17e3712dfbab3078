// A job as the API shows it (docs/async-jobs.md), and the thin data of its webhook events.
import { diagnosticsCounts, type RenderDiagnostics } from '../domain/render-diagnostics.js';
import type { JobRecord } from '../stores/jobs.js';
import type { RenderJobKind } from './render-job.js';

export interface JobView {
  id: string;
  kind: RenderJobKind;
  status: JobRecord['status'];
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  attempts: number;
  error?: { code: string; message: string };
  result?: {
    url: string;
    contentType: string;
    bytes: number;
    expiresAt: string;
    expired: boolean;
    diagnostics?: RenderDiagnostics;
  };
  webhookUrl?: string;
}

export function resultUrl(job: JobRecord): string {
  return `${job.baseUrl}/api/jobs/${job.id}/result`;
}

export function jobView(job: JobRecord, now = new Date()): JobView {
  return {
    id: job.id,
    kind: job.kind as RenderJobKind, // the jobs API never returns capture jobs
    status: job.status,
    createdAt: job.createdAt,
    ...(job.startedAt && { startedAt: job.startedAt }),
    ...(job.finishedAt && { finishedAt: job.finishedAt }),
    attempts: job.attempts,
    // A job that was retried keeps its last error while queued again; it shows once the job failed.
    ...(job.error && job.status === 'failed' && { error: job.error }),
    ...(job.result &&
      job.status === 'succeeded' && {
        result: {
          url: resultUrl(job),
          contentType: job.result.contentType,
          bytes: job.result.bytes,
          expiresAt: job.result.expiresAt,
          expired: job.result.removed || job.result.expiresAt <= now.toISOString(),
          ...(job.result.meta.diagnostics && { diagnostics: job.result.meta.diagnostics }),
        },
      }),
    ...(job.webhookUrl && { webhookUrl: job.webhookUrl }),
  };
}

/** `data` of job.succeeded / job.failed: ids, status, figures and the absolute result URL, never bytes. */
export function jobEventData(job: JobRecord): Record<string, unknown> {
  const data: Record<string, unknown> = { jobId: job.id, kind: job.kind, status: job.status, attempts: job.attempts };
  if (job.status === 'succeeded' && job.result) {
    const { meta } = job.result;
    data.result = {
      url: resultUrl(job),
      contentType: job.result.contentType,
      bytes: job.result.bytes,
      expiresAt: job.result.expiresAt,
    };
    data.renderMs = meta.renderMs;
    if (meta.pageCount !== undefined) data.pageCount = meta.pageCount;
    if (meta.finalUrl !== undefined) data.finalUrl = meta.finalUrl;
    // Counts only, as the binary answer's X-Render-* headers: the lists are in the job (GET /api/jobs/{id}).
    if (meta.diagnostics) data.diagnostics = diagnosticsCounts(meta.diagnostics);
  }
  if (job.status === 'failed' && job.error) data.error = job.error;
  return data;
}
