// The SQLite connection: one better-sqlite3 handle per process (WAL lets readers run beside the single
// writer), with Kysely on top of the same handle. Kysely serialises its queries on the one connection,
// so a transaction holds it until it ends; transactions begin IMMEDIATE, so two processes sharing the
// file never deadlock upgrading a read lock to a write lock (the second waits up to busy_timeout).
import Database from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  type SqliteDialectConfig,
} from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DB } from '../schema.js';

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
  constructor(
    config: SqliteDialectConfig,
    private readonly raw: Db,
  ) {
    super(config);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  /**
   * SQLite rolls a transaction back by itself on some errors (SQLITE_FULL: the disk is full). A ROLLBACK
   * then fails with "no transaction is active", and that error would replace the one that says why.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.raw.inTransaction) await super.rollbackTransaction(connection);
  }
}

/**
 * Kysely prepares every query it runs; the service runs the same few dozen statements over and over (a
 * claim each poll, a tick each second per monitor), so each prepared statement is kept and reused.
 * Safe on the one connection: Kysely runs one query at a time and reads each result in full.
 */
export function withStatementCache(db: Db, max = 500): SqliteDatabase {
  const cache = new Map<string, Database.Statement>();
  return {
    close: () => db.close(),
    prepare(sql) {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = db.prepare(sql);
        // Bounded: a statement built with a varying number of parameters must not grow it without end.
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
}

class ImmediateSqliteDialect extends SqliteDialect {
  private readonly database: SqliteDatabase;

  constructor(private readonly raw: Db) {
    const database = withStatementCache(raw);
    super({ database });
    this.database = database;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.database }, this.raw);
  }
}

/** Kysely over an open handle. Destroying it closes the handle. */
export function kyselyOver(db: Db): Kysely<DB> {
  return new Kysely<DB>({ dialect: new ImmediateSqliteDialect(db) });
}
