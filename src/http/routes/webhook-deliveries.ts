// GET /api/webhook-deliveries, GET /api/webhook-deliveries/{id} (with every attempt),
// POST /api/webhook-deliveries/{id}/redeliver.
import type Router from '@koa/router';
import { exactRouter } from '../router.js';
import type { AttemptRecord, DeliveryRecord, DeliveryStatus, DeliveryStore } from '../../db/webhook-deliveries.js';
import { notFound } from '../../errors.js';
import { decodeCursor, page } from '../cursor.js';
import { keyIdOf } from '../principal.js';
import { deliveryListQuery } from '../schemas/lists.js';
import { parseBody } from '../validate.js';

export interface DeliveryRouteDeps {
  deliveries: DeliveryStore;
  /** Tell the dispatcher a delivery is due now. */
  wake: () => void;
}

function deliveryView(d: DeliveryRecord) {
  return {
    id: d.id,
    eventType: d.eventType,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    lastAttemptAt: d.lastAttemptAt,
    lastResponseStatus: d.lastResponseStatus,
    lastError: d.lastError,
    nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt : null,
    webhookId: d.messageId,
    ...(d.jobId && { jobId: d.jobId }),
    ...(d.monitorId && { monitorId: d.monitorId }),
    createdAt: d.createdAt,
  };
}

const attemptView = (a: AttemptRecord) => ({
  attempt: a.attempt,
  at: a.startedAt,
  durationMs: a.durationMs,
  responseStatus: a.responseStatus,
  error: a.error,
});

export function deliveryRoutes({ deliveries, wake }: DeliveryRouteDeps): Router {
  const router = exactRouter();

  router.get('/api/webhook-deliveries', (ctx) => {
    const q = parseBody(deliveryListQuery, { ...ctx.query });
    const rows = deliveries.list(keyIdOf(ctx), {
      jobId: q.jobId,
      monitorId: q.monitorId,
      status: q.status as DeliveryStatus | undefined,
      limit: q.limit + 1,
      before: decodeCursor(q.cursor),
    });
    ctx.body = page(rows, q.limit, deliveryView);
  });

  router.get('/api/webhook-deliveries/:id', (ctx) => {
    const d = deliveries.get(keyIdOf(ctx), ctx.params.id!);
    if (!d) throw notFound(`no webhook delivery ${ctx.params.id}`);
    ctx.body = { ...deliveryView(d), history: deliveries.attempts(d.id).map(attemptView) };
  });

  router.post('/api/webhook-deliveries/:id/redeliver', (ctx) => {
    const d = deliveries.redeliver(keyIdOf(ctx), ctx.params.id!, new Date());
    if (!d) throw notFound(`no webhook delivery ${ctx.params.id}`);
    wake();
    ctx.status = 202;
    ctx.body = deliveryView(d);
  });

  return router;
}
