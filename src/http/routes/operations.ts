// GET /api/status (the status page's figures, public) and GET /metrics (Prometheus text format).
import type Router from '@koa/router';
import { exactRouter } from '../router.js';
import type { Metrics } from '../../operations/metrics.js';
import type { StatusSnapshot } from '../../operations/status.js';

export function operationsRoutes(deps: { status: () => Promise<StatusSnapshot>; metrics: Metrics }): Router {
  const router = exactRouter();
  router.get('/api/status', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await deps.status();
  });
  metricsRoute(router, deps.metrics);
  return router;
}

/** GET /metrics on `router` (a worker node's probe server serves it alone). */
export function metricsRoute(router: Router, metrics: Metrics): Router {
  router.get('/metrics', async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
  return router;
}
