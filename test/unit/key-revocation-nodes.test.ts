// A key revoked through node A, on two nodes over one SQLite file (each its own connection): node B
// refuses the key on its very next lookup (no cache), and B's job worker stops the key's running render
// as soon as it hears the `keys` change (on PostgreSQL B's LISTEN connection relays A's NOTIFY; here the
// test relays it) — not at its next poll, which is a minute away.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { KeyRevocation } from '../../src/auth/revocation.js';
import { migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { openDatabase } from '../../src/stores/sql/sqlite/connection.js';
import { SqliteBackend } from '../../src/stores/sql/sqlite/backend.js';
import { JobQueue } from '../../src/jobs/queue.js';
import type { JobOutcome, JobRunner, RunContext } from '../../src/jobs/runner.js';
import { JobWorker } from '../../src/jobs/worker.js';
import { createLogger } from '../../src/log.js';
import { projectRoot } from '../../src/project-root.js';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import { until } from '../helpers/until.js';

let dir: string;
let nodeA: SqliteBackend;
let nodeB: SqliteBackend;
let worker: JobWorker;
let queue: JobQueue;
let key: IssuedKey;
const started: RunContext[] = [];

/** A render that runs until its signal aborts. */
const endless: JobRunner = {
  run: (_job, ctx): Promise<JobOutcome> => {
    started.push(ctx);
    return new Promise((_done, fail) => ctx.signal.addEventListener('abort', () => fail(new Error('aborted'))));
  },
  keepAfterFinish: (request) => request,
};

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-revoke-nodes-'));
  const file = join(dir, 'test.db');
  const db = openDatabase(file);
  migrate(db, readMigrations(resolve(projectRoot(), 'migrations', 'sqlite')));
  nodeA = new SqliteBackend(db);
  nodeB = new SqliteBackend(openDatabase(file));
  queue = new JobQueue(nodeB, { maxAttempts: 2, leaseMs: 30_000, maxQueuedPerKey: 100 });
  queue.register('pdf', endless);
  key = await nodeA.stores.keys.create('revoked-elsewhere');
  const options = { capacity: 2, pollIntervalMs: 60_000, leaseMs: 30_000 };
  worker = new JobWorker(nodeB, queue, options, createLogger('silent'));
  await worker.start();
});
afterEach(async () => {
  await worker.stop(Date.now());
  await nodeB.close();
  await nodeA.close();
  rmSync(dir, { recursive: true, force: true });
});

it("node B refuses a key revoked through node A at once, and stops the key's render on the keys change", async () => {
  const { job } = await queue.submit({ keyId: key.id, kind: 'pdf', request: {}, baseUrl: 'http://x' });
  const run = await until('the job to start rendering on node B', () => started[0], 5_000);
  expect((await nodeB.stores.keys.findActive(key.key))?.id).toBe(key.id);

  await new KeyRevocation(nodeA).revoke(key.id);
  expect(await nodeB.stores.keys.findActive(key.key)).toBeUndefined(); // B's next request is refused
  expect((await nodeB.stores.jobs.get(job.id))!.status).toBe('canceled');
  expect(run.signal.aborted).toBe(false); // B's worker has not looked yet: its next poll is a minute away

  nodeB.changes.emit('keys');
  await until('node B to stop the render', () => run.signal.aborted, 1000); // the brief's bound: 1 s
  await until('the slot to be free', () => worker.runningCount === 0, 1000);
});
