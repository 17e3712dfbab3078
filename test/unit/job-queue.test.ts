// The job queue's transactions on a real SQLite file with the real migrations: a job goes to one
// worker only, leases run out, tries are counted, a result is recorded once, events are written with
// the state change, and Idempotency-Key keeps its 24 h promise.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { openDatabase, type Db } from '../../src/stores/sql/sqlite/connection.js';
import { SqliteBackend } from '../../src/stores/sql/sqlite/backend.js';
import { AppError } from '../../src/errors.js';
import { canonicalJson, JobQueue, TIDY_INTERVAL_MS, type Submission, type Submitted } from '../../src/jobs/queue.js';
import { RENDER_JOB_KINDS, RenderJobRunner } from '../../src/jobs/render-job.js';
import { projectRoot } from '../../src/project-root.js';
import type { JobStore, StoredResult } from '../../src/stores/jobs.js';

let dir: string;
let db: Db;
let backend: SqliteBackend;
let jobs: JobStore;
let queue: JobQueue;
let keyId: string;

const LEASE = 30_000;
const T0 = new Date('2026-11-22T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-queue-'));
  db = openDatabase(join(dir, 'test.db'));
  migrate(db, readMigrations(resolve(projectRoot(), 'migrations', 'sqlite')));
  backend = new SqliteBackend(db);
  jobs = backend.stores.jobs;
  queue = new JobQueue(backend, { maxAttempts: 3, leaseMs: LEASE, maxQueuedPerKey: 5 });
  // The real runner's hooks (its webhook events, what a finished job keeps); nothing is rendered here.
  const renderJobs = new RenderJobRunner({} as never, {} as never, 86_400_000);
  for (const kind of RENDER_JOB_KINDS) queue.register(kind, renderJobs);
  keyId = (await backend.stores.keys.create('queue-test')).id;
});
afterEach(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

const submission = (over: Partial<Submission> = {}): Submission => ({
  keyId,
  kind: 'pdf',
  request: { html: '<p>x</p>', timeout: 30_000 },
  baseUrl: 'http://pagewatch.test',
  ...over,
});
const stored = (key: string): StoredResult => ({
  key,
  contentType: 'application/pdf',
  bytes: 10,
  expiresAt: at(86_400_000).toISOString(),
  meta: { renderMs: 5, truncated: false },
});
const result = (key: string) => ({ result: stored(key) });
const events = () =>
  db.prepare('SELECT event_type AS type, job_id AS jobId, url FROM webhook_deliveries ORDER BY created_at').all();

describe('claiming', () => {
  it('gives each job to one worker, oldest first, and counts the try', async () => {
    const ids: string[] = [];
    for (const i of [0, 1, 2]) ids.push((await queue.submit(submission(), at(i))).job.id);
    const a = (await queue.claim('worker_a', 2, at(10))).claimed;
    const b = (await queue.claim('worker_b', 5, at(10))).claimed;
    expect(a.map((j) => j.id)).toEqual(ids.slice(0, 2));
    expect(b.map((j) => j.id)).toEqual(ids.slice(2));
    expect([...a, ...b].every((j) => j.status === 'running' && j.attempts === 1)).toBe(true);
    expect((await queue.claim('worker_c', 5, at(20))).claimed).toEqual([]);
  });

  it('takes a job back only after its lease has run out, and renewing keeps it', async () => {
    const { id } = (await queue.submit(submission(), at(0))).job;
    await queue.claim('worker_a', 1, at(0));
    expect((await queue.claim('worker_b', 1, at(LEASE - 1))).claimed).toEqual([]);
    await queue.renew('worker_a', [id], at(LEASE - 1));
    expect((await queue.claim('worker_b', 1, at(LEASE + 1))).claimed).toEqual([]);
    const [taken] = (await queue.claim('worker_b', 1, at(2 * LEASE))).claimed;
    expect(taken).toMatchObject({ id, attempts: 2, leaseOwner: 'worker_b' });
    // The first worker's late result is refused: the job is no longer its own.
    expect(await queue.succeed((await jobs.get(id))!, 'worker_a', result('late'), at(2 * LEASE + 1))).toBe(false);
    expect(await queue.succeed(taken!, 'worker_b', result('mine'), at(2 * LEASE + 2))).toBe(true);
    expect(await jobs.get(id)).toMatchObject({ status: 'succeeded', result: { key: 'mine' } });
  });

  it('fails a job whose worker died on its last try, with an event for its webhook', async () => {
    const { id } = (await queue.submit(submission({ webhookUrl: 'https://receiver.test/hook' }), at(0))).job;
    for (let i = 0; i < 3; i++) await queue.claim(`worker_${i}`, 1, at(i * 2 * LEASE));
    expect(await jobs.get(id)).toMatchObject({ status: 'running', attempts: 3 });
    expect(await queue.claim('worker_x', 1, at(7 * LEASE))).toEqual({ claimed: [], exhausted: 1, canceled: [] });
    expect(await jobs.get(id)).toMatchObject({ status: 'failed', error: { code: 'internal' } });
    expect(events()).toEqual([{ type: 'job.failed', jobId: id, url: 'https://receiver.test/hook' }]);
  });

  it('a stopping worker hands its jobs back without counting the interrupted try', async () => {
    const { id } = (await queue.submit(submission(), at(0))).job;
    await queue.claim('worker_a', 1, at(0));
    expect(await queue.release('worker_a')).toBe(1);
    expect(await jobs.get(id)).toMatchObject({ status: 'queued', attempts: 0, leaseOwner: null });
  });
});

describe('outcomes', () => {
  it('success and its event are one write; no event without a webhookUrl', async () => {
    const withHook = (await queue.submit(submission({ webhookUrl: 'https://receiver.test/a' }), at(0))).job;
    const without = (await queue.submit(submission(), at(1))).job;
    const { claimed } = await queue.claim('w', 2, at(2));
    for (const job of claimed) expect(await queue.succeed(job, 'w', result(job.id), at(3))).toBe(true);
    expect(events()).toEqual([{ type: 'job.succeeded', jobId: withHook.id, url: 'https://receiver.test/a' }]);
    expect((await jobs.get(without.id))!.status).toBe('succeeded');
    const payload: unknown = JSON.parse(
      (db.prepare('SELECT payload FROM webhook_deliveries').get() as { payload: string }).payload,
    );
    expect(payload).toMatchObject({
      type: 'job.succeeded',
      data: { jobId: withHook.id, result: { url: `http://pagewatch.test/api/jobs/${withHook.id}/result` } },
    });
  });

  it('a recorded event tells the backend a delivery is due, once the job has ended', async () => {
    let told = 0;
    backend.changes.on('deliveries', () => told++);
    await queue.submit(submission({ webhookUrl: 'https://receiver.test/a' }), at(0));
    const [job] = (await queue.claim('w', 1, at(1))).claimed;
    expect(told).toBe(0);
    await queue.succeed(job!, 'w', result('r'), at(2));
    expect(told).toBe(1);
  });

  it('a hook that throws rolls the job back with it: the job is still running, no event', async () => {
    const failing = new JobQueue(backend, { maxAttempts: 3, leaseMs: LEASE, maxQueuedPerKey: 5 });
    failing.register('pdf', {
      run: () => Promise.reject(new Error('not run here')),
      keepAfterFinish: (request) => request,
      onSucceeded: () => Promise.reject(new Error('the hook failed')),
    });
    const { id } = (await failing.submit(submission({ webhookUrl: 'https://receiver.test/a' }), at(0))).job;
    const [job] = (await failing.claim('w', 1, at(1))).claimed;
    await expect(failing.succeed(job!, 'w', result('r'), at(2))).rejects.toThrow('the hook failed');
    expect(await jobs.get(id)).toMatchObject({ status: 'running', result: null });
  });

  it('a finished job keeps only filename and format of its request, not the credentials it rendered with', async () => {
    const secretRequest = {
      url: 'https://example.com',
      filename: 'report.pdf',
      headers: { authorization: 'Bearer SECRET' },
      cookies: [{ name: 'sid', value: 'SECRET' }],
      httpCredentials: { username: 'u', password: 'SECRET' },
    };
    const ids: string[] = [];
    for (const i of [0, 1, 2, 3]) ids.push((await queue.submit(submission({ request: secretRequest }), at(i))).job.id);
    const [a, b] = (await queue.claim('w', 2, at(4))).claimed;
    await queue.succeed(a!, 'w', result('r'), at(5));
    await queue.failOrRetry(b!, 'w', { code: 'render_failed', message: 'x' }, false, at(5));
    await queue.cancel(keyId, ids[2]!, RENDER_JOB_KINDS, at(6));
    // Bulk statements apply the same cut: a revoked key's stragglers are canceled by the claims' tidying,
    // which runs once every TIDY_INTERVAL_MS (meanwhile the claim passes them over).
    db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(at(7).toISOString(), keyId);
    expect(await queue.claim('w', 1, at(8))).toMatchObject({ claimed: [], canceled: [] });
    expect((await queue.claim('w', 1, at(4 + TIDY_INTERVAL_MS))).canceled).toEqual([ids[3]]);
    for (const id of ids) {
      const job = (await jobs.get(id))!;
      expect(JSON.stringify(job.request)).not.toContain('SECRET');
      expect(job.request).toEqual({ filename: 'report.pdf', format: null });
    }
  });

  it('a retryable failure queues the job again while tries are left, then fails it', async () => {
    const { id } = (await queue.submit(submission({ webhookUrl: 'https://receiver.test/a' }), at(0))).job;
    const error = { code: 'unavailable', message: 'the browser stopped' };
    for (let attempt = 1; attempt <= 2; attempt++) {
      const [job] = (await queue.claim('w', 1, at(attempt))).claimed;
      expect(await queue.failOrRetry(job!, 'w', error, true, at(attempt))).toBe('retried');
      expect(await jobs.get(id)).toMatchObject({ status: 'queued', attempts: attempt });
    }
    const [last] = (await queue.claim('w', 1, at(10))).claimed;
    expect(await queue.failOrRetry(last!, 'w', error, true, at(11))).toBe('failed');
    expect(await jobs.get(id)).toMatchObject({ status: 'failed', attempts: 3, error });
    expect(events()).toHaveLength(1);
  });

  it('a final failure fails at once; a canceled job records no outcome', async () => {
    const a = (await queue.submit(submission(), at(0))).job;
    const b = (await queue.submit(submission(), at(1))).job;
    const [ja, jb] = (await queue.claim('w', 2, at(2))).claimed;
    expect(await queue.failOrRetry(ja!, 'w', { code: 'render_failed', message: 'HTTP 404' }, false, at(3))).toBe(
      'failed',
    );
    expect(await jobs.get(a.id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(await queue.cancel(keyId, b.id, RENDER_JOB_KINDS, at(4))).toMatchObject({ status: 'canceled' });
    expect(await queue.succeed(jb!, 'w', result('x'), at(5))).toBe(false);
    expect(await queue.failOrRetry(jb!, 'w', { code: 'internal', message: 'x' }, true, at(5))).toBe('gone');
    expect(await jobs.get(b.id)).toMatchObject({ status: 'canceled', result: null });
    expect(await queue.cancel(keyId, b.id, RENDER_JOB_KINDS, at(6))).toBeUndefined();
  });
});

describe('submission', () => {
  it('an Idempotency-Key with the same request returns the job it made; another request is 409', async () => {
    const first = await queue.submit(submission({ idempotencyKey: 'k1', request: { html: 'a', timeout: 1 } }), at(0));
    expect(first.created).toBe(true);
    // The same request with its keys in another order is the same request.
    const again = await queue.submit(
      submission({ idempotencyKey: 'k1', request: { timeout: 1, html: 'a' } }),
      at(1000),
    );
    expect(again).toMatchObject({ created: false, job: { id: first.job.id } });
    await expect(
      queue.submit(submission({ idempotencyKey: 'k1', request: { html: 'b', timeout: 1 } }), at(2000)),
    ).rejects.toThrow(expect.objectContaining({ status: 409, code: 'conflict' }) as AppError);
    await expect(
      queue.submit(submission({ idempotencyKey: 'k1', kind: 'image', request: { html: 'a', timeout: 1 } }), at(2000)),
    ).rejects.toThrow(AppError);
  });

  it('an Idempotency-Key is honoured for 24 hours, then starts a new job', async () => {
    const first = await queue.submit(submission({ idempotencyKey: 'k2' }), at(0));
    const day = 24 * 3600_000;
    expect((await queue.submit(submission({ idempotencyKey: 'k2' }), at(day - 1))).job.id).toBe(first.job.id);
    const later = await queue.submit(submission({ idempotencyKey: 'k2' }), at(day + 1));
    expect(later.created).toBe(true);
    expect(later.job.id).not.toBe(first.job.id);
  });

  it('maxQueuedPerKey: the 5th active job is accepted, the 6th is 429 queue_full, a finished one frees room', async () => {
    for (let i = 0; i < 5; i++) await queue.submit(submission(), at(i));
    await expect(queue.submit(submission(), at(6))).rejects.toThrow(
      expect.objectContaining({ status: 429, code: 'queue_full' }) as AppError,
    );
    const [job] = (await queue.claim('w', 1, at(7))).claimed;
    await queue.succeed(job!, 'w', result('r'), at(8));
    expect((await queue.submit(submission(), at(9))).created).toBe(true);
  });

  it('tells the backend a job became claimable, once the submission has committed', async () => {
    let told = 0;
    backend.changes.on('jobs', () => told++);
    await queue.submit(submission(), at(0));
    expect(told).toBe(1);
    await expect(
      backend.transaction(async (tx) => {
        await queue.enqueue(tx, submission(), at(1));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(told).toBe(1);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined, keeping array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: undefined, b: null } })).toBe('{"a":{"b":null,"d":[2,1]},"b":1}');
  });
});

describe('submissions that arrive together', () => {
  it('are written in one transaction; one refused (its key at maxQueuedPerKey) is refused alone', async () => {
    let transactions = 0;
    const counting = Object.create(backend) as SqliteBackend;
    counting.transaction = (fn) => {
      transactions++;
      return backend.transaction(fn);
    };
    const gathered = new JobQueue(counting, { maxAttempts: 3, leaseMs: LEASE, maxQueuedPerKey: 5 });
    for (const kind of RENDER_JOB_KINDS) gathered.register(kind, new RenderJobRunner({} as never, {} as never, 1));
    const other = (await backend.stores.keys.create('other')).id;
    const settled = await Promise.allSettled([
      ...Array.from({ length: 6 }, () => gathered.submit(submission())), // one over this key's 5
      ...Array.from({ length: 3 }, () => gathered.submit(submission({ keyId: other }))),
      gathered.submit(submission({ keyId: other, idempotencyKey: 'same' })),
      gathered.submit(submission({ keyId: other, idempotencyKey: 'same' })), // the same job, once
    ]);
    expect(transactions).toBe(1);
    expect(settled.map((s) => s.status)).toEqual([
      ...new Array<string>(5).fill('fulfilled'),
      'rejected',
      ...new Array<string>(5).fill('fulfilled'),
    ]);
    expect((settled[5] as PromiseRejectedResult).reason).toMatchObject({ code: 'queue_full' });
    const [first, second] = settled.slice(9).map((s) => (s as PromiseFulfilledResult<Submitted>).value);
    expect(second).toEqual({ job: first!.job, created: false });
    expect(await jobs.countActive(keyId)).toBe(5);
    expect(await jobs.countActive(other)).toBe(4);
  });
});
