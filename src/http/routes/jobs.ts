// GET /api/jobs, GET /api/jobs/{id}, GET /api/jobs/{id}/result, DELETE /api/jobs/{id}.
import type Router from '@koa/router';
import { exactRouter } from '../router.js';
import type { JobStatus } from '../../db/jobs.js';
import type { JobService } from '../../jobs/service.js';
import { jobView } from '../../jobs/view.js';
import { decodeCursor, page } from '../cursor.js';
import { keyIdOf } from '../principal.js';
import { jobListQuery } from '../schemas/lists.js';
import { parseBody } from '../validate.js';
import { contentDisposition, safeFilename } from '../filename.js';

export function jobRoutes(jobs: JobService): Router {
  const router = exactRouter();

  router.get('/api/jobs', (ctx) => {
    const q = parseBody(jobListQuery, { ...ctx.query });
    const rows = jobs.list(keyIdOf(ctx), {
      status: q.status as JobStatus | undefined,
      limit: q.limit + 1,
      before: decodeCursor(q.cursor),
    });
    ctx.body = page(rows, q.limit, (job) => jobView(job));
  });

  router.get('/api/jobs/:id', (ctx) => {
    ctx.body = jobView(jobs.get(keyIdOf(ctx), ctx.params.id!));
  });

  router.get('/api/jobs/:id/result', async (ctx) => {
    const { job, bytes } = await jobs.result(keyIdOf(ctx), ctx.params.id!);
    const request = JSON.parse(job.request) as { filename?: string; format?: string };
    const fallback =
      job.kind === 'pdf' ? 'render.pdf' : `screenshot.${request.format === 'jpeg' ? 'jpg' : (request.format ?? 'png')}`;
    ctx.set('Content-Disposition', contentDisposition(safeFilename(request.filename, fallback)));
    ctx.type = job.result!.contentType;
    ctx.body = bytes;
  });

  router.delete('/api/jobs/:id', (ctx) => {
    ctx.body = jobView(jobs.cancel(keyIdOf(ctx), ctx.params.id!));
  });

  return router;
}
