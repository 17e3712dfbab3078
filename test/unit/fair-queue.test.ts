// The claim statement on a real SQLite file with the real migrations: keys take turns (a key with
// many jobs queued holds another key's job back by at most one render per slot), jobs of a revoked
// key are never claimed — also ones queued after the revocation — and capture jobs count toward the
// key's jobs.maxQueuedPerKey. Revoking a key stops all its work in one transaction.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyRevocation } from '../../src/auth/revocation.js';
import { SyncKeys } from '../helpers/sync-keys.js';
import { IdempotencyKeyStore } from '../../src/db/idempotency-keys.js';
import { JobStore } from '../../src/db/jobs.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { SqliteBackend } from '../../src/db/sqlite-backend.js';
import { DeliveryStore } from '../../src/db/webhook-deliveries.js';
import { AppError } from '../../src/errors.js';
import { JobQueue, type Submission } from '../../src/jobs/queue.js';
import { projectRoot } from '../../src/project-root.js';

let dir: string;
let db: Db;
let jobs: JobStore;
let keys: SyncKeys;
let queue: JobQueue;

const LEASE = 30_000;
const T0 = new Date('2026-11-22T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-fair-'));
  db = openDatabase(join(dir, 'test.db'));
  migrate(db, readMigrations(resolve(projectRoot(), 'migrations')));
  jobs = new JobStore(db);
  keys = new SyncKeys(db);
  queue = new JobQueue(db, jobs, new DeliveryStore(db), new IdempotencyKeyStore(db), {
    maxAttempts: 3,
    leaseMs: LEASE,
    maxQueuedPerKey: 300,
  });
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const submission = (keyId: string): Submission => ({
  keyId,
  kind: 'pdf',
  request: { html: '<p>x</p>', timeout: 30_000 },
  baseUrl: 'http://pagewatch.test',
});

describe('keys take turns', () => {
  it("another key's single job is claimed at the next free slot, ahead of a long queue queued before it", () => {
    const a = keys.create('a').id;
    const b = keys.create('b').id;
    const aJobs = Array.from({ length: 200 }, (_, i) => queue.submit(submission(a), at(i)).job.id);
    // Two slots, both busy with A's oldest; then B queues one job and one of A's finishes.
    const running = queue.claim('w', 2, at(500)).claimed;
    expect(running.map((j) => j.id)).toEqual(aJobs.slice(0, 2));
    const bJob = queue.submit(submission(b), at(1000)).job.id;
    queue.succeed(
      running[0]!,
      'w',
      {
        key: 'r',
        contentType: 'application/pdf',
        bytes: 1,
        expiresAt: at(9e6).toISOString(),
        meta: { renderMs: 1, truncated: false },
      },
      at(1500),
    );
    // The freed slot goes to B's job, not to A's third; A's third comes next.
    expect(queue.claim('w', 1, at(2001)).claimed.map((j) => j.id)).toEqual([bJob]);
    expect(queue.claim('w', 1, at(2002)).claimed.map((j) => j.id)).toEqual([aJobs[2]]);
  });

  it('with nothing running, one claim of many slots interleaves the keys, oldest first within each', () => {
    const a = keys.create('a').id;
    const b = keys.create('b').id;
    const aJobs = [0, 1, 2].map((i) => queue.submit(submission(a), at(i)).job.id);
    const bJobs = [10, 11].map((i) => queue.submit(submission(b), at(i)).job.id);
    const claimed = queue.claim('w', 4, at(100)).claimed.map((j) => j.id);
    expect(new Set(claimed)).toEqual(new Set([aJobs[0], aJobs[1], bJobs[0], bJobs[1]]));
  });

  it('a job whose worker died is claimed again with its turn (the lease and attempt rules hold)', () => {
    const a = keys.create('a').id;
    const { id } = queue.submit(submission(a), at(0)).job;
    queue.claim('w1', 1, at(0));
    expect(queue.claim('w2', 1, at(LEASE - 1)).claimed).toEqual([]);
    expect(queue.claim('w2', 1, at(LEASE + 1)).claimed[0]).toMatchObject({ id, attempts: 2, leaseOwner: 'w2' });
  });
});

describe('revoked keys', () => {
  it('the claim statement itself never returns a job of a revoked key', () => {
    const a = keys.create('a').id;
    keys.revoke(a, at(0));
    // Inserted after the revocation, as an instance that had not heard of it would.
    jobs.insert({ id: 'job_straggler', keyId: a, kind: 'pdf', request: '{}', baseUrl: 'http://x' }, at(1));
    expect(jobs.claim('w', 5, LEASE, 3, at(2))).toEqual([]);
    expect(jobs.get('job_straggler')).toMatchObject({ status: 'queued', attempts: 0 });
  });

  it('a claim cancels stragglers of revoked keys (and says which, to stop them) and claims the others', () => {
    const a = keys.create('a').id;
    const b = keys.create('b').id;
    keys.revoke(a, at(0));
    jobs.insert({ id: 'job_straggler', keyId: a, kind: 'pdf', request: '{}', baseUrl: 'http://x' }, at(1));
    const other = queue.submit(submission(b), at(2)).job.id;
    const { claimed, canceled } = queue.claim('w', 5, at(3));
    expect(claimed.map((j) => j.id)).toEqual([other]);
    expect(canceled).toEqual(['job_straggler']);
    expect(jobs.get('job_straggler')).toMatchObject({ status: 'canceled', attempts: 0, startedAt: null });
  });

  it('revoking cancels queued and running jobs of every kind, pauses monitors and fails pending deliveries, in one go', async () => {
    const a = keys.create('a').id;
    const b = keys.create('b').id;
    const queued = queue.submit(submission(a), at(0)).job.id;
    const running = queue.submit(submission(a), at(1)).job.id;
    const others = queue.submit(submission(b), at(2)).job.id;
    queue.claim('w', 1, at(3)); // `queued` is the oldest: claim it, so the names swap roles
    db.prepare(
      `INSERT INTO monitors (id, key_id, name, url, schedule, timezone, capture, diff, notify, retention, base_url,
      next_run_at, created_at, updated_at) VALUES ('mon_a', ?, 'm', 'http://x', '* * * * *', 'UTC', '{}', '{}', '[]', '{}', 'http://x',
      '2026-11-22T10:01:00.000Z', 'now', 'now')`,
    ).run(a);
    jobs.insert(
      { id: 'job_capture', keyId: a, kind: 'capture', request: '{}', baseUrl: 'http://x', monitorId: 'mon_a' },
      at(4),
    );
    db.prepare(
      `INSERT INTO webhook_deliveries (id, key_id, message_id, event_type, url, payload, status, next_attempt_at, created_at)
      VALUES ('whd_a', ?, 'msg_a', 'job.succeeded', 'http://r', '{}', 'pending', 'x', 'x')`,
    ).run(a);
    // Over the same handle: the backend is not closed (afterEach closes the handle).
    const revocation = (await new KeyRevocation(new SqliteBackend(db)).revoke(a, at(5)))!;
    expect(revocation).toMatchObject({ revokedNow: true, pausedMonitors: 1, failedDeliveries: 1 });
    expect(new Set(revocation.canceledJobs)).toEqual(new Set([queued, running, 'job_capture']));
    for (const id of [queued, running, 'job_capture']) expect(jobs.get(id)!.status).toBe('canceled');
    expect(jobs.get(others)!.status).toBe('queued');
    expect(db.prepare(`SELECT paused, next_run_at AS next FROM monitors`).get()).toEqual({ paused: 1, next: null });
    expect(db.prepare(`SELECT status, last_error AS error FROM webhook_deliveries`).get()).toEqual({
      status: 'failed',
      error: 'not sent: the API key was revoked',
    });
    expect(keys.get(a)!.revokedAt).toBe(at(5).toISOString());
  });
});

describe('capture jobs and jobs.maxQueuedPerKey', () => {
  it('capture jobs count toward the cap: a render submission at the cap is queue_full', () => {
    const a = keys.create('a').id;
    const small = new JobQueue(db, jobs, new DeliveryStore(db), new IdempotencyKeyStore(db), {
      maxAttempts: 3,
      leaseMs: LEASE,
      maxQueuedPerKey: 2,
    });
    small.submit(submission(a), at(0));
    jobs.insert(
      { id: 'job_capture', keyId: a, kind: 'capture', request: '{}', baseUrl: 'http://x', monitorId: 'mon_x' },
      at(1),
    );
    expect(jobs.countActive(a)).toBe(2);
    expect(() => small.submit(submission(a), at(2))).toThrow(AppError);
  });
});
