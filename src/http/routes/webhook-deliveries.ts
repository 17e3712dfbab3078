// GET /api/webhook-deliveries, GET /api/webhook-deliveries/{id} (with every attempt),
// POST /api/webhook-deliveries/{id}/redeliver.
import type Router from '@koa/router';
import { exactRouter } from '../router.js';
import { notFound } from '../../errors.js';
import type { AttemptRecord, DeliveryRecord, DeliveryStore } from '../../stores/webhook-deliveries.js';
import type { DeliveryStatus } from '../../domain/delivery-status.js';
import type { EventType } from '../../webhooks/outbox.js';
import type { ChannelType } from '../../domain/channels.js';
import { decodeCursor, page } from '../cursor.js';
import { keyIdOf } from '../principal.js';
import { deliveryListQuery } from '../schemas/lists.js';
import { delivery, deliveryDetail } from '../schemas/responses/deliveries.js';
import type { Documents, Holds } from '../schemas/type-checks.js';
import { parseBody } from '../validate.js';

export interface DeliveryRouteDeps {
  /** A redelivery tells the dispatcher itself (the store notifies `deliveries`). */
  deliveries: DeliveryStore;
}

/** A delivery as the API shows it (also the answer of POST /api/monitors/{id}/test-webhook). */
export function deliveryView(d: DeliveryRecord) {
  return {
    id: d.id,
    eventType: d.eventType as EventType, // stored as text; only the outbox writes it
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
    ...(d.channelId && { channelId: d.channelId }),
    ...(d.channelType && { channelType: d.channelType as ChannelType }),
    ...(d.status === 'pending' && d.heldFor && { heldFor: d.heldFor }),
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

type DeliveryView = ReturnType<typeof deliveryView>;
type DeliveryDetailView = DeliveryView & { history: ReturnType<typeof attemptView>[] };
export type DeliveriesDocumented = [
  Holds<Documents<DeliveryView, typeof delivery>>,
  Holds<Documents<DeliveryDetailView, typeof deliveryDetail>>,
];

export function deliveryRoutes({ deliveries }: DeliveryRouteDeps): Router {
  const router = exactRouter();

  router.get('/api/webhook-deliveries', async (ctx) => {
    const q = parseBody(deliveryListQuery, { ...ctx.query });
    const rows = await deliveries.list(keyIdOf(ctx), {
      jobId: q.jobId,
      monitorId: q.monitorId,
      channelId: q.channelId,
      status: q.status as DeliveryStatus | undefined,
      limit: q.limit + 1,
      before: decodeCursor(q.cursor),
    });
    ctx.body = page(rows, q.limit, deliveryView);
  });

  router.get('/api/webhook-deliveries/:id', async (ctx) => {
    const d = await deliveries.get(keyIdOf(ctx), ctx.params.id!);
    if (!d) throw notFound(`no webhook delivery ${ctx.params.id}`);
    ctx.body = {
      ...deliveryView(d),
      history: (await deliveries.attempts(d.id)).map(attemptView),
    } satisfies DeliveryDetailView;
  });

  router.post('/api/webhook-deliveries/:id/redeliver', async (ctx) => {
    const d = await deliveries.redeliver(keyIdOf(ctx), ctx.params.id!, new Date());
    if (!d) throw notFound(`no webhook delivery ${ctx.params.id}`);
    ctx.status = 202;
    ctx.body = deliveryView(d);
  });

  return router;
}
