// What the service is doing, for /api/status, the /status page and /metrics: one snapshot read from
// the live objects and the database. Only aggregate figures: it is public, so no ids, URLs or keys.
import type { BrowserManager } from '../render/browser-manager.js';
import type { RenderLimiter } from '../render/limiter.js';
import type { Stores } from '../stores/backend.js';
import { RENDER_JOB_KINDS } from '../jobs/render-job.js';

export interface StatusSources {
  version: string;
  startedAt: Date;
  browsers: Pick<BrowserManager, 'stats'>;
  limiter: Pick<RenderLimiter, 'activeCount' | 'queuedCount'>;
  limits: { concurrency: number; queueSize: number };
  stores: {
    jobs: Pick<Stores['jobs'], 'countByStatus'>;
    monitors: Pick<Stores['monitors'], 'counts' | 'nextRuns'>;
    deliveries: Pick<Stores['deliveries'], 'countByStatus'>;
  };
}

export async function statusSnapshot(s: StatusSources, now = new Date()) {
  const { jobs, monitors, deliveries } = s.stores;
  const [jobCounts, monitorCounts, nextRuns, deliveryCounts] = await Promise.all([
    jobs.countByStatus(RENDER_JOB_KINDS), // the kinds the jobs API shows
    monitors.counts(),
    monitors.nextRuns(5),
    deliveries.countByStatus(),
  ]);
  // Read after the database: the live figures are as fresh as the snapshot's last read.
  const browser = s.browsers.stats();
  return {
    status: browser.up ? 'ok' : 'degraded',
    version: s.version,
    startedAt: s.startedAt.toISOString(),
    uptimeSeconds: Math.round((now.getTime() - s.startedAt.getTime()) / 1000),
    browser: {
      up: browser.up,
      version: browser.version ?? null,
      renders: browser.renders,
      restarts: browser.restarts,
      warmPages: browser.warmPages,
      pagesCreated: browser.pagesCreated,
    },
    render: {
      active: s.limiter.activeCount,
      queued: s.limiter.queuedCount,
      concurrency: s.limits.concurrency,
      queueSize: s.limits.queueSize,
    },
    jobs: jobCounts,
    monitors: { ...monitorCounts, nextRuns },
    webhooks: deliveryCounts,
    time: now.toISOString(),
  };
}

export type StatusSnapshot = Awaited<ReturnType<typeof statusSnapshot>>;
