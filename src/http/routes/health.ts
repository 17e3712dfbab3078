import type Router from '@koa/router';
import { exactRouter } from '../router.js';
import { AppError } from '../../errors.js';

export interface Readiness { database: () => boolean; browser: () => Promise<boolean> }

export function healthRoutes(readiness: Readiness): Router {
  const router = exactRouter();
  router.get('/health', (ctx) => { ctx.body = { status: 'ok' }; });
  router.get('/ready', async (ctx) => {
    const checks = { database: readiness.database(), browser: await readiness.browser() };
    const failing = Object.entries(checks).filter(([, ok]) => !ok);
    if (failing.length) {
      throw new AppError('unavailable', 'not ready', { details: failing.map(([path]) => ({ path, message: 'not usable' })) });
    }
    ctx.body = { status: 'ready', checks: { database: 'ok', browser: 'ok' } };
  });
  return router;
}
