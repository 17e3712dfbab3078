// What the service is doing, for /api/status, the /status page and /metrics: one snapshot read from
// the live objects and the database. Only aggregate figures: it is public, so no ids, URLs or keys.
import type { DeliveryStore } from '../db/webhook-deliveries.js';
import type { JobStatus } from '../stores/jobs.js';
import type { MonitorStore } from '../db/monitors.js';
import type { BrowserManager } from '../render/browser-manager.js';
import type { RenderLimiter } from '../render/limiter.js';

export interface StatusSources {
  version: string;
  startedAt: Date;
  browsers: Pick<BrowserManager, 'stats'>;
  limiter: Pick<RenderLimiter, 'activeCount' | 'queuedCount'>;
  limits: { concurrency: number; queueSize: number };
  /** Jobs of the kinds the jobs API shows, by status. */
  jobs: { countByStatus(): Record<JobStatus, number> };
  monitors: Pick<MonitorStore, 'counts' | 'nextRuns'>;
  deliveries: Pick<DeliveryStore, 'countByStatus'>;
}

export function statusSnapshot(s: StatusSources, now = new Date()) {
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
    jobs: s.jobs.countByStatus(),
    monitors: { ...s.monitors.counts(), nextRuns: s.monitors.nextRuns(5) },
    webhooks: s.deliveries.countByStatus(),
    time: now.toISOString(),
  };
}

export type StatusSnapshot = ReturnType<typeof statusSnapshot>;
