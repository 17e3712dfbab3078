// Ordered plain-SQL migrations (migrations/sqlite/ here; PostgreSQL's runner, postgres/migrate.ts, shares
// the reading and the checking). Each file runs in its own transaction and is recorded with a hash,
// so a database whose applied set does not match the files (edited, removed, or from a newer
// version) is refused instead of being silently run against the wrong schema.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './sqlite/connection.js';

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationMismatchError extends Error {}

export function readMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/** The migrations not applied yet; throws when what was applied does not match the files (either database). */
export function pendingMigrations(applied: readonly AppliedMigration[], migrations: Migration[]): Migration[] {
  checkApplied(applied, migrations);
  return migrations.slice(applied.length);
}

export interface AppliedMigration {
  name: string;
  checksum: string;
}

function checkApplied(applied: readonly AppliedMigration[], migrations: Migration[]): void {
  checkNotNewer(applied, migrations);
  applied.forEach((row, i) => {
    const file = migrations[i];
    if (!file || file.name !== row.name) {
      throw new MigrationMismatchError(
        `database has migration ${row.name} applied, but the migrations directory ` +
          `${file ? `has ${file.name} in its place` : 'does not have it'}; refusing to start`,
      );
    }
    if (file.checksum !== row.checksum) {
      throw new MigrationMismatchError(`migration ${row.name} was changed after it was applied; refusing to start`);
    }
  });
}

/**
 * Migrations are forward-only: no file undoes one. A database a newer Pagewatch migrated (every file of
 * this version applied, and more) is refused with what to do, rather than run on a schema this code does
 * not know.
 */
function checkNotNewer(applied: readonly AppliedMigration[], migrations: Migration[]): void {
  if (applied.length <= migrations.length) return;
  const known = migrations.every((m, i) => applied[i]!.name === m.name && applied[i]!.checksum === m.checksum);
  if (!known) return; // a mismatch before the end: said as such below
  const newer = applied.slice(migrations.length).map((m) => m.name);
  throw new MigrationMismatchError(
    `this database was migrated by a newer Pagewatch (it has ${newer.join(', ')} applied, which this version ` +
      `does not know); migrations are forward-only: run that version or restore a backup taken before the upgrade`,
  );
}

export function migrate(db: Db, migrations: Migration[]): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = db.prepare('SELECT name, checksum FROM schema_migrations ORDER BY name').all() as AppliedMigration[];

  const pending = pendingMigrations(applied, migrations);
  const record = db.prepare('INSERT INTO schema_migrations (name, checksum, applied_at) VALUES (?, ?, ?)');
  for (const m of pending) {
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.name, m.checksum, new Date().toISOString());
    }).immediate();
  }
  return pending.map((m) => m.name);
}
