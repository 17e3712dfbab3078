// A fresh PostgreSQL database with the file store's tables (migrations/postgres/0002_blobs.sql), and a
// pool on it. Until part A's migrate lands the test applies the one migration itself; at merge this
// becomes "a freshly migrated database".
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { freshDatabase } from './postgres-local.js';

export interface BlobDatabase {
  pool: pg.Pool;
  close(): Promise<void>;
}

export async function openBlobDatabase(): Promise<BlobDatabase> {
  const database = await freshDatabase();
  const pool = new pg.Pool({ connectionString: database.url, max: 6 });
  // The drop at the end terminates (57P01) any connection still closing; without a listener the pool's
  // 'error' event would be an uncaught exception in whichever test file runs then.
  pool.on('error', () => undefined);
  try {
    await pool.query(readFileSync(resolve(import.meta.dirname, '../../migrations/postgres/0002_blobs.sql'), 'utf8'));
  } catch (err) {
    await pool.end();
    await database.drop();
    throw err;
  }
  return {
    pool,
    async close() {
      await pool.end();
      await database.drop();
    },
  };
}
