// Deleting finished records past jobs.recordTtlDays: job rows of every kind (succeeded, failed,
// canceled), and webhook deliveries that are no longer pending, with their attempts. Callers work in
// batches, so no single transaction holds the database for long.

export interface OldJob {
  id: string;
  /** The result file the job still offers for download (remove it before the row), if any. */
  resultKey: string | null;
}

export interface RecordRetention {
  /** Up to `limit` finished jobs that finished before `before`, oldest first. */
  oldJobs(before: Date, limit: number): Promise<OldJob[]>;
  /** Delete these jobs with their idempotency keys, in one transaction; how many jobs. */
  deleteJobs(ids: string[]): Promise<number>;
  /**
   * Delete up to `limit` deliveries that are no longer pending and whose last attempt (or creation,
   * if never tried) was before `before`, with their attempts, in one transaction; how many deliveries.
   */
  deleteOldDeliveries(before: Date, limit: number): Promise<number>;
}
