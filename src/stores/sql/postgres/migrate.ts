// Migrations on PostgreSQL: the files of migrations/postgres/, read and checked against what was applied
// by the same code as SQLite's (src/stores/sql/migrate.ts), each applied in its own transaction with its
// checksum. The whole run holds a session advisory lock, so nodes starting together migrate once: the
// others wait, then find nothing pending. A session lock needs one connection throughout: a direct
// connection or PgBouncer in session mode (docs/postgresql.md).
import type pg from 'pg';
import { pendingMigrations, type AppliedMigration, type Migration } from '../migrate.js';

/** The advisory lock key of migrations: any fixed number no other tool on the database uses. */
export const MIGRATION_LOCK_KEY = 7_161_853_215_337_091;

export async function migratePostgres(pool: pg.Pool, migrations: Migration[]): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        name text COLLATE "C" PRIMARY KEY, checksum text NOT NULL, applied_at text NOT NULL)`);
      const { rows } = await client.query<AppliedMigration>(
        'SELECT name, checksum FROM schema_migrations ORDER BY name',
      );
      const pending = pendingMigrations(rows, migrations);
      for (const m of pending) {
        await client.query('BEGIN');
        try {
          await client.query(m.sql); // no parameters: the simple protocol, so a file may hold many statements
          await client.query('INSERT INTO schema_migrations (name, checksum, applied_at) VALUES ($1, $2, $3)', [
            m.name,
            m.checksum,
            new Date().toISOString(),
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
        }
      }
      return pending.map((m) => m.name);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}
