// `pagewatch keys delete ID --purge` on PostgreSQL with storage.driver=database: the key's stored files
// (job results, capture images and diffs) are rows of the blob tables, and they go with the key at once,
// not at the next orphan sweep; another key's stay. The real CLI as its own process. The rows and files
// are made through the stores and the database file store, as the service writes them: no browser needed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-load.js';
import { resultKey } from '../../src/jobs/render-job.js';
import { createLogger } from '../../src/log.js';
import { captureFileKeys } from '../../src/monitors/capture-files.js';
import { openFileStores, type FileStores } from '../../src/stores/files/open.js';
import { openBackend } from '../../src/stores/sql/open-backend.js';
import type { Backend } from '../../src/stores/backend.js';
import { newKey, newMonitor } from '../contract/monitor-fixtures.js';
import { seedSucceededJob } from '../contract/seed.js';
import { runKeysCli } from '../helpers/keys-cli.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../helpers/postgres.js';

describePostgres('keys delete --purge with storage.driver=database', () => {
  let database: FreshDatabase;
  let dataDir: string;
  let backend: Backend;
  let files: FileStores;
  /** A client of its own (not a pool: Pool.end() resolves before its connections have closed, and the
   * forced drop below would then cut one mid-close). */
  let client: pg.Client;

  beforeAll(async () => {
    database = await freshDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-purge-blobs-'));
    const config = loadConfig({
      env: {},
      overrides: { dataDir, logLevel: 'silent', database: { url: database.url }, storage: { driver: 'database' } },
    });
    const opened = await openBackend(config, createLogger('silent'));
    backend = opened.backend;
    files = openFileStores(config, dataDir, opened.databaseFiles);
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await backend?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A key with a finished job whose result is stored, and a monitor with a capture's image and diff. */
  async function keyWithBlobs(name: string): Promise<{ keyId: string; blobs: string[] }> {
    const keyId = await newKey(backend, name);
    const jobId = await seedSucceededJob(backend, keyId, new Date());
    const monitorId = `mon_${name}`;
    await newMonitor(backend, keyId, monitorId, new Date().toISOString());
    const { image, diff } = captureFileKeys(monitorId, `cap_${name}`);
    await files.results.put(resultKey(jobId, 1), Buffer.from('%PDF-1.7'));
    await files.captures.put(image, Buffer.from('png'));
    await files.captures.put(diff, Buffer.from('png'));
    return { keyId, blobs: [`captures ${image}`, `captures ${diff}`, `results ${resultKey(jobId, 1)}`].sort() };
  }

  const blobRows = async (table: 'blobs' | 'blob_chunks') =>
    (await client.query<{ blob: string }>(`SELECT DISTINCT namespace || ' ' || key AS blob FROM ${table}`)).rows
      .map((r) => r.blob)
      .sort();

  it("removes the key's blobs at once and leaves another key's", async () => {
    const purged = await keyWithBlobs('purged');
    const kept = await keyWithBlobs('kept');
    expect(await blobRows('blobs')).toEqual([...kept.blobs, ...purged.blobs].sort());

    const run = await runKeysCli(dataDir, ['delete', purged.keyId, '--purge'], {
      PAGEWATCH_DATABASE_URL: database.url,
      PAGEWATCH_STORAGE_DRIVER: 'database',
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`deleted ${purged.keyId}\n`);

    expect(await blobRows('blobs')).toEqual(kept.blobs);
    expect(await blobRows('blob_chunks')).toEqual(kept.blobs);
  });
});
