// While the service drains (SIGTERM): /health still answers (the process runs); every other request is
// refused with 503 and the connection closed. Shared by the full app and a worker node's probe app.
import type { Middleware } from 'koa';
import { unavailable } from '../../errors.js';

export function refuseWhileDraining(isShuttingDown: () => boolean): Middleware {
  return async (ctx, next) => {
    if (isShuttingDown() && ctx.path !== '/health') {
      ctx.set('Connection', 'close');
      throw unavailable('the service is shutting down');
    }
    await next();
  };
}
