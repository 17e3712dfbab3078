// Idempotency-Key → job, per API key. A key is honoured for a fixed window (24 h, as the contract
// says); after it the same key starts a new job.

export interface IdempotencyRecord {
  jobId: string;
  requestHash: string;
  createdAt: string;
}

export interface IdempotencyKeyStore {
  /** The entry for this API key's `idemKey`, if it was made at or after `since`. */
  find(keyId: string, idemKey: string, since: Date): Promise<IdempotencyRecord | undefined>;
  /** Record (or replace a stale entry with) this key → job. */
  put(keyId: string, idemKey: string, requestHash: string, jobId: string, now: Date): Promise<void>;
  /** Delete entries made before `olderThan`; how many. */
  sweep(olderThan: Date): Promise<number>;
}
