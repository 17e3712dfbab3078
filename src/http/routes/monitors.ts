// /api/monitors (create, list, get, update, delete, run now, captures, bulk actions), /api/tags and
// /api/captures/{id} (the capture, its image, its diff image, its text as compared).
import type Router from '@koa/router';
import { exactRouter } from '../router.js';
import type { Context } from 'koa';
import type { CaptureReason } from '../../domain/capture-findings.js';
import type { MonitorService } from '../../monitors/service.js';
import { captureView, monitorView } from '../../monitors/view.js';
import { decodeCursor, page } from '../cursor.js';
import { readJsonBody } from '../middleware/body.js';
import { baseUrlOf, keyIdOf } from '../principal.js';
import { pagingQuery } from '../schemas/lists.js';
import { bulkRequest, monitorListQuery, type BulkAction } from '../schemas/monitor-bulk.js';
import { AppError } from '../../errors.js';
import { monitorSchema } from '../schemas/monitors.js';
import type { RunAccepted } from '../schemas/responses/monitors.js';
import type { SchemaLimits } from '../schemas/request-options.js';
import { parseBody } from '../validate.js';
import { deliveryView } from './webhook-deliveries.js';

export interface MonitorRouteDeps {
  monitors: MonitorService;
  limits: SchemaLimits & { maxBodyBytes: number; maxRetention: number; minIntervalSeconds: number };
  publicUrl: string;
}

export function monitorRoutes({ monitors, limits, publicUrl }: MonitorRouteDeps): Router {
  const schema = monitorSchema(limits);
  const router = exactRouter();
  const body = (ctx: Context) => readJsonBody(ctx, { maxBytes: limits.maxBodyBytes });
  const base = (ctx: Context) => baseUrlOf(ctx, publicUrl);

  router.post('/api/monitors', async (ctx) => {
    const settings = parseBody(schema, await body(ctx));
    const monitor = await monitors.create(keyIdOf(ctx), settings, base(ctx));
    ctx.status = 201;
    ctx.set('Location', `/api/monitors/${monitor.id}`);
    ctx.body = monitorView(monitor);
  });

  router.get('/api/monitors', async (ctx) => {
    const q = parseBody(monitorListQuery, { ...ctx.query });
    const keyId = keyIdOf(ctx);
    const rows = await monitors.list(keyId, { limit: q.limit + 1, before: decodeCursor(q.cursor), tag: q.tag });
    const logins = await monitors.logins(
      keyId,
      rows.map((m) => m.id),
    );
    ctx.body = page(rows, q.limit, (m) => monitorView(m, logins.get(m.id)));
  });

  router.get('/api/tags', async (ctx) => {
    ctx.body = { tags: await monitors.tags(keyIdOf(ctx)) };
  });

  // One action on every monitor a tag or a list of ids names, each through the same path as its own
  // route (a pause is the PATCH {paused: true}); one monitor's failure is reported, not the request's.
  router.post('/api/monitors/bulk', async (ctx) => {
    const request = parseBody(bulkRequest, await body(ctx));
    const keyId = keyIdOf(ctx);
    const ids = request.ids ?? (await monitors.idsWithTag(keyId, request.tag!));
    const act: Record<BulkAction, (id: string) => Promise<unknown>> = {
      pause: (id) => setPaused(ctx, id, true),
      resume: (id) => setPaused(ctx, id, false),
      run: (id) => monitors.run(keyId, id),
      delete: (id) => monitors.delete(keyId, id),
    };
    const done: string[] = [];
    const failed: { id: string; error: { code: string; message: string } }[] = [];
    for (const id of ids) {
      try {
        await act[request.action](id);
        done.push(id);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        failed.push({ id, error: { code: err.code, message: err.message } });
      }
    }
    ctx.body = { action: request.action, matched: ids.length, done, failed };
  });

  async function setPaused(ctx: Context, id: string, paused: boolean) {
    const keyId = keyIdOf(ctx);
    const settings = parseBody(schema, await monitors.patched(keyId, id, { paused }));
    await monitors.update(keyId, id, settings, base(ctx));
  }

  router.get('/api/monitors/:id', async (ctx) => {
    const keyId = keyIdOf(ctx);
    const id = ctx.params.id!;
    ctx.body = monitorView(await monitors.get(keyId, id), await monitors.login(keyId, id));
  });

  router.patch('/api/monitors/:id', async (ctx) => {
    const keyId = keyIdOf(ctx);
    const id = ctx.params.id!;
    // The merged monitor is validated whole, by the same schema as a create.
    const settings = parseBody(schema, await monitors.patched(keyId, id, await body(ctx)));
    ctx.body = monitorView(await monitors.update(keyId, id, settings, base(ctx)), await monitors.login(keyId, id));
  });

  // Forget the saved login (capture.saveLogin): the next capture runs the steps again.
  router.delete('/api/monitors/:id/login', async (ctx) => {
    await monitors.forgetLogin(keyIdOf(ctx), ctx.params.id!);
    ctx.status = 204;
  });

  router.delete('/api/monitors/:id', async (ctx) => {
    await monitors.delete(keyIdOf(ctx), ctx.params.id!);
    ctx.status = 204;
  });

  router.post('/api/monitors/:id/run', async (ctx) => {
    const { job, created } = await monitors.run(keyIdOf(ctx), ctx.params.id!);
    ctx.status = 202;
    ctx.set('Location', `/api/monitors/${ctx.params.id}/captures`);
    const { reason } = job.request as { reason: CaptureReason };
    ctx.body = {
      monitorId: ctx.params.id!,
      status: job.status,
      reason,
      queuedAt: job.createdAt,
      alreadyPending: !created,
    } satisfies RunAccepted;
  });

  // A monitor.test event, queued like any other: 202 with its delivery (GET /api/webhook-deliveries/{id}).
  router.post('/api/monitors/:id/test-webhook', async (ctx) => {
    const delivery = await monitors.testWebhook(keyIdOf(ctx), ctx.params.id!);
    ctx.status = 202;
    ctx.set('Location', `/api/webhook-deliveries/${delivery.id}`);
    ctx.body = deliveryView(delivery);
  });

  router.get('/api/monitors/:id/captures', async (ctx) => {
    const q = parseBody(pagingQuery, { ...ctx.query });
    const rows = await monitors.listCaptures(keyIdOf(ctx), ctx.params.id!, {
      limit: q.limit + 1,
      before: decodeCursor(q.cursor),
    });
    const baseUrl = base(ctx);
    ctx.body = page(rows, q.limit, (c) => captureView(c, baseUrl));
  });

  router.get('/api/captures/:id', async (ctx) => {
    ctx.body = captureView((await monitors.capture(keyIdOf(ctx), ctx.params.id!)).capture, base(ctx));
  });

  router.get('/api/captures/:id/text', async (ctx) => {
    ctx.body = { blocks: await monitors.captureText(keyIdOf(ctx), ctx.params.id!) };
    ctx.set('Cache-Control', 'private, max-age=31536000, immutable'); // a stored capture never changes
  });

  for (const which of ['image', 'diff'] as const) {
    router.get(`/api/captures/:id/${which}`, async (ctx) => {
      const { size, body } = await monitors.captureFile(keyIdOf(ctx), ctx.params.id!, which);
      ctx.body = body; // streamed as the client reads it
      ctx.length = size; // after the body: Koa knows no length for a stream
      ctx.type = 'image/png';
      ctx.set('Cache-Control', 'private, max-age=31536000, immutable'); // a stored capture never changes
    });
  }

  return router;
}
