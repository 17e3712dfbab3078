// GET /api/jobs, GET /api/jobs/{id}, GET /api/jobs/{id}/result, DELETE /api/jobs/{id}.
import type Router from '@koa/router';
import { exactRouter } from '../router.js';
import type { JobStatus } from '../../domain/job-outcome.js';
import type { JobService } from '../../jobs/service.js';
import { jobView } from '../../jobs/view.js';
import { decodeCursor, page } from '../cursor.js';
import { keyIdOf } from '../principal.js';
import { jobListQuery } from '../schemas/lists.js';
import { parseBody } from '../validate.js';
import { contentDisposition, safeFilename } from '../filename.js';

/** A PDF job's kept format names its answer (a render's paper format, "A4", does not). */
const PDF_RESULT_FORMATS = new Set(['pdf', 'zip', 'json']);

export function jobRoutes(jobs: JobService): Router {
  const router = exactRouter();

  router.get('/api/jobs', async (ctx) => {
    const q = parseBody(jobListQuery, { ...ctx.query });
    const rows = await jobs.list(keyIdOf(ctx), {
      status: q.status as JobStatus | undefined,
      limit: q.limit + 1,
      before: decodeCursor(q.cursor),
    });
    ctx.body = page(rows, q.limit, (job) => jobView(job));
  });

  router.get('/api/jobs/:id', async (ctx) => {
    ctx.body = jobView(await jobs.get(keyIdOf(ctx), ctx.params.id!));
  });

  router.get('/api/jobs/:id/result', async (ctx) => {
    const { job, size, body } = await jobs.result(keyIdOf(ctx), ctx.params.id!);
    // What a finished render job keeps of its request (render-job.ts, keepAfterFinish).
    const request = job.request as { filename?: string | null; format?: string | null; tool?: string };
    const fallback =
      job.kind === 'image'
        ? `screenshot.${request.format === 'jpeg' ? 'jpg' : (request.format ?? 'png')}`
        : `${request.tool ?? 'render'}.${PDF_RESULT_FORMATS.has(request.format ?? '') ? request.format : 'pdf'}`;
    ctx.set('Content-Disposition', contentDisposition(safeFilename(request.filename ?? undefined, fallback)));
    ctx.type = job.result!.contentType;
    ctx.body = body; // streamed as the client reads it: a large result is never whole in memory
    ctx.length = size; // after the body: Koa knows no length for a stream
  });

  router.delete('/api/jobs/:id', async (ctx) => {
    ctx.body = jobView(await jobs.cancel(keyIdOf(ctx), ctx.params.id!));
  });

  return router;
}
