// The PostgreSQL backend: the shared Kysely stores (src/stores/sql/*.ts) over a pg pool with the postgres flavor,
// and change topics across nodes. A transaction sends `pg_notify('pagewatch', topic)` for each topic it
// touched inside itself, so the notification goes out at COMMIT and never on rollback; every node LISTENs
// (listen.ts) and re-emits what other nodes sent on `changes`. The committing node emits its own topics
// locally right after the commit, as SQLite does (its consumers wake without a round trip, and its
// contract is the same on both databases), so the LISTEN side drops notifications its own connections sent:
// their backend pids are known from each notify statement and from the pool's connect events.
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import type pg from 'pg';
import type { Logger } from '../../../log.js';
import { CHANGE_TOPICS, type Backend, type ChangeTopic, type Stores, type Tx } from '../../backend.js';
import { postgresFlavor } from '../flavor.js';
import { ping } from '../ping.js';
import type { DB } from '../schema.js';
import { storesOver } from '../stores-over.js';
import { runExclusive } from './advisory-lock.js';
import { ChangeListener, CHANNEL } from './listen.js';

/** deadlock_detected, serialization_failure */
const RETRYABLE = new Set(['40P01', '40001']);
const TRANSACTION_ATTEMPTS = 5;

const pidOf = (client: unknown) => (client as { processID?: number | null }).processID ?? undefined;

export interface PostgresBackendOptions {
  /** The LISTEN connection's settings (the pool's own connection settings). */
  listen: pg.ClientConfig;
  log: Pick<Logger, 'warn' | 'debug'>;
}

export class PostgresBackend implements Backend {
  readonly changes = new EventEmitter<Record<ChangeTopic, []>>();
  readonly stores: Stores;
  readonly kysely: Kysely<DB>;
  private readonly ownPids = new Set<number>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly listener: ChangeListener;

  /** `pool`: this node's pool (public for the blob store and cluster parts); closing the backend ends it. */
  constructor(
    readonly pool: pg.Pool,
    private readonly options: PostgresBackendOptions,
  ) {
    pool.on('connect', (client) => this.remember(pidOf(client)));
    pool.on('remove', (client) => {
      const pid = pidOf(client);
      if (pid !== undefined) this.ownPids.delete(pid);
    });
    this.kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    this.stores = storesOver(this.kysely, (topic) => this.changedOutside(topic), postgresFlavor);
    this.listener = new ChangeListener(options.listen, {
      onTopic: (topic, pid) => {
        if (!this.ownPids.has(pid)) this.emit(topic);
      },
      // Notifications sent while the LISTEN connection was down are lost: wake every consumer once.
      onResync: () => CHANGE_TOPICS.forEach((t) => this.emit(t)),
      onError: (message) => options.log.warn({ err: message }, 'PostgreSQL LISTEN connection lost; reconnecting'),
    });
  }

  /** Work one node at a time: a session advisory lock on the name, held for fn's run (advisory-lock.ts). */
  runExclusive<T>(name: string, fn: () => Promise<T>): Promise<T | undefined> {
    return runExclusive(this.pool, name, fn);
  }

  /** Starts listening to the other nodes' changes; resolves once the first connect has been tried. */
  listen(): Promise<void> {
    return this.listener.start();
  }

  /**
   * A transaction that PostgreSQL ends as a deadlock victim or a serialization failure is run again from
   * the start (fn must only write through `tx`, as every caller does), up to TRANSACTION_ATTEMPTS times:
   * two nodes touching the same rows in a different order is a normal event, not the caller's error.
   */
  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transactionOnce(fn);
      } catch (err) {
        if (attempt >= TRANSACTION_ATTEMPTS || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
        this.options.log.debug({ err, attempt }, 'transaction retried after a deadlock or serialization failure');
        await sleep(Math.random() * 20 * attempt); // apart, so the two do not meet again at once
      }
    }
  }

  private async transactionOnce<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const after: (() => void)[] = [];
    const topics = new Set<ChangeTopic>();
    const result = await this.kysely.transaction().execute(async (trx) => {
      const stores = storesOver(trx, (topic) => topics.add(topic), postgresFlavor);
      const value = await fn({ ...stores, afterCommit: (f) => after.push(f) });
      for (const topic of topics) await this.notify(trx, topic); // delivered at COMMIT, never on rollback
      return value;
    });
    // Committed: what waits on it runs now. A listener that throws must not skip the rest nor turn the
    // committed transaction into an error for its caller.
    for (const f of after) f();
    for (const topic of topics) this.emit(topic);
    return result;
  }

  ping(): Promise<boolean> {
    return ping(this.kysely);
  }

  async close(): Promise<void> {
    await this.listener.close();
    await Promise.allSettled([...this.inFlight]);
    await this.kysely.destroy(); // ends the pool
  }

  /** A store wrote outside a transaction (already committed): tell this node now, the others by NOTIFY. */
  private changedOutside(topic: ChangeTopic): void {
    this.emit(topic);
    const sent = this.notify(this.kysely, topic).catch((err: Error) =>
      this.options.log.debug({ err: err.message, topic }, 'NOTIFY failed; the other nodes poll'),
    );
    this.inFlight.add(sent);
    void sent.finally(() => this.inFlight.delete(sent));
  }

  private async notify(exec: Kysely<DB> | Transaction<DB>, topic: ChangeTopic): Promise<void> {
    const { rows } = await sql<{
      pid: number;
    }>`SELECT pg_notify(${CHANNEL}, ${topic}), pg_backend_pid() AS pid`.execute(exec);
    this.remember(rows[0]?.pid);
  }

  private remember(pid: number | undefined): void {
    if (pid !== undefined) this.ownPids.add(pid);
  }

  private emit(topic: ChangeTopic): void {
    try {
      this.changes.emit(topic);
    } catch {
      // the listeners are wake-ups; the poll catches up with anything a failed one missed
    }
  }
}
