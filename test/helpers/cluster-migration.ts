// Applies part C's PostgreSQL migration (0003_cluster.sql: nodes, rate_buckets) to a fresh database.
// Until part A's migrate lands, part C's PostgreSQL tests run this file alone; at merge, the tests open
// their database through A's migrate instead (every migration in order).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type pg from 'pg';

export async function applyClusterMigration(pool: pg.Pool): Promise<void> {
  const file = resolve(import.meta.dirname, '../../migrations/postgres/0003_cluster.sql');
  await pool.query(readFileSync(file, 'utf8'));
}
