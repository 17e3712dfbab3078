// The database a node runs on, opened and migrated: SQLite in dataDir when database.url is empty, else
// PostgreSQL at that URL. Every command opens it here (src/app/storage.ts), so each works on both.
import { resolve } from 'node:path';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { projectRoot } from '../../project-root.js';
import type { Backend } from '../backend.js';
import type { DatabaseKind } from './flavor.js';
import type { FileStore } from '../file-store.js';
import type { RateLimitStore } from '../rate-limits.js';
import { MemoryRateLimits } from './sqlite/memory-rate-limits.js';
import type { Scrub } from '../scrub.js';
import { migrate, readMigrations } from './migrate.js';
import { DatabaseFileStore } from '../files/database.js';
import { readDatabaseTime } from './postgres/database-time.js';
import { migratePostgres } from './postgres/migrate.js';
import { connectionOptions, createPool, redactedUrl } from './postgres/pool.js';
import { PostgresBackend } from './postgres/backend.js';
import { PostgresRateLimits } from './postgres/rate-limits.js';
import { postgresScrub } from './postgres/scrub.js';
import { sqliteScrub } from './sqlite/scrub.js';
import { SqliteBackend } from './sqlite/backend.js';
import { openDatabase } from './sqlite/connection.js';

export interface OpenedBackend {
  backend: Backend;
  kind: DatabaseKind;
  /** Migrations this open applied (empty when the database was up to date). */
  applied: string[];
  /** What makes rewritten data leave no old copy (the one-time sealing of legacy secrets). */
  scrub: Scrub;
  /** Rate-limit buckets: this process's memory on SQLite (one node), a shared table on PostgreSQL. */
  rateLimits: RateLimitStore;
  /** PostgreSQL only: the file store of one name in the database (storage.driver=database). */
  databaseFiles?: (name: string) => FileStore;
  /** PostgreSQL only: one reading of the database server's clock (the cluster's clock: DatabaseClock). */
  readTime?: () => Promise<Date>;
}

/** The database could not be reached or logged into: the message says where, without the password. */
export class DatabaseOpenError extends Error {}

/** The SQLite file in dataDir (when database.url is empty). */
export function sqliteFile(dataDir: string): string {
  return resolve(dataDir, 'pagewatch.db');
}

export const migrationsDir = (dialect: DatabaseKind) => resolve(projectRoot(), 'migrations', dialect);

export async function openBackend(config: Readonly<Config>, log: Logger): Promise<OpenedBackend> {
  if (!config.database.url) return openSqlite(sqliteFile(config.dataDir));
  const pool = createPool(config.database, log);
  // Before migrating: the backend learns this pool's connections as they open (its own notifications).
  const backend = new PostgresBackend(pool, { listen: connectionOptions(config.database), log });
  try {
    const applied = await migratePostgres(pool, readMigrations(migrationsDir('postgres')));
    await backend.listen();
    return {
      backend,
      kind: 'postgres',
      applied,
      scrub: postgresScrub(pool),
      rateLimits: new PostgresRateLimits(pool),
      databaseFiles: (name) => new DatabaseFileStore(pool, name),
      readTime: () => readDatabaseTime(pool),
    };
  } catch (err) {
    await backend.close().catch(() => undefined);
    const code = (err as { code?: string }).code;
    // A server that cannot be reached says so plainly; a migration error keeps its own message.
    if (code && /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|28P01|28000|3D000)$/.test(code))
      throw new DatabaseOpenError(
        `cannot open PostgreSQL at ${redactedUrl(config.database.url)}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    throw err;
  }
}

function openSqlite(file: string): Promise<OpenedBackend> {
  const db = openDatabase(file);
  let applied: string[];
  try {
    applied = migrate(db, readMigrations(migrationsDir('sqlite')));
  } catch (err) {
    db.close();
    throw err;
  }
  return Promise.resolve({
    backend: new SqliteBackend(db),
    kind: 'sqlite',
    applied,
    scrub: sqliteScrub(db),
    rateLimits: new MemoryRateLimits(),
  });
}
