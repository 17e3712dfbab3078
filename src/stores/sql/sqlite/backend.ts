// The SQLite backend: every store over one connection (src/stores/sql/sqlite/connection.ts), transactions that begin
// IMMEDIATE, and change events emitted after commit.
import { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import type { Backend, ChangeTopic, Stores, Tx } from '../../backend.js';
import { sqliteFlavor } from '../flavor.js';
import { ping } from '../ping.js';
import type { DB } from '../schema.js';
import { kyselyOver, type Db } from './connection.js';
import { storesOver } from '../stores-over.js';

export class SqliteBackend implements Backend {
  readonly changes = new EventEmitter<Record<ChangeTopic, []>>();
  readonly stores: Stores;
  readonly kysely: Kysely<DB>;

  /** `raw`: the open handle (src/stores/sql/sqlite/connection.ts); closing the backend closes it. */
  constructor(raw: Db) {
    this.kysely = kyselyOver(raw);
    this.stores = storesOver(this.kysely, (topic) => this.changes.emit(topic), sqliteFlavor);
  }

  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const after: (() => void)[] = [];
    const topics = new Set<ChangeTopic>();
    const result = await this.kysely.transaction().execute(async (trx) => {
      const stores = storesOver(trx, (topic) => topics.add(topic), sqliteFlavor);
      return fn({ ...stores, afterCommit: (f) => after.push(f) });
    });
    // Committed: what waits on it runs now. A listener that throws must not skip the rest nor turn the
    // committed transaction into an error for its caller.
    for (const f of after) f();
    for (const topic of topics) {
      try {
        this.changes.emit(topic);
      } catch {
        // the listeners are wake-ups; the poll catches up with anything a failed one missed
      }
    }
    return result;
  }

  /** One node per database file: nobody else can be running it. */
  runExclusive<T>(_name: string, fn: () => Promise<T>): Promise<T | undefined> {
    return fn();
  }

  ping(): Promise<boolean> {
    return ping(this.kysely);
  }

  async close(): Promise<void> {
    await this.kysely.destroy(); // closes the handle
  }
}
