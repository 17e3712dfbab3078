// What the service is doing, for /api/status, the /status page and /metrics: one snapshot read from
// the live objects and the database. Aggregate figures, plus the nodes of the cluster (ids, roles,
// hosts, versions: what an operator needs to see which node is which); no job or key ids, URLs or keys.
import type { BrowserManager } from '../render/browser/browser-manager.js';
import type { RenderLimiter } from '../render/limiter.js';
import type { Stores } from '../stores/backend.js';
import type { NodeRole } from '../domain/node-role.js';
import { ALIVE_WITHIN_MS } from './node-heartbeat.js';
import { RENDER_JOB_KINDS } from '../jobs/render-job.js';
import { RenderHistory } from './render-history.js';

export interface StatusSources {
  version: string;
  startedAt: Date;
  /** This node (the one answering). */
  node: { id: string; role: NodeRole };
  browsers: Pick<BrowserManager, 'stats'>;
  limiter: Pick<RenderLimiter, 'activeCount' | 'queuedCount'>;
  limits: { concurrency: number; queueSize: number };
  stores: {
    jobs: Pick<Stores['jobs'], 'countByStatus'>;
    monitors: Pick<Stores['monitors'], 'counts' | 'nextRuns'>;
    deliveries: Pick<Stores['deliveries'], 'countByStatus'>;
    nodes: Pick<Stores['nodes'], 'list'>;
    statusReads: Stores['statusReads'];
  };
  /** This node's last hour of renders (none given: an empty hour). */
  history?: Pick<RenderHistory, 'figures'>;
}

const HOUR_MS = 3600_000;

export async function statusSnapshot(s: StatusSources, now = new Date()) {
  const { jobs, monitors, deliveries, nodes } = s.stores;
  const reads = s.stores.statusReads;
  const [jobCounts, monitorCounts, nextRuns, deliveryCounts, nodeRows, failing, backlog, ended, stored] =
    await Promise.all([
      jobs.countByStatus(RENDER_JOB_KINDS), // the kinds the jobs API shows
      monitors.counts(),
      monitors.nextRuns(5),
      deliveries.countByStatus(),
      nodes.list(),
      reads.failingMonitors(),
      reads.deliveryBacklog(),
      reads.deliveriesEndedSince(new Date(now.getTime() - HOUR_MS)),
      reads.storedBytes(),
    ]);
  const aliveSince = new Date(now.getTime() - ALIVE_WITHIN_MS).toISOString();
  // Read after the database: the live figures are as fresh as the snapshot's last read.
  const browser = s.browsers.stats();
  return {
    status: browser.up ? ('ok' as const) : ('degraded' as const),
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
      pagesUnloaded: browser.pagesUnloaded,
    },
    render: {
      active: s.limiter.activeCount,
      queued: s.limiter.queuedCount,
      concurrency: s.limits.concurrency,
      queueSize: s.limits.queueSize,
    },
    jobs: jobCounts,
    monitors: { ...monitorCounts, nextRuns, failing },
    webhooks: deliveryCounts,
    // The cluster's (the database's) figures; `webhooks` above keeps its shape for /metrics.
    webhookDeliveries: { ...backlog, lastHour: ended },
    storage: { captureBytes: stored.captures, resultBytes: stored.results },
    // This node's figures, kept in its memory: with several nodes, those of the one that answered.
    lastHour: { node: s.node.id, ...(s.history ?? new RenderHistory()).figures() },
    node: { id: s.node.id, role: s.node.role },
    cluster: {
      nodes: nodeRows.map((n) => ({
        id: n.id,
        role: n.role,
        host: n.host,
        version: n.version,
        startedAt: n.startedAt,
        heartbeatAt: n.heartbeatAt,
        alive: n.heartbeatAt >= aliveSince,
      })),
    },
    time: now.toISOString(),
  };
}

export type StatusSnapshot = Awaited<ReturnType<typeof statusSnapshot>>;

/**
 * The status reads with `storedBytes` answered from memory for `ttlMs`: the sum runs over every capture
 * kept, and the status page asks every 2 seconds per open tab; disk use moves slowly.
 */
export function withStoredBytesCache(
  reads: Stores['statusReads'],
  ttlMs = 5000,
  nowMs: () => number = Date.now,
): Stores['statusReads'] {
  let cached: { at: number; value: ReturnType<Stores['statusReads']['storedBytes']> } | undefined;
  return {
    failingMonitors: () => reads.failingMonitors(),
    deliveryBacklog: () => reads.deliveryBacklog(),
    deliveriesEndedSince: (since) => reads.deliveriesEndedSince(since),
    storedBytes: () => {
      if (!cached || nowMs() - cached.at >= ttlMs) {
        const value = reads.storedBytes();
        cached = { at: nowMs(), value };
        value.catch(() => (cached = undefined)); // a failed read is not kept
      }
      return cached.value;
    },
  };
}
