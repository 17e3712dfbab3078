// Everything one API key owns, across tables: stopping it all when the key is revoked, and deleting it
// all when the key is purged. Each method is one statement; callers wrap them in one transaction.
import { KEEP_AFTER_FINISH } from './jobs.js';
import type { Db } from './open.js';

/** What a revocation stopped. */
export interface StoppedWork {
  jobs: string[];
  monitors: number;
  deliveries: number;
}

/** What a purge deleted: rows per table, and the stored files they held (to remove after commit). */
export interface PurgedRows {
  jobs: number;
  monitors: number;
  captures: number;
  deliveries: number;
  attempts: number;
  idempotencyKeys: number;
  /** Every job of the key that ran: each try may have stored a result file under its own name. */
  triedJobs: { jobId: string; attempts: number }[];
  /** Results that were still offered for download. */
  storedResults: number;
  /** Folders of the key's monitors in the capture store. */
  monitorIds: string[];
}

export class KeyDataStore {
  private readonly stmts;

  constructor(db: Db) {
    const finished = `status = 'canceled', lease_owner = NULL, lease_expires_at = NULL, finished_at = @now, ${KEEP_AFTER_FINISH}`;
    this.stmts = {
      cancelJobs: db.prepare(
        `UPDATE jobs SET ${finished} WHERE key_id = @keyId AND status IN ('queued', 'running') RETURNING id`,
      ),
      pauseMonitors: db.prepare(`UPDATE monitors SET paused = 1, next_run_at = NULL, updated_at = @now
        WHERE key_id = @keyId AND paused = 0`),
      failDeliveries:
        db.prepare(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = @reason
        WHERE key_id = @keyId AND status = 'pending'`),
      triedJobs: db.prepare('SELECT id AS jobId, attempts FROM jobs WHERE key_id = ? AND attempts > 0'),
      storedResults: db.prepare(
        'SELECT COUNT(*) AS n FROM jobs WHERE key_id = ? AND result_key IS NOT NULL AND result_removed_at IS NULL',
      ),
      monitorIds: db.prepare('SELECT id FROM monitors WHERE key_id = ?'),
      deleteAttempts: db.prepare(
        'DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE key_id = ?)',
      ),
      deleteDeliveries: db.prepare('DELETE FROM webhook_deliveries WHERE key_id = ?'),
      deleteIdempotencyKeys: db.prepare(
        'DELETE FROM idempotency_keys WHERE key_id = ? OR job_id IN (SELECT id FROM jobs WHERE key_id = ?)',
      ),
      deleteJobs: db.prepare('DELETE FROM jobs WHERE key_id = ?'),
      deleteCaptures: db.prepare('DELETE FROM captures WHERE monitor_id IN (SELECT id FROM monitors WHERE key_id = ?)'),
      deleteMonitors: db.prepare('DELETE FROM monitors WHERE key_id = ?'),
      deleteKey: db.prepare('DELETE FROM api_keys WHERE id = ?'),
    };
  }

  /** Cancel the key's queued and running jobs, pause its monitors, fail its pending deliveries. */
  stopWork(keyId: string, deliveryError: string, now: Date): StoppedWork {
    const at = now.toISOString();
    return {
      jobs: (this.stmts.cancelJobs.all({ keyId, now: at }) as { id: string }[]).map((r) => r.id),
      monitors: this.stmts.pauseMonitors.run({ keyId, now: at }).changes,
      deliveries: this.stmts.failDeliveries.run({ keyId, reason: deliveryError }).changes,
    };
  }

  /** Delete every row of the key, children before parents (foreign keys stay on); undefined if there is no such key. */
  deleteAll(keyId: string): PurgedRows | undefined {
    const triedJobs = this.stmts.triedJobs.all(keyId) as { jobId: string; attempts: number }[];
    const storedResults = (this.stmts.storedResults.get(keyId) as { n: number }).n;
    const monitorIds = (this.stmts.monitorIds.all(keyId) as { id: string }[]).map((r) => r.id);
    const attempts = this.stmts.deleteAttempts.run(keyId).changes;
    const deliveries = this.stmts.deleteDeliveries.run(keyId).changes;
    const idempotencyKeys = this.stmts.deleteIdempotencyKeys.run(keyId, keyId).changes;
    const jobs = this.stmts.deleteJobs.run(keyId).changes;
    const captures = this.stmts.deleteCaptures.run(keyId).changes;
    const monitors = this.stmts.deleteMonitors.run(keyId).changes;
    if (this.stmts.deleteKey.run(keyId).changes === 0) return undefined;
    return { jobs, monitors, captures, deliveries, attempts, idempotencyKeys, triedJobs, storedResults, monitorIds };
  }
}
