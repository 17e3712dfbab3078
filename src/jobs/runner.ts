// What a job kind plugs into the queue: the queue and the worker know no kinds; each kind
// registers a runner. `run` works outside any transaction; the hooks run inside the queue's own
// transaction that ends the job, so what a job's end records (a capture row, a webhook event) commits
// or rolls back with the job's new status.
import type { Tx } from '../stores/backend.js';
import type { JobRecord, JobRequest, StoredResult } from '../stores/jobs.js';

export interface RunContext {
  /** The worker holding the job's lease. */
  owner: string;
  /** Aborted when the job is canceled, taken over, or the worker stops: then nothing is recorded. */
  signal: AbortSignal;
}

export interface JobOutcome<D = unknown> {
  /** A file kept on the job row for download (render jobs). */
  result?: StoredResult;
  /** What `onSucceeded` records elsewhere (a capture). */
  detail?: D;
}

/** A job as its runner sees it: the request is the one its kind submitted (R). */
export type JobOf<R extends JobRequest> = Omit<JobRecord, 'request'> & { request: R };

export interface JobRunner<R extends JobRequest = JobRequest, D = unknown> {
  /** Do the job. Throw to fail the try (the worker retries or fails it). */
  run(job: JobOf<R>, ctx: RunContext): Promise<JobOutcome<D>>;
  /** In the transaction that marks the job succeeded, only if it was still this worker's. */
  onSucceeded?(tx: Tx, job: JobRecord, outcome: JobOutcome<D>, now: Date): Promise<void>;
  /** The outcome was not recorded (job lost, transaction rolled back, or aborted): remove what `run` stored. */
  discard?(outcome: JobOutcome<D>): Promise<void>;
  /**
   * In the transaction that fails the job for good (a final error, or its tries used up). The job's
   * request is what was kept (`keepAfterFinish`), its error the last one.
   */
  onFailed?(tx: Tx, job: JobRecord, now: Date): Promise<void>;
  /** What of the request a finished job keeps: the secrets it ran with are not kept at rest. */
  keepAfterFinish(request: R): JobRequest;
}
