// The claim statement on a real SQLite file with the real migrations: keys take turns (a key with
// many jobs queued holds another key's job back by at most one render per slot), jobs of a revoked
// key are never claimed — also ones queued after the revocation — and capture jobs count toward the
// key's jobs.maxQueuedPerKey. Revoking a key stops all its work in one transaction.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyRevocation } from '../../src/auth/revocation.js';
import { migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { openDatabase, type Db } from '../../src/stores/sql/sqlite/connection.js';
import { SqliteBackend } from '../../src/stores/sql/sqlite/backend.js';
import { AppError } from '../../src/errors.js';
import { JobQueue, type Submission } from '../../src/jobs/queue.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import { projectRoot } from '../../src/project-root.js';
import type { ApiKeyStore as Keys } from '../../src/stores/api-keys.js';
import type { JobStore, NewJob } from '../../src/stores/jobs.js';

let dir: string;
let db: Db;
let backend: SqliteBackend;
let jobs: JobStore;
let keys: Keys;
let queue: JobQueue;

const LEASE = 30_000;
const T0 = new Date('2026-11-22T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
/** Claims and caps only: nothing is run, and a finished job keeps its request as it is. */
const idle: JobRunner = { run: () => Promise.resolve({}), keepAfterFinish: (request) => request };

function queueOf(maxQueuedPerKey: number): JobQueue {
  const q = new JobQueue(backend, { maxAttempts: 3, leaseMs: LEASE, maxQueuedPerKey });
  for (const kind of ['pdf', 'capture']) q.register(kind, idle);
  return q;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-fair-'));
  db = openDatabase(join(dir, 'test.db'));
  migrate(db, readMigrations(resolve(projectRoot(), 'migrations', 'sqlite')));
  backend = new SqliteBackend(db);
  jobs = backend.stores.jobs;
  keys = backend.stores.keys;
  queue = queueOf(300);
});
afterEach(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

const submission = (keyId: string): Submission => ({
  keyId,
  kind: 'pdf',
  request: { html: '<p>x</p>', timeout: 30_000 },
  baseUrl: 'http://pagewatch.test',
});
const straggler = (keyId: string, over: Partial<NewJob> = {}): NewJob => ({
  id: 'job_straggler',
  keyId,
  kind: 'pdf',
  request: {},
  keptRequest: {},
  baseUrl: 'http://x',
  ...over,
});
/** `n` jobs of one key, a millisecond apart, queued in one transaction (as fast as the test can). */
const ids = (n: number, keyId: string, from: number) =>
  backend.transaction(async (tx) => {
    const made: string[] = [];
    for (let i = 0; i < n; i++) made.push((await queue.enqueue(tx, submission(keyId), at(from + i))).id);
    return made;
  });
const claimIds = async (limit: number, now: Date) => (await queue.claim('w', limit, now)).claimed.map((j) => j.id);

describe('keys take turns', () => {
  it("another key's single job is claimed at the next free slot, ahead of a long queue queued before it", async () => {
    const a = (await keys.create('a')).id;
    const b = (await keys.create('b')).id;
    const aJobs = await ids(200, a, 0);
    // Two slots, both busy with A's oldest; then B queues one job and one of A's finishes.
    const running = (await queue.claim('w', 2, at(500))).claimed;
    expect(running.map((j) => j.id)).toEqual(aJobs.slice(0, 2));
    const bJob = (await queue.submit(submission(b), at(1000))).job.id;
    await queue.succeed(running[0]!, 'w', {}, at(1500));
    // The freed slot goes to B's job, not to A's third; A's third comes next.
    expect(await claimIds(1, at(2001))).toEqual([bJob]);
    expect(await claimIds(1, at(2002))).toEqual([aJobs[2]]);
  });

  it('with nothing running, one claim of many slots interleaves the keys, oldest first within each', async () => {
    const a = (await keys.create('a')).id;
    const b = (await keys.create('b')).id;
    const aJobs = await ids(3, a, 0);
    const bJobs = await ids(2, b, 10);
    const claimed = await claimIds(4, at(100));
    expect(new Set(claimed)).toEqual(new Set([aJobs[0], aJobs[1], bJobs[0], bJobs[1]]));
  });

  it('a job whose worker died is claimed again with its turn (the lease and attempt rules hold)', async () => {
    const a = (await keys.create('a')).id;
    const { id } = (await queue.submit(submission(a), at(0))).job;
    await queue.claim('w1', 1, at(0));
    expect((await queue.claim('w2', 1, at(LEASE - 1))).claimed).toEqual([]);
    expect((await queue.claim('w2', 1, at(LEASE + 1))).claimed[0]).toMatchObject({
      id,
      attempts: 2,
      leaseOwner: 'w2',
    });
  });
});

describe('revoked keys', () => {
  it('the claim statement itself never returns a job of a revoked key', async () => {
    const a = (await keys.create('a')).id;
    await keys.revoke(a, at(0));
    // Inserted after the revocation, as an instance that had not heard of it would.
    await jobs.insert(straggler(a), at(1));
    expect(await jobs.claim('w', 5, LEASE, 3, at(2))).toEqual([]);
    expect(await jobs.get('job_straggler')).toMatchObject({ status: 'queued', attempts: 0 });
  });

  it('a claim cancels stragglers of revoked keys (and says which, to stop them) and claims the others', async () => {
    const a = (await keys.create('a')).id;
    const b = (await keys.create('b')).id;
    await keys.revoke(a, at(0));
    await jobs.insert(straggler(a), at(1));
    const other = (await queue.submit(submission(b), at(2))).job.id;
    const { claimed, canceled } = await queue.claim('w', 5, at(3));
    expect(claimed.map((j) => j.id)).toEqual([other]);
    expect(canceled).toEqual(['job_straggler']);
    expect(await jobs.get('job_straggler')).toMatchObject({ status: 'canceled', attempts: 0, startedAt: null });
  });

  it('revoking cancels queued and running jobs of every kind, pauses monitors and fails pending deliveries, in one go', async () => {
    const a = (await keys.create('a')).id;
    const b = (await keys.create('b')).id;
    const queued = (await queue.submit(submission(a), at(0))).job.id;
    const running = (await queue.submit(submission(a), at(1))).job.id;
    const others = (await queue.submit(submission(b), at(2))).job.id;
    await queue.claim('w', 1, at(3)); // `queued` is the oldest: claim it, so the names swap roles
    db.prepare(
      `INSERT INTO monitors (id, key_id, name, url, schedule, timezone, capture, diff, notify, retention, base_url,
      next_run_at, created_at, updated_at) VALUES ('mon_a', ?, 'm', 'http://x', '* * * * *', 'UTC', '{}', '{}', '[]', '{}', 'http://x',
      '2026-11-22T10:01:00.000Z', 'now', 'now')`,
    ).run(a);
    await jobs.insert(straggler(a, { id: 'job_capture', kind: 'capture', subject: 'mon_a' }), at(4));
    db.prepare(
      `INSERT INTO webhook_deliveries (id, key_id, message_id, event_type, url, payload, status, next_attempt_at, created_at)
      VALUES ('whd_a', ?, 'msg_a', 'job.succeeded', 'http://r', '{}', 'pending', 'x', 'x')`,
    ).run(a);
    const revocation = (await new KeyRevocation(backend).revoke(a, at(5)))!;
    expect(revocation).toMatchObject({ revokedNow: true, pausedMonitors: 1, failedDeliveries: 1 });
    expect(new Set(revocation.canceledJobs)).toEqual(new Set([queued, running, 'job_capture']));
    for (const id of [queued, running, 'job_capture']) expect((await jobs.get(id))!.status).toBe('canceled');
    expect((await jobs.get(others))!.status).toBe('queued');
    expect(db.prepare(`SELECT paused, next_run_at AS next FROM monitors`).get()).toEqual({ paused: 1, next: null });
    expect(db.prepare(`SELECT status, last_error AS error FROM webhook_deliveries`).get()).toEqual({
      status: 'failed',
      error: 'not sent: the API key was revoked',
    });
    expect((await keys.get(a))!.revokedAt).toBe(at(5).toISOString());
  });
});

describe('capture jobs and jobs.maxQueuedPerKey', () => {
  it('capture jobs count toward the cap: a render submission at the cap is queue_full', async () => {
    const a = (await keys.create('a')).id;
    const small = queueOf(2);
    await small.submit(submission(a), at(0));
    await jobs.insert(straggler(a, { id: 'job_capture', kind: 'capture', subject: 'mon_x' }), at(1));
    expect(await jobs.countActive(a)).toBe(2);
    await expect(small.submit(submission(a), at(2))).rejects.toThrow(AppError);
  });
});
