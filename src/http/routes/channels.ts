// /api/channels (create, list, get, change, delete) and POST /api/channels/{id}/test.
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ChannelService } from '../../channels/service.js';
import { channelView } from '../../channels/stored.js';
import { readJsonBody } from '../middleware/body.js';
import { keyIdOf } from '../principal.js';
import { exactRouter } from '../router.js';
import { channelSchema } from '../schemas/channels.js';
import { parseBody } from '../validate.js';
import { deliveryView } from './webhook-deliveries.js';

export interface ChannelRouteDeps {
  channels: ChannelService;
  limits: { maxBodyBytes: number };
}

export function channelRoutes({ channels, limits }: ChannelRouteDeps): Router {
  const router = exactRouter();
  const body = (ctx: Context) => readJsonBody(ctx, { maxBytes: limits.maxBodyBytes });

  router.post('/api/channels', async (ctx) => {
    const settings = parseBody(channelSchema, await body(ctx));
    const channel = await channels.create(keyIdOf(ctx), settings);
    ctx.status = 201;
    ctx.set('Location', `/api/channels/${channel.id}`);
    ctx.body = channelView(channel);
  });

  router.get('/api/channels', async (ctx) => {
    ctx.body = { channels: (await channels.list(keyIdOf(ctx))).map(channelView) };
  });

  router.get('/api/channels/:id', async (ctx) => {
    ctx.body = channelView(await channels.get(keyIdOf(ctx), ctx.params.id!));
  });

  router.patch('/api/channels/:id', async (ctx) => {
    const keyId = keyIdOf(ctx);
    const id = ctx.params.id!;
    // The merged channel is validated whole, by the same schema as a create.
    const settings = parseBody(channelSchema, await channels.patched(keyId, id, await body(ctx)));
    ctx.body = channelView(await channels.update(keyId, id, settings));
  });

  router.delete('/api/channels/:id', async (ctx) => {
    await channels.delete(keyIdOf(ctx), ctx.params.id!);
    ctx.status = 204;
  });

  // A channel.test event, sent at once (no digest, no quiet hours): 202 with its delivery.
  router.post('/api/channels/:id/test', async (ctx) => {
    const delivery = await channels.test(keyIdOf(ctx), ctx.params.id!);
    ctx.status = 202;
    ctx.set('Location', `/api/webhook-deliveries/${delivery.id}`);
    ctx.body = deliveryView(delivery);
  });

  return router;
}
