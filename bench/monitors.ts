// Monitors at scale: N monitors on a one-minute schedule against a local fixture site. Figures: how
// late the schedule ticks are queued (tick lateness), how long until each capture starts and ends,
// captures per minute, and the same service's synchronous render throughput for the same page in
// the same run (captures/min over renders/min: what scheduling, diffing and storing cost).
import Database from 'better-sqlite3';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { log } from './measure.js';
import { createKey } from './async-jobs.js';
import type { ServiceHandle } from './service.js';
import { percentile, round1 } from './stats.js';

export interface MonitorFigures {
  monitors: number;
  minutes: number;
  /** Tick time → capture job queued, ms. */
  tickLatenessP50Ms: number;
  tickLatenessP95Ms: number;
  /** Tick time → capture finished (recorded), ms: how long the last of a minute's captures waits. */
  captureDoneP50Ms: number;
  captureDoneP95Ms: number;
  capturesPerMinute: number;
  /**
   * What the captures could sustain: each minute's captures over the time from the tick to the last
   * of them finishing, per minute (the schedule caps capturesPerMinute at the monitor count).
   */
  captureCapacityPerMinute: number;
  skippedTicks: number;
  failedCaptures: number;
  syncRendersPerMinute: number;
  /** captureCapacityPerMinute over syncRendersPerMinute (1 = captures as cheap as plain renders). */
  capturesOverSync: number;
}

export const MONITOR_BENCH_ENV = {
  PAGEWATCH_EGRESS_ALLOW_HOSTS: '["127.0.0.1"]',
  PAGEWATCH_RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000',
  PAGEWATCH_MONITORS_MAX_PER_KEY: '100000',
};

/** A small page per monitor; every fifth changes its text each minute, so real diffs run too. */
async function startSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const id = Number(/\/page\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
    const minute = Math.floor(Date.now() / 60_000);
    const text = id % 5 === 0 ? `Price update ${minute % 7}` : 'Steady content';
    res
      .writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' })
      .end(
        `<!doctype html><html><body style="font-family:sans-serif;margin:40px"><h1>Page ${id}</h1><p>${text}</p>` +
          `<table>${Array.from({ length: 12 }, (_, r) => `<tr><td>Row ${r}</td><td>${(r * 13.5).toFixed(2)}</td></tr>`).join('')}</table></body></html>`,
      );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

async function call(url: string, key: string, method: string, body?: unknown): Promise<Response> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  return res;
}

/**
 * Synchronous PNG renders of the same kind of page from 8 clients for `seconds`, after one warm-up round:
 * renders per minute over the time they really took (the last ones end after the deadline).
 */
async function syncThroughput(svc: ServiceHandle, key: string, pageUrl: string, seconds: number): Promise<number> {
  const render = async () => {
    const res = await call(`${svc.baseUrl}/api/image`, key, 'POST', { url: pageUrl });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`sync render -> ${res.status}`);
  };
  await Promise.all(Array.from({ length: 8 }, render)); // warm pages, not the first page creations
  const started = performance.now();
  const until = started + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (performance.now() < until) {
        await render();
        done++;
      }
    }),
  );
  return (done / (performance.now() - started)) * 60_000;
}

export async function measureMonitors(
  svc: ServiceHandle,
  monitors: number,
  minutes: number,
  syncSeconds: number,
): Promise<MonitorFigures> {
  const key = createKey(svc.dataDir);
  const site = await startSite();
  try {
    const syncRendersPerMinute = await syncThroughput(svc, key, `${site.url}/page/1`, syncSeconds);
    log(`monitors: sync throughput ${Math.round(syncRendersPerMinute)} renders/min`);
    for (let i = 0; i < monitors; i++) {
      const res = await call(`${svc.baseUrl}/api/monitors`, key, 'POST', {
        url: `${site.url}/page/${i}`,
        schedule: '* * * * *',
        name: `bench ${i}`,
      });
      if (res.status !== 201) throw new Error(`create monitor -> ${res.status} ${await res.text()}`);
    }
    // Measure whole minutes after the first tick (which makes the baselines).
    const firstTick = Math.ceil(Date.now() / 60_000) * 60_000;
    const from = new Date(firstTick + 60_000);
    const to = new Date(from.getTime() + minutes * 60_000);
    log(`monitors: ${monitors} created; measuring ticks from ${from.toISOString()} to ${to.toISOString()}`);
    await sleep(to.getTime() - Date.now() + 50_000); // the last minute's captures finish (or are skipped)

    const db = new Database(join(svc.dataDir, 'pagewatch.db'), { readonly: true });
    try {
      const jobs = db
        .prepare(
          `SELECT created_at AS createdAt, finished_at AS finishedAt, status,
          json_extract(request, '$.scheduledFor') AS scheduledFor FROM jobs
        WHERE kind = 'capture' AND json_extract(request, '$.scheduledFor') >= ? AND json_extract(request, '$.scheduledFor') < ?`,
        )
        .all(from.toISOString(), to.toISOString()) as {
        createdAt: string;
        finishedAt: string | null;
        status: string;
        scheduledFor: string;
      }[];
      const lateness = jobs.map((j) => Date.parse(j.createdAt) - Date.parse(j.scheduledFor));
      const done = jobs.filter((j) => j.finishedAt).map((j) => Date.parse(j.finishedAt!) - Date.parse(j.scheduledFor));
      const captures = db
        .prepare(
          `SELECT COUNT(*) AS n, SUM(status = 'failed') AS failed FROM captures WHERE taken_at >= ? AND taken_at < ?`,
        )
        .get(from.toISOString(), to.toISOString()) as { n: number; failed: number | null };
      const skipped = (db.prepare('SELECT SUM(skipped_runs) AS n FROM monitors').get() as { n: number }).n;
      const capturesPerMinute = captures.n / minutes;
      const lastDone = new Map<string, { count: number; last: number }>();
      for (const j of jobs) {
        if (!j.finishedAt) continue;
        const t = lastDone.get(j.scheduledFor) ?? { count: 0, last: 0 };
        lastDone.set(j.scheduledFor, { count: t.count + 1, last: Math.max(t.last, Date.parse(j.finishedAt)) });
      }
      const capacities = [...lastDone].map(([tick, t]) => t.count / ((t.last - Date.parse(tick)) / 60_000));
      const captureCapacityPerMinute = capacities.reduce((a, b) => a + b, 0) / Math.max(1, capacities.length);
      return {
        monitors,
        minutes,
        tickLatenessP50Ms: round1(percentile(lateness, 50)),
        tickLatenessP95Ms: round1(percentile(lateness, 95)),
        captureDoneP50Ms: Math.round(percentile(done, 50)),
        captureDoneP95Ms: Math.round(percentile(done, 95)),
        capturesPerMinute: round1(capturesPerMinute),
        skippedTicks: skipped,
        failedCaptures: captures.failed ?? 0,
        syncRendersPerMinute: round1(syncRendersPerMinute),
        captureCapacityPerMinute: round1(captureCapacityPerMinute),
        capturesOverSync: Math.round((captureCapacityPerMinute / syncRendersPerMinute) * 100) / 100,
      };
    } finally {
      db.close();
    }
  } finally {
    await site.close();
  }
}
