// A job result kept in PostgreSQL (storage.driver=database) downloads through the real route: streamed
// from the database with its Content-Length, byte for byte; gone from the store, it is 410 as on disk.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DatabaseFileStore } from '../../src/stores/files/database.js';
import { EgressPolicy } from '../../src/egress/policy.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { JobService } from '../../src/jobs/service.js';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import { seedSucceededJob } from '../contract/seed.js';
import { openSqliteBackend, type OpenedBackend } from '../contract/sqlite-backend.js';
import { openBlobDatabase, type BlobDatabase } from '../helpers/blob-database.js';
import { startFakeApp, type FakeApp } from '../helpers/fake-app.js';
import { describePostgres } from '../helpers/postgres-local.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describePostgres('job result downloads from the database store', () => {
  let database: BlobDatabase;
  let rows: OpenedBackend;
  let app: FakeApp;
  let key: IssuedKey;
  let results: DatabaseFileStore;
  beforeAll(async () => {
    database = await openBlobDatabase();
    rows = await openSqliteBackend(); // the jobs' rows; the PostgreSQL backend (part A) is not under test here
    results = new DatabaseFileStore(database.pool, 'results');
    const { backend } = rows;
    key = await backend.stores.keys.create('downloads');
    const queue = new JobQueue(backend, { maxAttempts: 3, maxQueuedPerKey: 100, leaseMs: 30_000 });
    const egress = new EgressPolicy({ allowPrivate: false, allowHosts: [], denyHosts: [] });
    const jobs = new JobService({ queue, stores: backend.stores, results, worker: { abort: () => {} }, egress });
    app = await startFakeApp({}, { jobs, keys: backend.stores.keys });
  });
  afterAll(async () => {
    await app?.close();
    await rows?.close();
    await database?.close();
  });

  const download = (id: string) =>
    fetch(`${app.url}/api/jobs/${id}/result`, { headers: { authorization: `Bearer ${key.key}` } });

  it('streams a 3 MB result with its Content-Length and the same bytes', async () => {
    const id = await seedSucceededJob(rows.backend, key.id, new Date());
    const bytes = randomBytes(3 * 1024 * 1024 + 5); // twelve chunks and a few bytes
    await results.put(`results/${id}`, bytes);
    const res = await download(id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('transfer-encoding')).toBeNull();
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBe(bytes.length);
    expect(sha256(body)).toBe(sha256(bytes));
  });

  it('a result no longer in the store is 410, as a removed file is', async () => {
    const id = await seedSucceededJob(rows.backend, key.id, new Date());
    const res = await download(id); // its row says succeeded; nothing was stored under its key
    expect(res.status).toBe(410);
    expect(await res.json()).toMatchObject({ error: { code: 'gone' } });
  });
});
