// A store method of several statements runs them in one transaction: the caller's, when the store was
// made for a transaction (Kysely cannot nest them), or one of its own.
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export function inTransaction<T>(db: Kysely<DB>, fn: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}
