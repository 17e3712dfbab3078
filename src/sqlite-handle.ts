// The service's raw SQLite handle (`Service.db`), which tests and tools read as another process would.
// On PostgreSQL there is none: reading it says so instead of handing back undefined.
import type { Db } from './stores/sql/sqlite/connection.js';

/** `service` with its `db`: the SQLite handle, or on PostgreSQL a getter that says there is none. */
export function withSqliteHandle<S extends object>(service: S, sqlite: Db | undefined): S & { db: Db } {
  if (sqlite) return { ...service, db: sqlite };
  return Object.defineProperty(service, 'db', {
    enumerable: false, // spreading a service ({ ...service }) must not throw
    get(): never {
      throw new Error('no raw SQLite handle on PostgreSQL (database.url is set): use service.backend');
    },
  }) as S & { db: Db };
}
