// The HTTP server of a worker node (role `worker`): only what watches it — /health, /ready and
// /metrics —, behind the same request log, error bodies, drain and key check as the full app; every
// other path is 404 with the contract's error body (the API is served by the api nodes).
import Koa from 'koa';
import { notFound } from '../errors.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../operations/metrics.js';
import type { ApiKeyStore } from '../stores/api-keys.js';
import { authenticate } from './middleware/auth.js';
import { refuseWhileDraining } from './middleware/draining.js';
import { errorResponses } from './middleware/errors.js';
import { requestLog } from './middleware/request-log.js';
import { healthRoutes, type Readiness } from './routes/health.js';
import { metricsRoute } from './routes/operations.js';
import { exactRouter } from './router.js';

export interface ProbeAppDeps {
  log: Logger;
  readiness: Readiness;
  metrics: Metrics;
  keys: ApiKeyStore;
  auth: { anonymous: boolean; publicOperations: boolean };
  isShuttingDown: () => boolean;
}

export function createProbeApp(deps: ProbeAppDeps): Koa {
  const app = new Koa();
  app.silent = true; // errors are logged by errorResponses
  app.use(requestLog(deps.log));
  app.use(errorResponses(deps.log));
  app.use(refuseWhileDraining(deps.isShuttingDown));
  // /metrics needs a key when auth.publicOperations is false; any other path is 404 for everyone, not 401.
  const auth = authenticate(deps.keys, deps.auth);
  app.use(async (ctx, next) => {
    if (ctx.path === '/metrics') await auth(ctx, next);
    else await next();
  });
  for (const router of [healthRoutes(deps.readiness), metricsRoute(exactRouter(), deps.metrics)])
    app.use(router.routes());
  app.use((ctx) => {
    throw notFound(`no route for ${ctx.method} ${ctx.path} on a worker node (role worker)`);
  });
  return app;
}
