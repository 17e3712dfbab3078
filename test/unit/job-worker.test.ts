// The job worker over a real SQLite queue with a scripted runner (no browser): it wakes on the
// backend's `jobs` change (the poll is set to a minute, so nothing else would wake it), records an
// outcome through the queue and the runner's hook in one transaction, gives a canceled job's outcome
// back to the runner to discard, retries or fails what throws, and on stop hands back what has not
// finished by the deadline.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { openDatabase } from '../../src/stores/sql/sqlite/connection.js';
import { SqliteBackend } from '../../src/stores/sql/sqlite/backend.js';
import { renderFailed } from '../../src/errors.js';
import { JobQueue } from '../../src/jobs/queue.js';
import type { JobOutcome, JobRunner, RunContext } from '../../src/jobs/runner.js';
import { JobWorker } from '../../src/jobs/worker.js';
import { createLogger } from '../../src/log.js';
import { projectRoot } from '../../src/project-root.js';
import type { JobRecord } from '../../src/stores/jobs.js';
import { until } from '../helpers/until.js';

let dir: string;
let backend: SqliteBackend;
let queue: JobQueue;
let worker: JobWorker;
let keyId: string;

/** A runner whose runs finish when the test says so; it notes what the worker and queue asked of it. */
class ScriptedRunner implements JobRunner<Record<string, unknown>, string> {
  readonly started: {
    job: JobRecord;
    ctx: RunContext;
    finish: (o: JobOutcome<string>) => void;
    fail: (e: unknown) => void;
  }[] = [];
  readonly recorded: { status: string; detail?: string }[] = [];
  readonly failed: string[] = [];
  readonly discarded: (string | undefined)[] = [];
  hookError: Error | undefined;

  run(job: JobRecord, ctx: RunContext): Promise<JobOutcome<string>> {
    return new Promise((finish, fail) => this.started.push({ job, ctx, finish, fail }));
  }
  async onSucceeded(tx: Parameters<NonNullable<JobRunner['onSucceeded']>>[0], job: JobRecord, o: JobOutcome<string>) {
    // Inside the queue's transaction: the job already reads as succeeded there.
    this.recorded.push({ status: (await tx.jobs.get(job.id))!.status, detail: o.detail });
    if (this.hookError) throw this.hookError;
  }
  onFailed(_tx: unknown, job: JobRecord): Promise<void> {
    this.failed.push(job.id);
    return Promise.resolve();
  }
  discard(o: JobOutcome<string>): Promise<void> {
    this.discarded.push(o.detail);
    return Promise.resolve();
  }
  keepAfterFinish(request: Record<string, unknown>) {
    return request;
  }
}
let runner: ScriptedRunner;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-worker-'));
  const db = openDatabase(join(dir, 'test.db'));
  migrate(db, readMigrations(resolve(projectRoot(), 'migrations', 'sqlite')));
  backend = new SqliteBackend(db);
  queue = new JobQueue(backend, { maxAttempts: 2, leaseMs: 30_000, maxQueuedPerKey: 100 });
  runner = new ScriptedRunner();
  // Any registered kind; the jobs table's CHECK lists the kinds it may hold, so a real one is used.
  queue.register('pdf', runner);
  keyId = (await backend.stores.keys.create('worker-test')).id;
  worker = new JobWorker(
    backend,
    queue,
    { capacity: 2, pollIntervalMs: 60_000, leaseMs: 30_000 },
    createLogger('silent'),
  );
  await worker.start();
});
afterEach(async () => {
  await worker.stop(Date.now());
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

const submit = async () => (await queue.submit({ keyId, kind: 'pdf', request: {}, baseUrl: 'http://x' })).job.id;
const status = async (id: string) => (await backend.stores.jobs.get(id))!.status;

it('wakes on a submission, runs the job and records its outcome with the hook, in one transaction', async () => {
  const first = await submit();
  (await until('the first job to start', () => runner.started[0])).finish({ detail: 'capture-1' });
  await until('the first job to succeed', async () => (await status(first)) === 'succeeded');
  // The worker is idle now: its start and the freed slot were the last claims, the next poll is a
  // minute away. Only the backend's `jobs` change can start the next job.
  await until('the worker to be idle', () => worker.runningCount === 0);
  const id = await submit();
  const run = await until('the job to start', () => runner.started[1], 5_000);
  expect(run.job).toMatchObject({ id, status: 'running', attempts: 1 });
  run.finish({ detail: 'capture-2' });
  await until('the job to succeed', async () => (await status(id)) === 'succeeded');
  expect(runner.recorded).toEqual([
    { status: 'succeeded', detail: 'capture-1' },
    { status: 'succeeded', detail: 'capture-2' },
  ]);
  expect(runner.discarded).toEqual([]);
}, 15_000);

it('with every slot taken, a new job costs no claim pass; the slot that frees claims it', async () => {
  const passes = { claim: 0 };
  const claim = queue.claim.bind(queue);
  queue.claim = (...args) => {
    passes.claim++;
    return claim(...args);
  };
  await submit();
  await submit();
  const [one] = await until('both slots to be taken', () => runner.started.length === 2 && runner.started);
  try {
    const before = passes.claim;
    const third = await submit();
    // bound: the wake a submission causes runs on the next turn (setImmediate); two turns have passed
    await new Promise((r) => setImmediate(r)).then(() => new Promise((r) => setImmediate(r)));
    expect(passes.claim).toBe(before);
    one!.finish({ detail: 'done' });
    const run = await until('the third job to start in the freed slot', () => runner.started[2]);
    expect(run.job.id).toBe(third);
  } finally {
    for (const r of runner.started.slice(1)) r.finish({ detail: 'done' }); // so that stop() can end
  }
});

it('a job canceled while it runs: its signal aborts, nothing is recorded, and the runner discards the outcome', async () => {
  const id = await submit();
  const run = await until('the job to start', () => runner.started[0]);
  await queue.cancel(keyId, id, ['pdf']);
  worker.abort(id);
  expect(run.ctx.signal.aborted).toBe(true);
  run.finish({ detail: 'late' });
  await until('the outcome to be discarded', () => runner.discarded.length === 1);
  expect(runner.discarded).toEqual(['late']);
  expect(runner.recorded).toEqual([]);
  expect(await status(id)).toBe('canceled');
});

it('a hook that throws rolls back: the outcome is discarded and the try counts as failed', async () => {
  runner.hookError = new Error('the hook failed');
  const id = await submit();
  (await until('the job to start', () => runner.started[0])).finish({ detail: 'rolled-back' });
  await until('the outcome to be discarded', () => runner.discarded.length === 1);
  expect(runner.discarded).toEqual(['rolled-back']);
  // An internal error is retried: queued again (woken by the requeue), it starts a second try.
  runner.hookError = undefined;
  const second = await until('the second try', () => runner.started[1]);
  expect(second.job).toMatchObject({ id, attempts: 2 });
  second.finish({ detail: 'ok' });
  await until('the job to succeed', async () => (await status(id)) === 'succeeded');
});

it('a final error fails the job at once and calls the failure hook', async () => {
  const id = await submit();
  (await until('the job to start', () => runner.started[0])).fail(renderFailed('HTTP 404'));
  await until('the job to fail', async () => (await status(id)) === 'failed');
  expect(runner.failed).toEqual([id]);
  expect((await backend.stores.jobs.get(id))!.error).toEqual({ code: 'render_failed', message: 'HTTP 404' });
});

it('stop: a job unfinished at the deadline is aborted and handed back, its try not counted', async () => {
  const id = await submit();
  const run = await until('the job to start', () => runner.started[0]);
  run.ctx.signal.addEventListener('abort', () => run.fail(run.ctx.signal.reason));
  await worker.stop(Date.now() + 50);
  expect(run.ctx.signal.aborted).toBe(true);
  expect(await backend.stores.jobs.get(id)).toMatchObject({ status: 'queued', attempts: 0, leaseOwner: null });
  expect(runner.recorded).toEqual([]);
});

it('a job of a kind no runner is registered for fails (after its tries) and holds no other job back', async () => {
  // `image` has no runner in this test: a job of it must not stall the queue nor stay running.
  const stray = 'job_no_runner';
  await backend.stores.jobs.insert(
    { id: stray, keyId, kind: 'image', request: {}, keptRequest: {}, baseUrl: 'http://x' },
    new Date(),
  );
  const id = await submit();
  (await until('the registered job to start', () => runner.started[0])).finish({ detail: 'ok' });
  await until('the registered job to succeed', async () => (await status(id)) === 'succeeded');
  const failed = await until('the stray job to fail', async () => {
    const job = (await backend.stores.jobs.get(stray))!;
    return job.status === 'failed' ? job : undefined;
  });
  expect(failed).toMatchObject({ attempts: 2, error: { code: 'internal' } });
});
