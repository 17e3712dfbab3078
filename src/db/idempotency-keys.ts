// Idempotency-Key → job, per API key. A key is honoured for a fixed window (24 h, as the contract
// says); after it the same key starts a new job.
import type { Db } from './open.js';

export interface IdempotencyRecord {
  jobId: string;
  requestHash: string;
  createdAt: string;
}

export class IdempotencyKeyStore {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      find: db.prepare(`SELECT job_id AS jobId, request_hash AS requestHash, created_at AS createdAt
        FROM idempotency_keys WHERE key_id = ? AND idem_key = ?`),
      // A stale entry (older than the window) is replaced, not kept beside the new one.
      put: db.prepare(`INSERT INTO idempotency_keys (key_id, idem_key, request_hash, job_id, created_at)
        VALUES (@keyId, @idemKey, @requestHash, @jobId, @createdAt)
        ON CONFLICT (key_id, idem_key) DO UPDATE SET request_hash = excluded.request_hash,
          job_id = excluded.job_id, created_at = excluded.created_at`),
      sweep: db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?'),
    };
  }

  /** The entry for this key, if it is younger than `since`. */
  find(keyId: string, idemKey: string, since: Date): IdempotencyRecord | undefined {
    const row = this.stmts.find.get(keyId, idemKey) as IdempotencyRecord | undefined;
    return row && row.createdAt >= since.toISOString() ? row : undefined;
  }

  put(keyId: string, idemKey: string, requestHash: string, jobId: string, now: Date): void {
    this.stmts.put.run({ keyId, idemKey, requestHash, jobId, createdAt: now.toISOString() });
  }

  sweep(olderThan: Date): number {
    return this.stmts.sweep.run(olderThan.toISOString()).changes;
  }
}
