import type { RenderDiagnostics } from './render-diagnostics.js';

// A job's status and what it ended with, as the API shows them and webhooks send them.
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'succeeded', 'failed', 'canceled'];

export interface ResultMeta {
  renderMs: number;
  finalUrl?: string;
  pageCount?: number;
  truncated: boolean;
  /** What the render saw (absent for results stored before renders had diagnostics). */
  diagnostics?: RenderDiagnostics;
}

export interface JobError {
  code: string;
  message: string;
}
