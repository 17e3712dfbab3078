// Migrations on PostgreSQL: the files of migrations/postgres/, read and checked against what was applied
// by the same code as SQLite's (src/stores/sql/migrate.ts), each applied in its own transaction with its
// checksum. Each transaction first takes the migrations' advisory lock (a transaction's lock, which ends
// with it) and reads again what is applied, so nodes starting together apply each migration once: the
// others wait, then find it applied. Nothing holds a lock between transactions, so this works over a
// direct connection and behind PgBouncer in any pool mode alike (a session lock would stay with the
// pooled server connection that took it).
import type pg from 'pg';
import { pendingMigrations, type AppliedMigration, type Migration } from '../migrate.js';

/** The advisory lock key of migrations: any fixed number no other tool on the database uses. */
export const MIGRATION_LOCK_KEY = 7_161_853_215_337_091;

export async function migratePostgres(pool: pg.Pool, migrations: Migration[]): Promise<string[]> {
  const client = await pool.connect();
  try {
    const applied: string[] = [];
    for (;;) {
      await client.query('BEGIN');
      try {
        const next = await nextPending(client, migrations);
        if (next) await apply(client, next);
        await client.query('COMMIT');
        if (!next) return applied;
        applied.push(next.name);
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
    }
  } finally {
    client.release();
  }
}

/** Inside a transaction: take the lock, then the first migration not applied yet (none: up to date). */
async function nextPending(client: pg.PoolClient, migrations: Migration[]): Promise<Migration | undefined> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
  await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    name text COLLATE "C" PRIMARY KEY, checksum text NOT NULL, applied_at text NOT NULL)`);
  const { rows } = await client.query<AppliedMigration>('SELECT name, checksum FROM schema_migrations ORDER BY name');
  return pendingMigrations(rows, migrations)[0];
}

async function apply(client: pg.PoolClient, m: Migration): Promise<void> {
  try {
    await client.query(m.sql); // no parameters: the simple protocol, so a file may hold many statements
    await client.query('INSERT INTO schema_migrations (name, checksum, applied_at) VALUES ($1, $2, $3)', [
      m.name,
      m.checksum,
      new Date().toISOString(),
    ]);
  } catch (err) {
    throw new Error(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
  }
}
