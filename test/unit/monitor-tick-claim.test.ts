// A schedule tick is claimed in the database, and the claim itself enforces two rules that request
// validation cannot: a monitor stored with a schedule faster than monitors.minIntervalSeconds (before the
// limit existed, or before it was raised) runs no faster than the limit, and a monitor of a revoked key
// queues nothing — even one that a request in flight at the revocation left unpaused. Real SQLite, the
// real MonitorRuns; nothing is rendered.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { openDatabase, type Db } from '../../src/stores/sql/sqlite/connection.js';
import { SqliteBackend } from '../../src/stores/sql/sqlite/backend.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { CAPTURE_JOB_KIND } from '../../src/monitors/recorder.js';
import { MonitorRuns } from '../../src/monitors/runs.js';
import { projectRoot } from '../../src/project-root.js';
import type { Backend } from '../../src/stores/backend.js';

let dir: string;
let db: Db;
let backend: SqliteBackend;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-tick-'));
  db = openDatabase(join(dir, 'test.db'));
  migrate(db, readMigrations(resolve(projectRoot(), 'migrations', 'sqlite')));
  backend = new SqliteBackend(db);
});
afterEach(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The runs over a real queue; nothing claims or runs the capture jobs. */
function runsWith(minIntervalSeconds: number): MonitorRuns {
  const queue = new JobQueue(backend, { maxAttempts: 3, leaseMs: 30_000, maxQueuedPerKey: 1000 });
  queue.register(CAPTURE_JOB_KIND, { run: () => Promise.resolve({}), keepAfterFinish: (request) => request });
  return new MonitorRuns(backend, queue, minIntervalSeconds);
}

/** A monitor as an older version stored it: every second, which today's validation would refuse. */
function everySecondMonitor(keyId: string, id: string): void {
  db.prepare(
    `INSERT INTO monitors (id, key_id, name, url, schedule, timezone, capture, diff, notify, retention, base_url,
    created_at, updated_at) VALUES (?, ?, 'm', 'http://x', '* * * * * *', 'UTC', '{}', '{}', '[]', '{"keep":5}', 'http://x', 'x', 'x')`,
  ).run(id, keyId);
}

const captureJobs = (monitorId: string) =>
  (db.prepare('SELECT COUNT(*) AS n FROM jobs WHERE monitor_id = ?').get(monitorId) as { n: number }).n;
/** Finish the monitor's capture jobs, so "one capture at a time" does not skip the next tick. */
const finishCaptures = (monitorId: string) =>
  db.prepare(`UPDATE jobs SET status = 'succeeded', finished_at = 'x' WHERE monitor_id = ?`).run(monitorId);

it('a stored every-second schedule is held to minIntervalSeconds: ticks closer than 60 s to the last one taken are passed over', async () => {
  const keyId = (await backend.stores.keys.create('k')).id;
  everySecondMonitor(keyId, 'mon_1');
  const runs = runsWith(60);
  const t0 = Date.parse('2026-06-01T00:00:00.000Z');
  const outcomes = [];
  for (let s = 0; s <= 120; s++) {
    outcomes.push(await runs.tick('mon_1', new Date(t0 + s * 1000)));
    finishCaptures('mon_1');
  }
  // Seconds 0, 60 and 120 are taken: 60 s apart exactly (the edge) is allowed, 59 s is not.
  expect(outcomes.flatMap((o, s) => (o === 'queued' ? [s] : []))).toEqual([0, 60, 120]);
  expect(captureJobs('mon_1')).toBe(3);
});

it('without a minimum (the limit set to 1 s) the same monitor takes every tick', async () => {
  const keyId = (await backend.stores.keys.create('k')).id;
  everySecondMonitor(keyId, 'mon_1');
  const runs = runsWith(1);
  const t0 = Date.parse('2026-06-01T00:00:00.000Z');
  for (let s = 0; s < 5; s++) {
    expect(await runs.tick('mon_1', new Date(t0 + s * 1000))).toBe('queued');
    finishCaptures('mon_1');
  }
});

it("a revoked key's monitor that was left unpaused queues nothing, and its next run is not kept (the scheduler drops it)", async () => {
  const { keys, monitors } = backend.stores;
  const revoked = (await keys.create('revoked')).id;
  const active = (await keys.create('active')).id;
  everySecondMonitor(revoked, 'mon_revoked');
  everySecondMonitor(active, 'mon_active');
  await keys.revoke(revoked);
  // The revocation paused it; a request that passed the key check just before then wrote it back unpaused.
  db.prepare('UPDATE monitors SET paused = 0').run();
  const runs = runsWith(1);
  const tick = new Date('2026-06-01T00:00:00.000Z');
  expect(await runs.tick('mon_revoked', tick)).toBe('taken');
  expect(await runs.tick('mon_active', tick)).toBe('queued');
  expect(captureJobs('mon_revoked')).toBe(0);
  expect(await monitors.setNextRunIfActive('mon_revoked', new Date(tick.getTime() + 1000))).toBe(false);
  expect(await monitors.setNextRunIfActive('mon_active', new Date(tick.getTime() + 1000))).toBe(true);
});

it('ticks that fire together are taken in one transaction, and the same tick fired twice is taken once', async () => {
  const keyId = (await backend.stores.keys.create('k')).id;
  for (let i = 0; i < 30; i++) everySecondMonitor(keyId, `mon_${i}`);
  let transactions = 0;
  const claimed: string[] = [];
  const counting: Pick<Backend, 'transaction'> = {
    transaction: (fn) => {
      transactions++;
      return backend.transaction((tx) => {
        const claimTick = tx.monitors.claimTick.bind(tx.monitors);
        tx.monitors.claimTick = (id, ...rest) => (claimed.push(id), claimTick(id, ...rest));
        return fn(tx);
      });
    },
  };
  const queue = new JobQueue(backend, { maxAttempts: 3, leaseMs: 30_000, maxQueuedPerKey: 1000 });
  queue.register(CAPTURE_JOB_KIND, { run: () => Promise.resolve({}), keepAfterFinish: (request) => request });
  const runs = new MonitorRuns(counting, queue, 1);
  const tick = new Date('2026-06-01T00:00:00.000Z');
  // Fired in reverse order; taken in monitor id order, so that nodes taking the same ticks lock the same
  // rows in the same order (PostgreSQL would otherwise end one of two such transactions as a deadlock).
  const fired = [...Array.from({ length: 30 }, (_, i) => `mon_${i}`), 'mon_0'].reverse();
  const outcomes = await Promise.all(fired.map((id) => runs.tick(id, tick)));
  expect(outcomes.slice(0, 30).every((o) => o === 'queued')).toBe(true);
  expect(outcomes[30]).toBe('taken'); // the second mon_0 of the same tick
  expect(transactions).toBe(1);
  expect(claimed).toEqual([...fired].sort());
  for (let i = 0; i < 30; i++) expect(captureJobs(`mon_${i}`)).toBe(1);
});

it('one tick that fails in a gathered transaction costs the others nothing: they are taken one by one', async () => {
  const keyId = (await backend.stores.keys.create('k')).id;
  for (let i = 0; i < 5; i++) everySecondMonitor(keyId, `mon_${i}`);
  // mon_3's row is broken the way a failing statement would be: its tick throws, the rest must not.
  const failing: Pick<Backend, 'transaction'> = {
    transaction: (fn) =>
      backend.transaction((tx) => {
        const claimTick = tx.monitors.claimTick.bind(tx.monitors);
        tx.monitors.claimTick = (id, ...rest) =>
          id === 'mon_3' ? Promise.reject(new Error('broken row')) : claimTick(id, ...rest);
        return fn(tx);
      }),
  };
  const queue = new JobQueue(backend, { maxAttempts: 3, leaseMs: 30_000, maxQueuedPerKey: 1000 });
  queue.register(CAPTURE_JOB_KIND, { run: () => Promise.resolve({}), keepAfterFinish: (request) => request });
  const runs = new MonitorRuns(failing, queue, 1);
  const tick = new Date('2026-06-01T00:00:00.000Z');
  const settled = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => runs.tick(`mon_${i}`, tick)));
  expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : 'rejected'))).toEqual([
    'queued',
    'queued',
    'queued',
    'rejected',
    'queued',
  ]);
  for (const i of [0, 1, 2, 4]) expect(captureJobs(`mon_${i}`)).toBe(1);
  expect(captureJobs('mon_3')).toBe(0);
});
