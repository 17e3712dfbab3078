// A catch-up capture at start counts toward jobs.maxQueuedPerKey like any capture: a key at its cap
// gets none, and its monitor is scheduled all the same (not lost to the refusal). Real SQLite, the real
// scheduler and runs; no browser is needed, since nothing is rendered.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { openDatabase, type Db } from '../../src/stores/sql/sqlite/connection.js';
import { SqliteBackend } from '../../src/stores/sql/sqlite/backend.js';
import { JobQueue } from '../../src/jobs/queue.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import { createLogger } from '../../src/log.js';
import { CAPTURE_JOB_KIND } from '../../src/monitors/recorder.js';
import { MonitorRuns } from '../../src/monitors/runs.js';
import { MonitorScheduler } from '../../src/monitors/scheduler.js';
import { projectRoot } from '../../src/project-root.js';

let dir: string;
let db: Db;
let backend: SqliteBackend;
let scheduler: MonitorScheduler | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-catchup-'));
  db = openDatabase(join(dir, 'test.db'));
  migrate(db, readMigrations(resolve(projectRoot(), 'migrations', 'sqlite')));
  backend = new SqliteBackend(db);
});
afterEach(async () => {
  await scheduler?.stop(Date.now());
  vi.useRealTimers();
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

function monitorMissedARun(keyId: string, id: string): void {
  db.prepare(
    `INSERT INTO monitors (id, key_id, name, url, schedule, timezone, capture, diff, notify, retention, base_url,
    next_run_at, created_at, updated_at) VALUES (?, ?, 'm', 'http://x', '0 0 1 1 *', 'UTC', '{}', '{}', '[]', '{"keep":5}', 'http://x',
    '2026-01-01T00:00:00.000Z', 'x', 'x')`,
  ).run(id, keyId);
}

const captureJobs = (monitorId: string) =>
  (db.prepare('SELECT COUNT(*) AS n FROM jobs WHERE monitor_id = ?').get(monitorId) as { n: number }).n;

it.each([
  { queued: 1, caught: 1, what: 'one place left (the edge): the catch-up is queued' },
  { queued: 2, caught: 0, what: 'at the cap: no catch-up' },
])('cap 2, $queued render jobs queued — $what; the monitor is scheduled either way', async ({ queued, caught }) => {
  // The scheduler's clock and node-cron's; setImmediate stays real: the queue gathers the submissions of
  // one turn of the event loop into one transaction (src/jobs/gathered.ts) and writes them on the next.
  vi.useFakeTimers({
    now: new Date('2026-06-01T00:00:00.000Z'),
    toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
  });
  const keyId = (await backend.stores.keys.create('k')).id;
  const queue = new JobQueue(backend, { maxAttempts: 3, leaseMs: 30_000, maxQueuedPerKey: 2 });
  const idle: JobRunner = { run: () => Promise.resolve({}), keepAfterFinish: (request) => request };
  for (const kind of ['pdf', CAPTURE_JOB_KIND]) queue.register(kind, idle);
  for (let i = 0; i < queued; i++)
    await queue.submit({ keyId, kind: 'pdf', request: {}, baseUrl: 'http://x' }, new Date());
  monitorMissedARun(keyId, 'mon_1');
  const monitors = backend.stores.monitors;
  scheduler = new MonitorScheduler({ monitors, runs: new MonitorRuns(backend, queue), log: createLogger('silent') });
  await scheduler.start();
  expect(captureJobs('mon_1')).toBe(caught);
  expect(scheduler.scheduledCount).toBe(1);
  expect((await monitors.get('mon_1'))!.nextRunAt).toBe('2027-01-01T00:00:00.000Z');
});
