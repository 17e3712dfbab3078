// The SQLite backend: every store over one connection (src/db/sqlite.ts), transactions that begin
// IMMEDIATE, and change events emitted after commit.
import { EventEmitter } from 'node:events';
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { Backend, ChangeTopic, Stores, Tx } from '../stores/backend.js';
import { asAsync } from '../stores/async.js';
import { ApiKeyStore } from './api-keys.js';
import { CaptureStore } from './captures.js';
import { SqlIdempotencyKeyStore } from './idempotency-keys.js';
import { SqlJobStore } from './jobs.js';
import { KeyDataStore } from './key-data.js';
import { MonitorStore } from './monitors.js';
import { RecordRetention } from './retention.js';
import type { DB } from './schema.js';
import { kyselyOver, type Db } from './sqlite.js';
import { DeliveryStore } from './webhook-deliveries.js';

/** Tells the backend a change others wait for was written (emitted now, or after commit in a transaction). */
export type Notify = (topic: ChangeTopic) => void;

/**
 * The stores over one executor (the database, or one transaction of it). Each store's owner swaps its
 * line for its Kysely implementation: `new SqlJobStore(exec, notify)`.
 */
function storesOver(raw: Db, exec: Kysely<DB> | Transaction<DB>, notify: Notify): Stores {
  // INTERIM (issue 12 skeleton): the synchronous classes on the raw handle. Inside a Kysely transaction
  // they run on the same connection, so they are part of it.
  return {
    keys: asAsync(new ApiKeyStore(raw)),
    jobs: new SqlJobStore(exec, notify),
    idempotency: new SqlIdempotencyKeyStore(exec),
    deliveries: notifyingDeliveries(asAsync(new DeliveryStore(raw)), notify),
    monitors: asAsync(new MonitorStore(raw)),
    captures: asAsync(new CaptureStore(raw)),
    keyData: asAsync(new KeyDataStore(raw)),
    retention: asAsync(new RecordRetention(raw)),
  };
}

/**
 * INTERIM (issue 12, branch i12-queue): the job queue no longer wakes the dispatcher by callback, so a
 * recorded delivery tells `deliveries` here until the deliveries store's own implementation does.
 */
function notifyingDeliveries(store: Stores['deliveries'], notify: Notify): Stores['deliveries'] {
  return Object.assign(Object.create(store) as Stores['deliveries'], {
    insert: async (...args: Parameters<Stores['deliveries']['insert']>) => {
      await store.insert(...args);
      notify('deliveries');
    },
  });
}

export class SqliteBackend implements Backend {
  readonly changes = new EventEmitter<Record<ChangeTopic, []>>();
  readonly stores: Stores;
  readonly kysely: Kysely<DB>;

  /** `raw`: the open handle (src/db/sqlite.ts); closing the backend closes it. */
  constructor(private readonly raw: Db) {
    this.kysely = kyselyOver(raw);
    this.stores = storesOver(raw, this.kysely, (topic) => this.changes.emit(topic));
  }

  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const after: (() => void)[] = [];
    const topics = new Set<ChangeTopic>();
    const result = await this.kysely.transaction().execute(async (trx) => {
      const stores = storesOver(this.raw, trx, (topic) => topics.add(topic));
      return fn({ ...stores, afterCommit: (f) => after.push(f) });
    });
    for (const topic of topics) this.changes.emit(topic);
    for (const f of after) f();
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
