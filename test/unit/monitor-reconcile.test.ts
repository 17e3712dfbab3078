// Monitors on two nodes: two schedulers, each over its own connection to one SQLite file (two "nodes").
// A monitor created, changed, paused, resumed or deleted through node A reaches node B's tasks when B
// reconciles — on its backend's `monitors` change (on PostgreSQL every node hears it; here the test
// relays it as the LISTEN connection would) or, with no notification at all, at its reconcile interval.
// Fake timers drive node-cron, the interval and the scheduler's clock alike.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { openDatabase, type Db } from '../../src/stores/sql/sqlite/connection.js';
import { SqliteBackend } from '../../src/stores/sql/sqlite/backend.js';
import type { NamedSettings } from '../../src/domain/monitor-settings.js';
import { JobQueue } from '../../src/jobs/queue.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import { createLogger } from '../../src/log.js';
import { CAPTURE_JOB_KIND } from '../../src/monitors/recorder.js';
import { MonitorRuns } from '../../src/monitors/runs.js';
import { MonitorScheduler, systemClock } from '../../src/monitors/scheduler.js';
import { projectRoot } from '../../src/project-root.js';
import { settings } from '../contract/monitor-fixtures.js';

const HOURLY = '0 * * * *';
const EVERY_MINUTE = '* * * * *';
const START = new Date('2026-06-01T12:00:30.000Z');
const RECONCILE_MS = 10_000;

interface Node {
  backend: SqliteBackend;
  scheduler: MonitorScheduler;
}

let dir: string;
let db: Db;
let a: Node;
let b: Node;
let keyId: string;

function node(file: string, intervalMs: number): Node {
  const backend = new SqliteBackend(openDatabase(file));
  const queue = new JobQueue(backend, { maxAttempts: 3, leaseMs: 30_000, maxQueuedPerKey: 100 });
  const idle: JobRunner = { run: () => Promise.resolve({}), keepAfterFinish: (request) => request };
  queue.register(CAPTURE_JOB_KIND, idle);
  const runs = new MonitorRuns(backend, queue, 1);
  const log = createLogger('silent');
  const scheduler = new MonitorScheduler({
    monitors: backend.stores.monitors,
    runs,
    log,
    clock: systemClock,
    reconcile: { changes: backend.changes, intervalMs },
  });
  return { backend, scheduler };
}

beforeEach(async () => {
  vi.useFakeTimers({ now: START });
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-reconcile-'));
  const file = join(dir, 'test.db');
  db = openDatabase(file);
  migrate(db, readMigrations(resolve(projectRoot(), 'migrations', 'sqlite')));
  a = node(file, RECONCILE_MS);
  b = node(file, RECONCILE_MS);
  keyId = (await a.backend.stores.keys.create('k')).id;
});
afterEach(async () => {
  for (const n of [a, b]) await n.scheduler.stop(Date.now());
  vi.useRealTimers();
  for (const n of [a, b]) await n.backend.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Node A's API at work: the row written through A, then A's own scheduler told (as MonitorService does). */
async function createOnA(id: string, over: Partial<NamedSettings> = {}) {
  await a.backend.stores.monitors.insert(
    { id, keyId, settings: settings({ schedule: HOURLY, ...over }), baseUrl: 'http://x' },
    new Date(),
  );
  await a.scheduler.schedule((await a.backend.stores.monitors.get(id))!);
}
async function updateOnA(id: string, change: Partial<NamedSettings>) {
  const m = (await a.backend.stores.monitors.get(id))!;
  await a.backend.stores.monitors.update(id, { ...m.settings, ...change }, m.baseUrl, false, new Date());
  await a.scheduler.schedule((await a.backend.stores.monitors.get(id))!);
}
/** What PostgreSQL's LISTEN connection does on node B when A commits a monitor change. */
const notifyB = () => b.backend.changes.emit('monitors');
const untilB = async (what: string, ok: () => boolean) => {
  for (let i = 0; i < 40 && !ok(); i++) await vi.advanceTimersByTimeAsync(50); // 2 s of fake time at most
  expect(ok(), `node B: ${what} within 2 s`).toBe(true);
};

describe('monitors changed through another node', () => {
  it('created, changed, paused, resumed, deleted on A: B follows on the monitors change', async () => {
    await a.scheduler.start();
    await b.scheduler.start();

    await createOnA('mon_1');
    notifyB();
    await untilB(
      'has the new monitor, hourly',
      () => b.scheduler.nextRunOf('mon_1')?.toISOString() === '2026-06-01T13:00:00.000Z',
    );

    await updateOnA('mon_1', { schedule: EVERY_MINUTE });
    notifyB();
    await untilB(
      'runs it every minute',
      () => b.scheduler.nextRunOf('mon_1')?.toISOString() === '2026-06-01T12:01:00.000Z',
    );

    await updateOnA('mon_1', { timezone: 'Asia/Kolkata', schedule: HOURLY }); // +05:30: the hour falls on :30
    notifyB();
    await untilB(
      'follows the time zone',
      () => b.scheduler.nextRunOf('mon_1')?.toISOString() === '2026-06-01T12:30:00.000Z',
    );

    await updateOnA('mon_1', { paused: true });
    notifyB();
    await untilB('drops the paused monitor', () => b.scheduler.nextRunOf('mon_1') === undefined);

    await updateOnA('mon_1', { paused: false });
    notifyB();
    await untilB('schedules it again once resumed', () => b.scheduler.nextRunOf('mon_1') !== undefined);

    await a.backend.stores.monitors.delete('mon_1');
    a.scheduler.unschedule('mon_1');
    notifyB();
    await untilB('drops the deleted monitor', () => b.scheduler.nextRunOf('mon_1') === undefined);
    expect(b.scheduler.scheduledCount).toBe(0);
  });

  it('with the notification lost, B catches up at its reconcile interval, and not before', async () => {
    await a.scheduler.start();
    await b.scheduler.start();
    await createOnA('mon_2');
    await vi.advanceTimersByTimeAsync(RECONCILE_MS - 1000); // 9 s on the fake clock: no reconcile due yet
    expect(b.scheduler.nextRunOf('mon_2')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1000);
    await untilB('has the monitor after one interval', () => b.scheduler.nextRunOf('mon_2') !== undefined);
  });

  it('a reconcile that read the database before a change made here leaves that change alone', async () => {
    await a.scheduler.start();
    await createOnA('mon_3');
    // Node B's scheduler, whose reconcile's read of the active monitors is held until the test lets go.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const store = b.backend.stores.monitors;
    const slowStore = Object.assign(Object.create(store) as typeof store, {
      active: async () => {
        const rows = await store.active();
        await held;
        return rows;
      },
    });
    const runs = new MonitorRuns(
      b.backend,
      new JobQueue(b.backend, { maxAttempts: 3, leaseMs: 1, maxQueuedPerKey: 1 }),
      1,
    );
    const slow = new MonitorScheduler({ monitors: slowStore, runs, log: createLogger('silent') });
    await slow.schedule((await store.get('mon_3'))!); // before start: no task, as for a stopped node
    const started = slow.start(); // start's own read is held too
    release();
    await started;
    expect(slow.nextRunOf('mon_3')).toBeDefined();
    let releaseAgain!: () => void;
    const heldAgain = new Promise<void>((resolve) => (releaseAgain = resolve));
    slowStore.active = async () => {
      const rows = await store.active();
      await heldAgain;
      return rows;
    };
    const reading = slow.reconcile(); // reads mon_3 active, then waits
    await vi.advanceTimersByTimeAsync(0);
    // Meanwhile B's own API pauses it: the row and the task change after the reconcile's read.
    const m = (await store.get('mon_3'))!;
    await store.update('mon_3', { ...m.settings, paused: true }, m.baseUrl, false, new Date());
    await slow.schedule((await store.get('mon_3'))!);
    expect(slow.nextRunOf('mon_3')).toBeUndefined();
    releaseAgain();
    await reading;
    expect(slow.nextRunOf('mon_3')).toBeUndefined(); // the stale read did not bring the paused monitor back
    await slow.stop(Date.now());
  });

  // One after the other: two connections to one SQLite file in one thread would wait on each other's
  // write lock synchronously. Nodes starting at the same instant are PostgreSQL's case (part A).
  it('after every node restarts, a missed run gets one catch-up capture, not one per node', async () => {
    await createOnA('mon_4', { schedule: EVERY_MINUTE }); // A is not started: schedule only stores no next run
    db.prepare("UPDATE monitors SET next_run_at = '2026-06-01T12:00:00.000Z' WHERE id = 'mon_4'").run();
    await a.scheduler.start();
    await b.scheduler.start();
    const jobs = db.prepare("SELECT request FROM jobs WHERE monitor_id = 'mon_4'").all() as { request: string }[];
    expect(jobs.map((j) => (JSON.parse(j.request) as { reason: string }).reason)).toEqual(['catch-up']);
  });
});
