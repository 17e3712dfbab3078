// Render requests refused before any render started — over the rate limit, the key's job queue full, a
// blocked URL refused at submission — still count in the status page's last hour of renders: an operator
// wants to see callers turned away, not only the renders that ran.
import type { Middleware } from 'koa';

const RENDER_PATHS = new Set(['/api/pdf', '/api/image']);

export function countRenderRefusals(metrics: { refused(err: unknown): void }): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (ctx.method === 'POST' && RENDER_PATHS.has(ctx.path)) metrics.refused(err);
      throw err;
    }
  };
}
