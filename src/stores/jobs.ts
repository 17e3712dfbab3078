// The jobs store: the durable queue's rows. It knows no job kinds: a kind is an opaque name its runner
// registered, a job may name an opaque `subject` (a capture job: its monitor), and what a finished job
// keeps of its request was decided at submission (`keptRequest`), so every statement that ends jobs —
// one at a time or in bulk — applies it without asking what kind they are.
import type { JobError, JobStatus, ResultMeta } from '../domain/job-outcome.js';

/** A job's request as its runner reads it: a JSON object. */
export type JobRequest = Record<string, unknown>;

export interface JobRecord {
  id: string;
  keyId: string;
  kind: string;
  status: JobStatus;
  /** While queued or running, what the runner needs; once finished, only what was kept (keptRequest). */
  request: JobRequest;
  baseUrl: string;
  webhookUrl: string | null;
  /** What the job is about, for its kind (a capture job: the monitor id); null for most jobs. */
  subject: string | null;
  attempts: number;
  leaseOwner: string | null;
  error: JobError | null;
  result: {
    key: string;
    contentType: string;
    bytes: number;
    meta: ResultMeta;
    expiresAt: string;
    removed: boolean;
  } | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface NewJob {
  id: string;
  keyId: string;
  kind: string;
  request: JobRequest;
  /** What the job keeps of `request` once it finishes: the secrets it ran with are not kept at rest. */
  keptRequest: JobRequest;
  baseUrl: string;
  webhookUrl?: string;
  subject?: string;
}

export interface StoredResult {
  key: string;
  contentType: string;
  bytes: number;
  meta: ResultMeta;
  expiresAt: string;
}

export interface ListQuery {
  status?: JobStatus;
  limit: number;
  /** The cursor: jobs strictly older than this one (created earlier, or at the same time with a lower id). */
  before?: { createdAt: string; id: string };
}

/**
 * Every write that ends a job (succeed, fail, cancel...) names the lease owner where a worker makes it,
 * so a worker whose lease was taken over, or whose job was canceled, records nothing (undefined/false).
 * `kinds` arguments scope a read to the kinds a caller shows (the jobs API: render jobs only).
 */
export interface JobStore {
  /** Queue a job (notifies `jobs`). */
  /** The job as stored (queued). */
  insert(job: NewJob, now: Date): Promise<JobRecord>;
  get(id: string): Promise<JobRecord | undefined>;
  /** The job if it belongs to this key and is of one of `kinds`; any other is as good as missing. */
  getOwned(keyId: string, id: string, kinds: readonly string[]): Promise<JobRecord | undefined>;
  /** A key's jobs of `kinds`, newest first (created_at DESC, id DESC), after the cursor. */
  list(keyId: string, kinds: readonly string[], q: ListQuery): Promise<JobRecord[]>;
  /** A key's queued and running jobs, of every kind (they share the key's place in the queue). */
  countActive(keyId: string): Promise<number>;
  /** Jobs of `kinds` by status (every status present, 0 when none). */
  countByStatus(kinds: readonly string[]): Promise<Record<JobStatus, number>>;
  /**
   * Take up to `limit` claimable jobs for `owner` (keys taking turns, see fair-claim.ts): queued, or
   * running with a lease that ran out, with tries left, of a key that is not revoked. Counts the try.
   * Oldest first.
   */
  claim(owner: string, limit: number, leaseMs: number, maxAttempts: number, now: Date): Promise<JobRecord[]>;
  /** Cancel what revoked keys still have queued or running; the ids, so running ones can be stopped. */
  cancelRevoked(now: Date): Promise<string[]>;
  /** The jobs `owner` still holds; a job it runs that is missing here was canceled or taken over. */
  runningOf(owner: string): Promise<Set<string>>;
  /** Fail the running jobs whose lease ran out with no tries left; the failed jobs. */
  failExhausted(maxAttempts: number, now: Date): Promise<JobRecord[]>;
  /**
   * Extend the lease of the jobs `ids` that `owner` runs. Only those: a job whose work ended but whose end
   * could not be written (a full disk) must see its lease run out, so it is taken up again.
   */
  renew(owner: string, ids: readonly string[], leaseMs: number, now: Date): Promise<void>;
  /** Mark the job succeeded, with its downloadable result if it has one; undefined when not `owner`'s. */
  succeed(id: string, owner: string, result: StoredResult | undefined, now: Date): Promise<JobRecord | undefined>;
  /** Fail the job for good; undefined when not `owner`'s. */
  fail(id: string, owner: string, error: JobError, now: Date): Promise<JobRecord | undefined>;
  /** Queue the job again (keeping the error until it ends); false when not `owner`'s. Notifies `jobs`. */
  requeue(id: string, owner: string, error: JobError): Promise<boolean>;
  /** A stopping worker hands its running jobs back; the interrupted try does not count. Notifies `jobs`. */
  release(owner: string): Promise<number>;
  /** Cancel a key's queued or running job of `kinds`; undefined if there is none such. */
  cancel(keyId: string, id: string, kinds: readonly string[], now: Date): Promise<JobRecord | undefined>;
  /** The oldest queued or running job about `subject`, if any. */
  activeFor(subject: string): Promise<JobRecord | undefined>;
  /** Cancel the queued and running jobs about `subject`; their ids, so running ones can be stopped. */
  cancelFor(subject: string, now: Date): Promise<string[]>;
  /** Up to `limit` jobs whose result expired at `now` and is not yet removed, soonest expired first. */
  expiredResults(now: Date, limit: number): Promise<JobRecord[]>;
  markResultRemoved(id: string, now: Date): Promise<void>;
  /** Whether job `id` still offers the stored result `key`. */
  holdsResult(id: string, key: string): Promise<boolean>;
  /** Delete up to `limit` jobs of `kind` that finished before `before`; how many were deleted. */
  deleteFinished(kind: string, before: Date, limit: number): Promise<number>;
}
