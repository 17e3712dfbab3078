// createApp wires middleware and routes around injected services; it never listens, so tests can
// drive `app.callback()` directly and hand it a fake renderer.
import Koa from 'koa';
import { notFound } from '../errors.js';
import type { Logger } from '../log.js';
import type { Renderer } from '../render/renderer.js';
import type { ApiKeyStore } from '../stores/api-keys.js';
import type { RateLimitStore } from '../stores/rate-limits.js';
import type { HttpLimits } from './limits.js';
import type { DeliveryStore } from '../stores/webhook-deliveries.js';
import type { JobService } from '../jobs/service.js';
import type { MonitorService } from '../monitors/service.js';
import type { FeedService } from '../feeds/service.js';
import { authenticate } from './middleware/auth.js';
import { refuseWhileDraining } from './middleware/draining.js';
import { errorResponses } from './middleware/errors.js';
import { rateLimit } from './middleware/rate-limit.js';
import { countRenderRefusals } from './middleware/render-refusals.js';
import { requestLog } from './middleware/request-log.js';
import { traceRequests } from './middleware/trace-requests.js';
import { healthRoutes, type Readiness } from './routes/health.js';
import { jobRoutes } from './routes/jobs.js';
import { monitorRoutes } from './routes/monitors.js';
import { monitorTransferRoutes } from './routes/monitor-transfer.js';
import { operationsRoutes } from './routes/operations.js';
import { docsRoutes } from './routes/docs.js';
import { webRoutes } from '../web/routes.js';
import type { Metrics } from '../operations/metrics.js';
import type { StatusSnapshot } from '../operations/status.js';
import type { Config } from '../config.js';
import { renderRoutes } from './routes/render.js';
import { pdfToolRoutes } from './routes/pdf-tools.js';
import type { PdfEngine } from '../pdf/engine.js';
import { exactRouter } from './router.js';
import { deliveryRoutes } from './routes/webhook-deliveries.js';
import { channelRoutes } from './routes/channels.js';
import type { ChannelService } from '../channels/service.js';
import type { Clock } from '../domain/clock.js';
import { feedRoutes } from './routes/feeds.js';

export interface AppDeps {
  log: Logger;
  renderer: Renderer;
  /** The PDF engine: a render's finishing, and the PDF tools. */
  pdfEngine: PdfEngine;
  jobs: JobService;
  monitors: MonitorService;
  channels: ChannelService;
  /** Feed URLs (/api/feeds) and the feeds themselves (/feeds/{token}, no key). */
  feeds: FeedService;
  deliveries: DeliveryStore;
  /** The cluster's clock (redeliveries are due by it); this machine's unless given. */
  clock?: Clock;
  publicUrl: string;
  readiness: Readiness;
  keys: ApiKeyStore;
  limits: HttpLimits;
  auth: { anonymous: boolean; publicOperations: boolean };
  rateLimit: { perKeyPerMinute: number; anonymousPerMinute: number };
  /** The token buckets: this node's memory, or shared by every node (PostgreSQL). */
  rateLimits: RateLimitStore;
  trustProxy: number;
  status: () => Promise<StatusSnapshot>;
  metrics: Metrics;
  /** The whole configuration, for the docs page's stated limits. */
  config: Readonly<Config>;
  isShuttingDown: () => boolean;
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  // X-Forwarded-For is believed only behind trusted proxies, and read from the right: each trusted hop
  // appends the address it saw, so the client is `trustProxy` entries from the end. Anything further
  // left was written by the client itself. (Koa keeps the last maxIpsCount entries; ctx.ip is the first.)
  app.proxy = deps.trustProxy > 0;
  app.maxIpsCount = deps.trustProxy;
  app.silent = true; // errors are logged by errorResponses, once, with the request id
  const routers = [
    healthRoutes(deps.readiness),
    renderRoutes({
      renderer: deps.renderer,
      pdfEngine: deps.pdfEngine,
      jobs: deps.jobs,
      limits: deps.limits,
      publicUrl: deps.publicUrl,
    }),
    pdfToolRoutes({ pdfEngine: deps.pdfEngine, jobs: deps.jobs, limits: deps.limits, publicUrl: deps.publicUrl }),
    jobRoutes(deps.jobs),
    // Before monitorRoutes: /api/monitors/export is not a monitor id.
    monitorTransferRoutes({ monitors: deps.monitors, limits: deps.limits, publicUrl: deps.publicUrl }),
    monitorRoutes({ monitors: deps.monitors, limits: deps.limits, publicUrl: deps.publicUrl }),
    channelRoutes({ channels: deps.channels, limits: deps.limits }),
    deliveryRoutes({ deliveries: deps.deliveries, clock: deps.clock }),
    feedRoutes({ feeds: deps.feeds, maxBodyBytes: deps.limits.maxBodyBytes, publicUrl: deps.publicUrl }),
    operationsRoutes({ status: deps.status, metrics: deps.metrics }),
    docsRoutes({ config: deps.config }),
    webRoutes(exactRouter()),
  ];

  app.use(requestLog(deps.log));
  app.use(traceRequests()); // outside errorResponses: the span sees the status and code of an error's answer
  app.use(errorResponses(deps.log));
  app.use(refuseWhileDraining(deps.isShuttingDown));
  app.use(authenticate(deps.keys, deps.auth));
  app.use(countRenderRefusals(deps.metrics)); // before the rate limit: its refusals count too
  app.use(rateLimit(deps.rateLimit, deps.rateLimits));
  for (const router of routers) app.use(router.routes());
  app.use((ctx) => {
    throw notFound(`no route for ${ctx.method} ${ctx.path}`);
  });
  return app;
}
