// The scheduler on fake time: real SQLite, the real MonitorRuns and node-cron, with vitest's fake Date
// and timers driving node-cron and the scheduler's clock alike. Ticks only enqueue capture jobs, so no
// browser and no worker are needed: the jobs table shows what each tick did, and "nothing happens" is
// exact — the fake clock is moved on and every timer due in that time has run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { openDatabase, type Db } from '../../src/stores/sql/sqlite/connection.js';
import { SqliteBackend } from '../../src/stores/sql/sqlite/backend.js';
import { JobQueue } from '../../src/jobs/queue.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import { createLogger } from '../../src/log.js';
import { CAPTURE_JOB_KIND } from '../../src/monitors/recorder.js';
import type { NamedSettings } from '../../src/domain/monitor-settings.js';
import { MonitorRuns } from '../../src/monitors/runs.js';
import { MonitorScheduler } from '../../src/monitors/scheduler.js';
import { projectRoot } from '../../src/project-root.js';
import type { MonitorStore as Monitors } from '../../src/stores/monitors.js';
import { settings } from '../contract/monitor-fixtures.js';

const EVERY_SECOND = '*/1 * * * * *';
const YEARLY = '0 0 1 1 *';
/** Half a second past a whole second, so every tick of EVERY_SECOND falls strictly inside a step. */
const START = new Date('2026-06-01T12:00:00.500Z');

let dir: string;
let db: Db;
let backend: SqliteBackend;
let monitors: Monitors;
let keyId: string;
let scheduler: MonitorScheduler;

beforeEach(async () => {
  vi.useFakeTimers({ now: START });
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-schedule-'));
  db = openDatabase(join(dir, 'test.db'));
  migrate(db, readMigrations(resolve(projectRoot(), 'migrations', 'sqlite')));
  backend = new SqliteBackend(db);
  monitors = backend.stores.monitors;
  keyId = (await backend.stores.keys.create('k')).id;
  scheduler = newScheduler();
});
afterEach(async () => {
  await scheduler.stop(Date.now());
  vi.useRealTimers();
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The real runs: capture jobs queued in the jobs table (no worker takes them here). */
const newRuns = () => {
  const queue = new JobQueue(backend, { maxAttempts: 3, leaseMs: 30_000, maxQueuedPerKey: 100 });
  const idle: JobRunner = { run: () => Promise.resolve({}), keepAfterFinish: (request) => request };
  queue.register(CAPTURE_JOB_KIND, idle);
  return new MonitorRuns(backend, queue, 1);
};
const newScheduler = () => new MonitorScheduler({ monitors, runs: newRuns(), log: createLogger('silent') });

async function addMonitor(id: string, over: Partial<NamedSettings> = {}) {
  await monitors.insert(
    { id, keyId, settings: settings({ schedule: EVERY_SECOND, ...over }), baseUrl: 'http://x' },
    START,
  );
  return (await monitors.get(id))!;
}

/** The capture jobs queued for the monitor, oldest first: why each was queued, and for which tick. */
const jobsOf = (monitorId: string) =>
  (
    db.prepare('SELECT request FROM jobs WHERE monitor_id = ? ORDER BY created_at, rowid').all(monitorId) as {
      request: string;
    }[]
  ).map((r) => JSON.parse(r.request) as { reason: string; scheduledFor?: string });

/** The capture ran: its job is finished, so the next tick may queue another. */
const finishJobs = () =>
  db.prepare(`UPDATE jobs SET status = 'succeeded', finished_at = 'x' WHERE status = 'queued'`).run();

const seconds = (n: number) => vi.advanceTimersByTimeAsync(n * 1000);
const at = (offsetSeconds: number) => new Date(Date.parse('2026-06-01T12:00:00.000Z') + offsetSeconds * 1000);

describe('a running schedule', () => {
  it('each tick queues one capture for that tick and moves nextRunAt on', async () => {
    await scheduler.start();
    await scheduler.schedule(await addMonitor('mon_a'));
    expect((await monitors.get('mon_a'))!.nextRunAt).toBe(at(1).toISOString());

    for (let i = 1; i <= 3; i++) {
      await seconds(1);
      finishJobs();
    }
    expect(jobsOf('mon_a')).toEqual(
      [1, 2, 3].map((s) => ({ monitorId: 'mon_a', reason: 'schedule', scheduledFor: at(s).toISOString() })),
    );
    expect((await monitors.get('mon_a'))!.nextRunAt).toBe(at(4).toISOString());
    expect(scheduler.scheduledCount).toBe(1);
  });

  it('a tick that finds the previous capture unfinished queues nothing and is counted', async () => {
    await scheduler.start();
    await scheduler.schedule(await addMonitor('mon_a'));
    await seconds(3); // the first tick's capture never finishes here
    expect(jobsOf('mon_a')).toHaveLength(1);
    expect((await monitors.get('mon_a'))!.skippedRuns).toBe(2);
  });

  it('pause unschedules at once and clears nextRunAt; no tick comes while paused; resume starts again', async () => {
    await scheduler.start();
    const m = await addMonitor('mon_a');
    await scheduler.schedule(m);
    await seconds(1);
    finishJobs();

    await scheduler.schedule({ ...m, settings: { ...m.settings, paused: true } });
    expect(scheduler.scheduledCount).toBe(0);
    expect((await monitors.get('mon_a'))!.nextRunAt).toBeNull();
    await seconds(60);
    expect(jobsOf('mon_a')).toHaveLength(1);

    await scheduler.schedule(m);
    await seconds(1);
    expect(jobsOf('mon_a').map((j) => j.scheduledFor)).toEqual([at(1).toISOString(), at(62).toISOString()]);
  });

  it('a new schedule takes effect at once: yearly → every second', async () => {
    await scheduler.start();
    const m = await addMonitor('mon_a', { schedule: YEARLY });
    await scheduler.schedule(m);
    expect((await monitors.get('mon_a'))!.nextRunAt).toBe('2027-01-01T00:00:00.000Z');
    await seconds(120);
    expect(jobsOf('mon_a')).toEqual([]);

    await scheduler.schedule({ ...m, settings: { ...m.settings, schedule: EVERY_SECOND } });
    expect((await monitors.get('mon_a'))!.nextRunAt).toBe(at(121).toISOString());
    await seconds(1);
    expect(jobsOf('mon_a')).toHaveLength(1);
  });

  it('unschedule (a deleted monitor): no tick comes afterwards', async () => {
    await scheduler.start();
    await scheduler.schedule(await addMonitor('mon_a'));
    await seconds(1);
    scheduler.unschedule('mon_a');
    finishJobs();
    await seconds(60);
    expect(jobsOf('mon_a')).toHaveLength(1);
  });

  it('a monitor paused by another process, or whose key was revoked, is unscheduled at its next tick', async () => {
    await scheduler.start();
    await scheduler.schedule(await addMonitor('mon_a'));
    await scheduler.schedule(await addMonitor('mon_b'));
    db.prepare(`UPDATE monitors SET paused = 1 WHERE id = 'mon_a'`).run(); // as another process would
    await seconds(1);
    expect(scheduler.scheduledCount).toBe(1);
    expect(jobsOf('mon_a')).toEqual([]);

    db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(START.toISOString(), keyId);
    await seconds(1);
    expect(scheduler.scheduledCount).toBe(0);
    expect(jobsOf('mon_b')).toHaveLength(1); // its first tick, before the revocation
  });

  it('stop: no tick after it', async () => {
    await scheduler.start();
    await scheduler.schedule(await addMonitor('mon_a'));
    await scheduler.stop(Date.now());
    await seconds(60);
    expect(jobsOf('mon_a')).toEqual([]);
    expect(scheduler.scheduledCount).toBe(0);
  });

  it('a monitor scheduled before start (or after stop) is not: only its nextRunAt is cleared', async () => {
    const m = await addMonitor('mon_a');
    await monitors.setNextRun('mon_a', at(5));
    await scheduler.schedule(m);
    expect(scheduler.scheduledCount).toBe(0);
    expect((await monitors.get('mon_a'))!.nextRunAt).toBeNull();
  });
});

describe('start', () => {
  it('schedules every active monitor from the database, paused ones not', async () => {
    await addMonitor('mon_a');
    await addMonitor('mon_p', { paused: true });
    await scheduler.start();
    expect(scheduler.scheduledCount).toBe(1);
    await seconds(1);
    expect(jobsOf('mon_a')).toHaveLength(1);
    expect(jobsOf('mon_p')).toEqual([]);
  });

  it('runs missed while stopped get exactly one catch-up capture; none when nothing was missed', async () => {
    await addMonitor('mon_missed', { schedule: YEARLY });
    await monitors.setNextRun('mon_missed', new Date('2026-01-01T00:00:00.000Z')); // five months of ticks ago
    await addMonitor('mon_due_later', { schedule: YEARLY });
    await monitors.setNextRun('mon_due_later', new Date('2027-01-01T00:00:00.000Z'));
    await scheduler.start();
    expect(jobsOf('mon_missed')).toEqual([{ monitorId: 'mon_missed', reason: 'catch-up' }]);
    expect(jobsOf('mon_due_later')).toEqual([]);
    expect((await monitors.get('mon_missed'))!.nextRunAt).toBe('2027-01-01T00:00:00.000Z');
    await seconds(600);
    expect(jobsOf('mon_missed')).toHaveLength(1);

    // A restart: nothing was missed this time.
    await scheduler.stop(Date.now());
    finishJobs();
    scheduler = newScheduler();
    await scheduler.start();
    expect(jobsOf('mon_missed')).toHaveLength(1);
  });

  it('reads the injected clock: a next run after its now is not missed', async () => {
    await addMonitor('mon_a', { schedule: YEARLY });
    await monitors.setNextRun('mon_a', new Date('2026-01-01T00:00:00.000Z'));
    scheduler = new MonitorScheduler({
      monitors,
      runs: newRuns(),
      log: createLogger('silent'),
      clock: { now: () => new Date('2025-12-31T00:00:00.000Z') },
    });
    await scheduler.start();
    expect(jobsOf('mon_a')).toEqual([]);
  });
});

describe("a node whose clock runs ahead of the database's", () => {
  it('waits out the difference: a tick is queued when the clock reaches it, not when node-cron fires', async () => {
    await scheduler.stop(Date.now());
    // The database's clock 3 s behind this node's (fake) clock, which node-cron fires on.
    const clock = { now: () => new Date(Date.now() - 3000) };
    scheduler = new MonitorScheduler({ monitors, runs: newRuns(), log: createLogger('silent'), clock });
    await scheduler.start();
    await scheduler.schedule(await addMonitor('mon_a'));
    await seconds(1); // node-cron fires the 12:00:01 tick; the clock says 11:59:58.5
    expect(jobsOf('mon_a')).toEqual([]);
    await seconds(2); // the clock says 12:00:00.5
    expect(jobsOf('mon_a')).toEqual([]);
    await seconds(1); // the clock passes 12:00:01
    expect(jobsOf('mon_a').map((j) => j.scheduledFor)).toEqual([at(1).toISOString()]);
  });

  it('a tick still waiting when the scheduler stops is dropped', async () => {
    await scheduler.stop(Date.now());
    const clock = { now: () => new Date(Date.now() - 60_000) };
    scheduler = new MonitorScheduler({ monitors, runs: newRuns(), log: createLogger('silent'), clock });
    await scheduler.start();
    await scheduler.schedule(await addMonitor('mon_a'));
    await seconds(1);
    await scheduler.stop(Date.now() + 1000); // returns at once: the waiting tick gives up
    await seconds(120);
    expect(jobsOf('mon_a')).toEqual([]);
  });
});
