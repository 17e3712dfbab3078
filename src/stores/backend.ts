// The seam between the services and a database. A backend offers every store, outside or inside one
// transaction, and says when something others wait for was committed (jobs to claim, webhook deliveries
// to send). Implemented for SQLite (sql/sqlite/backend.ts) and PostgreSQL (sql/postgres/backend.ts).
import type { EventEmitter } from 'node:events';
import type { ApiKeyStore } from './api-keys.js';
import type { CaptureStore } from './captures.js';
import type { ChannelStore } from './channels.js';
import type { FeedStore } from './feeds.js';
import type { IdempotencyKeyStore } from './idempotency-keys.js';
import type { JobStore } from './jobs.js';
import type { KeyDataStore } from './key-data.js';
import type { LoginStore } from './logins.js';
import type { MonitorStore } from './monitors.js';
import type { NodeStore } from './nodes.js';
import type { RecordRetention } from './retention.js';
import type { StatusReadStore } from './status-reads.js';
import type { DeliveryStore } from './webhook-deliveries.js';

export interface Stores {
  keys: ApiKeyStore;
  jobs: JobStore;
  idempotency: IdempotencyKeyStore;
  deliveries: DeliveryStore;
  monitors: MonitorStore;
  /** Saved logins of monitors (capture.saveLogin), sealed. */
  logins: LoginStore;
  captures: CaptureStore;
  channels: ChannelStore;
  feeds: FeedStore;
  keyData: KeyDataStore;
  retention: RecordRetention;
  nodes: NodeStore;
  /** The cluster's figures for /api/status. */
  statusReads: StatusReadStore;
}

/** The stores of one transaction. */
export interface Tx extends Stores {
  /** Run `fn` once the transaction has committed (never if it rolls back). `fn` must not throw. */
  afterCommit(fn: () => void): void;
}

/**
 * What was committed: `jobs` — a job became claimable (queued, requeued, released); `deliveries` — a
 * webhook delivery became due (recorded, redelivered); `monitors` — a monitor was created, changed,
 * paused, resumed or deleted; `keys` — a key was revoked or deleted. Emitted after the commit, never from
 * inside. With several nodes on one database, every node hears every topic (a hint: consumers also poll).
 */
export const CHANGE_TOPICS = ['jobs', 'deliveries', 'monitors', 'keys'] as const;
export type ChangeTopic = (typeof CHANGE_TOPICS)[number];

export interface Backend {
  readonly stores: Stores;
  /**
   * Run `fn` in one transaction; it commits when `fn` resolves and rolls back when it throws. Inside,
   * use only the `tx` stores: on SQLite the outer stores wait for the transaction to end (a deadlock).
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** `changes.on(topic, listener)`: see ChangeTopic. */
  readonly changes: EventEmitter<Record<ChangeTopic, []>>;
  /**
   * Run `fn` unless another node runs the same `name` right now (then resolve undefined without running
   * it): for work that one node at a time should do, e.g. the sweep. With SQLite (one node per file) fn
   * always runs; on PostgreSQL a session advisory lock decides.
   */
  runExclusive<T>(name: string, fn: () => Promise<T>): Promise<T | undefined>;
  /** Whether the database answers a trivial query. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
