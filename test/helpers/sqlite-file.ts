// The service's SQLite file, opened by the test on a connection of its own, as another process (the CLI,
// an operator's sqlite3) would open it: the service keeps its own handle to itself. Reads see what the
// service committed; a write waits for the service's transaction, as the CLI's does.
import { sqliteFile } from '../../src/stores/sql/open-backend.js';
import { openDatabase, type Db } from '../../src/stores/sql/sqlite/connection.js';

export interface SqliteFile {
  /** The connection; on PostgreSQL there is no file, and reading it throws, saying so. */
  readonly db: Db;
  close(): void;
}

export function openSqliteFile(dataDir: string, databaseKind: 'sqlite' | 'postgres'): SqliteFile {
  if (databaseKind === 'postgres')
    return {
      get db(): never {
        throw new Error('no raw SQLite handle on PostgreSQL (database.url is set): use service.backend');
      },
      close: () => undefined,
    };
  const db = openDatabase(sqliteFile(dataDir));
  return { db, close: () => db.close() };
}

/** `target` with a `db` property that reads `file.db` (left out of object spreads, as it may throw). */
export function withDb<T extends object>(target: T, file: SqliteFile): T & { readonly db: Db } {
  return Object.defineProperty(target, 'db', { get: () => file.db, enumerable: false }) as T & { readonly db: Db };
}
