// What the render routes answer besides the output itself: an async job, and a synchronous render with
// "response": "json".
import { z } from 'zod';
import { JOB_STATUSES } from '../../../domain/job-outcome.js';
import { RENDER_JOB_KINDS } from '../../../jobs/render-job.js';
import type { JobView } from '../../../jobs/view.js';
import type { Documents, Holds } from '../type-checks.js';
import { codeAndMessage, dateTime } from './common.js';
import { renderDiagnostics } from './diagnostics.js';

export const job = z.object({
  id: z.string(),
  kind: z.enum(RENDER_JOB_KINDS),
  status: z.enum(JOB_STATUSES),
  createdAt: dateTime(),
  startedAt: dateTime().optional(),
  finishedAt: dateTime().optional(),
  attempts: z.int().describe('Tries so far (at most jobs.maxAttempts)'),
  error: codeAndMessage.optional().describe('Why a failed job failed'),
  result: z
    .object({
      url: z.url().describe('GET it with the same key'),
      contentType: z.string(),
      bytes: z.int(),
      expiresAt: dateTime(),
      expired: z.boolean().describe('Past jobs.resultTtlHours: the result answers 410'),
      diagnostics: renderDiagnostics.optional(),
    })
    .optional()
    .describe('Present once the job succeeded'),
  webhookUrl: z.url().optional(),
});
export type JobDocumented = Holds<Documents<JobView, typeof job>>;

export const renderJson = z
  .object({
    contentType: z.string(),
    bytes: z.int(),
    data: z.string().meta({ contentEncoding: 'base64', description: 'The output, base64' }),
    meta: z.object({
      filename: z.string().optional(),
      renderMs: z.int().optional(),
      finalUrl: z.url().optional().describe('Where a url source ended after redirects'),
      pageCount: z.int().optional().describe('PDF only'),
      truncated: z.boolean().optional().describe('A size cap cut the image (X-Truncated says which way)'),
    }),
    diagnostics: renderDiagnostics.optional(),
  })
  .describe('A synchronous render with "response": "json"');
export type RenderJson = z.output<typeof renderJson>;
