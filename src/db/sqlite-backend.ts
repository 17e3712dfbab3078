// The SQLite backend: every store over one connection (src/db/sqlite.ts), transactions that begin
// IMMEDIATE, and change events emitted after commit.
import { EventEmitter } from 'node:events';
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { Backend, ChangeTopic, Stores, Tx } from '../stores/backend.js';
import { SqlApiKeyStore } from './api-keys.js';
import { SqlCaptureStore } from './captures.js';
import { SqlIdempotencyKeyStore } from './idempotency-keys.js';
import { SqlJobStore } from './jobs.js';
import { SqlKeyDataStore } from './key-data.js';
import { SqlMonitorStore } from './monitors.js';
import { SqlRecordRetention } from './retention.js';
import type { DB } from './schema.js';
import { kyselyOver, type Db } from './sqlite.js';
import { SqlDeliveryStore } from './webhook-deliveries.js';

/** Tells the backend a change others wait for was written (emitted now, or after commit in a transaction). */
export type Notify = (topic: ChangeTopic) => void;

/** The stores over one executor: the database, or one transaction of it. */
function storesOver(exec: Kysely<DB> | Transaction<DB>, notify: Notify): Stores {
  return {
    keys: new SqlApiKeyStore(exec),
    jobs: new SqlJobStore(exec, notify),
    idempotency: new SqlIdempotencyKeyStore(exec),
    deliveries: new SqlDeliveryStore(exec, notify),
    monitors: new SqlMonitorStore(exec, notify),
    captures: new SqlCaptureStore(exec, notify),
    keyData: new SqlKeyDataStore(exec),
    retention: new SqlRecordRetention(exec),
  };
}

export class SqliteBackend implements Backend {
  readonly changes = new EventEmitter<Record<ChangeTopic, []>>();
  readonly stores: Stores;
  readonly kysely: Kysely<DB>;

  /** `raw`: the open handle (src/db/sqlite.ts); closing the backend closes it. */
  constructor(raw: Db) {
    this.kysely = kyselyOver(raw);
    this.stores = storesOver(this.kysely, (topic) => this.changes.emit(topic));
  }

  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const after: (() => void)[] = [];
    const topics = new Set<ChangeTopic>();
    const result = await this.kysely.transaction().execute(async (trx) => {
      const stores = storesOver(trx, (topic) => topics.add(topic));
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

  async ping(): Promise<boolean> {
    try {
      await sql`SELECT 1`.execute(this.kysely);
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.kysely.destroy(); // closes the handle
  }
}
