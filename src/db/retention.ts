// Deleting finished records past jobs.recordTtlDays: job rows of every kind (succeeded, failed,
// canceled), and webhook deliveries that are no longer pending, with their attempts. Children go
// before their parents, so foreign keys stay on: an idempotency key refers to its job, an attempt to
// its delivery. Callers work in batches, so no single transaction holds the database for long.
import type { Db } from './open.js';

export interface OldJob {
  id: string;
  resultKey: string | null;
}

export class RecordRetention {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      oldJobs: db.prepare(`SELECT id, CASE WHEN result_removed_at IS NULL THEN result_key END AS resultKey FROM jobs
        WHERE finished_at IS NOT NULL AND finished_at < ? AND status IN ('succeeded', 'failed', 'canceled')
        ORDER BY finished_at LIMIT ?`),
      deleteIdempotencyKeys: db.prepare('DELETE FROM idempotency_keys WHERE job_id = ?'),
      deleteJob: db.prepare('DELETE FROM jobs WHERE id = ?'),
      // A delivery's age is that of its last attempt: a redelivery keeps it (and its log) for a full term.
      oldDeliveries: db.prepare(`SELECT id FROM webhook_deliveries
        WHERE status <> 'pending' AND COALESCE(last_attempt_at, created_at) < ? LIMIT ?`),
      deleteAttempts: db.prepare('DELETE FROM webhook_attempts WHERE delivery_id = ?'),
      deleteDelivery: db.prepare(`DELETE FROM webhook_deliveries WHERE id = ? AND status <> 'pending'`),
    };
  }

  /** Up to `limit` finished jobs older than `before`, with the result file each still holds (remove it first). */
  oldJobs(before: Date, limit: number): OldJob[] {
    return this.stmts.oldJobs.all(before.toISOString(), limit) as OldJob[];
  }

  deleteJobs(ids: string[]): number {
    return this.db
      .transaction(() => {
        let deleted = 0;
        for (const id of ids) {
          this.stmts.deleteIdempotencyKeys.run(id);
          deleted += this.stmts.deleteJob.run(id).changes;
        }
        return deleted;
      })
      .immediate();
  }

  /** Delete up to `limit` finished deliveries older than `before`, with their attempts; how many deliveries. */
  deleteOldDeliveries(before: Date, limit: number): number {
    return this.db
      .transaction(() => {
        let deleted = 0;
        for (const { id } of this.stmts.oldDeliveries.all(before.toISOString(), limit) as { id: string }[]) {
          this.stmts.deleteAttempts.run(id);
          deleted += this.stmts.deleteDelivery.run(id).changes;
        }
        return deleted;
      })
      .immediate();
  }
}
