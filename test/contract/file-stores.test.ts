// The file store contract on both stores: the local directory (a temp dir per test) and PostgreSQL (one
// fresh database per file, a namespace of its own per test).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { CHUNK_BYTES, DatabaseFileStore } from '../../src/stores/files/database.js';
import { LocalFileStore } from '../../src/stores/files/local.js';
import { openBlobDatabase, type BlobDatabase } from '../helpers/blob-database.js';
import { describePostgres } from '../helpers/postgres-local.js';
import { fileStoreContract } from './file-store.contract.js';

// The local store reads and writes whole files; the chunk sizes are tried on it all the same.
fileStoreContract(
  'local directory',
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'pagewatch-files-'));
    return Promise.resolve({
      store: new LocalFileStore(dir),
      close: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
    });
  },
  CHUNK_BYTES,
);

describePostgres('PostgreSQL', () => {
  let database: BlobDatabase;
  beforeAll(async () => {
    database = await openBlobDatabase();
  });
  afterAll(() => database?.close());

  fileStoreContract(
    'database',
    () =>
      Promise.resolve({
        store: new DatabaseFileStore(database.pool, `test_${randomBytes(4).toString('hex')}`),
        close: () => Promise.resolve(),
      }),
    CHUNK_BYTES,
  );
});
