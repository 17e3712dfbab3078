// /api/feeds (a key's feed URLs: create, list, rotate, revoke) and /feeds/{token} (the Atom feed and the
// crops its entries show, for anyone holding the URL: no key; the auth middleware leaves paths outside
// /api/ open, and the token is the credential).
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { FeedService } from '../../feeds/service.js';
import type { FeedRecord } from '../../stores/feeds.js';
import { readJsonBody } from '../middleware/body.js';
import { baseUrlOf, keyIdOf } from '../principal.js';
import { exactRouter } from '../router.js';
import { feedRequestSchema } from '../schemas/feeds.js';
import type { feed, feedList, feedWithUrl } from '../schemas/responses/feeds.js';
import type { Documents, Holds } from '../schemas/type-checks.js';
import { parseBody } from '../validate.js';

export interface FeedRouteDeps {
  feeds: FeedService;
  maxBodyBytes: number;
  publicUrl: string;
}

/** A feed as listed: never its URL (only a hash of its token is kept). */
export function feedView(f: FeedRecord) {
  return {
    id: f.id,
    scope: f.scope,
    ...(f.monitorId !== null && { monitorId: f.monitorId }),
    ...(f.tag !== null && { tag: f.tag }),
    createdAt: f.createdAt,
    ...(f.rotatedAt !== null && { rotatedAt: f.rotatedAt }),
  };
}
type FeedView = ReturnType<typeof feedView>;
type FeedWithUrlView = FeedView & { url: string };
export type FeedsDocumented = [
  Holds<Documents<FeedView, typeof feed>>,
  Holds<Documents<FeedWithUrlView, typeof feedWithUrl>>,
  Holds<Documents<{ feeds: FeedView[] }, typeof feedList>>,
];

/**
 * The feed URL is a secret: shared caches must not keep it, and a reader revalidates each time (a 304
 * while nothing changed), so a rotation or a revocation takes effect at the reader's next poll.
 */
const PRIVATE = 'private, no-cache';

export function feedRoutes({ feeds, maxBodyBytes, publicUrl }: FeedRouteDeps): Router {
  const router = exactRouter();
  const base = (ctx: Context) => baseUrlOf(ctx, publicUrl);
  const withUrl = (ctx: Context, f: FeedRecord, token: string): FeedWithUrlView => ({
    ...feedView(f),
    url: `${base(ctx)}/feeds/${token}`,
  });

  router.post('/api/feeds', async (ctx) => {
    const keyId = keyIdOf(ctx);
    const req = parseBody(feedRequestSchema, await readJsonBody(ctx, { maxBytes: maxBodyBytes }));
    const { feed, token } = await feeds.create(keyId, req);
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store'); // the only answer with the URL, besides a rotation's
    ctx.body = withUrl(ctx, feed, token);
  });

  router.get('/api/feeds', async (ctx) => {
    ctx.body = { feeds: (await feeds.list(keyIdOf(ctx))).map(feedView) };
  });

  router.post('/api/feeds/:id/rotate', async (ctx) => {
    const { feed, token } = await feeds.rotate(keyIdOf(ctx), ctx.params.id!);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = withUrl(ctx, feed, token);
  });

  router.delete('/api/feeds/:id', async (ctx) => {
    await feeds.delete(keyIdOf(ctx), ctx.params.id!);
    ctx.status = 204;
  });

  router.get('/feeds/:token', async (ctx) => {
    const doc = await feeds.document(ctx.params.token!, base(ctx));
    ctx.set('Cache-Control', PRIVATE);
    ctx.set('X-Robots-Tag', 'noindex');
    ctx.set('ETag', doc.etag);
    ctx.lastModified = doc.updated;
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/atom+xml; charset=utf-8';
    ctx.body = doc.xml;
  });

  router.get('/feeds/:token/crops/:captureId.png', async (ctx) => {
    const png = await feeds.crop(ctx.params.token!, ctx.params.captureId!);
    ctx.set('Cache-Control', PRIVATE);
    ctx.set('X-Robots-Tag', 'noindex');
    ctx.type = 'image/png';
    ctx.body = png;
  });

  return router;
}
