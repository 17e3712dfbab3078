// INTERIM (issue 12): a synchronous outbox insert for callers not yet async; deleted with its last caller.
import type { NewDelivery } from '../stores/webhook-deliveries.js';
import type { Db } from './open.js';

/**
 * INTERIM (issue 12): the outbox insert, synchronous on the raw handle, for the job queue and the
 * capture recorder while they still write in better-sqlite3 transactions (an await cannot run inside
 * one). Deleted when they record through `tx.deliveries` (`await recordEvent(tx.deliveries, …)`).
 * Who inserts here wakes the dispatcher itself.
 */
export class DeliveryStore {
  private readonly stmt;

  constructor(db: Db) {
    this.stmt = db.prepare(`INSERT INTO webhook_deliveries (id, key_id, message_id, event_type, url, payload, job_id,
        monitor_id, status, next_attempt_at, created_at)
      VALUES (@id, @keyId, @messageId, @eventType, @url, @payload, @jobId, @monitorId, 'pending', @now, @now)`);
  }

  insert(d: NewDelivery, now: Date): void {
    this.stmt.run({ ...d, jobId: d.jobId ?? null, monitorId: d.monitorId ?? null, now: now.toISOString() });
  }
}
