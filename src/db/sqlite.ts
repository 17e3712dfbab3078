// The SQLite connection: one better-sqlite3 handle per process (WAL lets readers run beside the single
// writer), with Kysely on top of the same handle. Kysely serialises its queries on the one connection,
// so a transaction holds it until it ends; transactions begin IMMEDIATE, so two processes sharing the
// file never deadlock upgrading a read lock to a write lock (the second waits up to busy_timeout).
import Database from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DB } from './schema.js';

export type Db = Database.Database;

/** One connection per process; WAL lets readers run beside the single writer. */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL'); // durable across process crashes in WAL mode; fsync at checkpoints
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  return db;
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly database: Db) {
    super({ database });
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.database });
  }
}

/** Kysely over an open handle. Destroying it closes the handle. */
export function kyselyOver(db: Db): Kysely<DB> {
  return new Kysely<DB>({ dialect: new ImmediateSqliteDialect(db) });
}
