// The job queue's transactions. Each state change and what its runner records with it (a webhook
// event, a capture) are written together, so after a crash a finished job always has its record, and a
// record never speaks of a job that did not finish. The queue knows no job kinds: each kind registers
// a runner (runner.ts), and job ids are minted here only.
import { createHash, randomBytes } from 'node:crypto';
import { conflict, queueFull } from '../errors.js';
import { systemClock, type Clock } from '../domain/clock.js';
import type { Backend, Tx } from '../stores/backend.js';
import type { JobRecord, JobRequest } from '../stores/jobs.js';
import type { JobError } from '../domain/job-outcome.js';
import { Gathered } from './gathered.js';
import type { JobOutcome, JobRunner } from './runner.js';

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;
/** How often a claim also fails spent jobs and cancels revoked keys' jobs (see `claim`). */
export const TIDY_INTERVAL_MS = 1000;

/** A job to queue from inside the caller's own transaction (`enqueue`). */
export interface Enqueued {
  keyId: string;
  kind: string;
  /** The validated request (defaults filled in), stored for the worker. */
  request: JobRequest;
  baseUrl: string;
  webhookUrl?: string;
  /** What the job is about, for its kind (a capture: the monitor); see `pendingFor`. */
  subject?: string;
}

export interface Submission extends Enqueued {
  idempotencyKey?: string;
  /** The new job's id, minted beforehand (mintJobId) by a caller that stores something under it first. */
  id?: string;
  /**
   * What the Idempotency-Key compares, when the stored request differs on every submission (its secrets
   * are sealed with a random IV); absent: the request itself.
   */
  fingerprint?: JobRequest;
}

/** A new job id. */
export const mintJobId = (): string => `job_${randomBytes(10).toString('hex')}`;

export interface Submitted {
  job: JobRecord;
  created: boolean;
}

interface PendingSubmission {
  s: Submission;
  requestHash: string;
  now: Date;
}

export interface QueueLimits {
  maxAttempts: number;
  leaseMs: number;
  maxQueuedPerKey: number;
}

export class JobQueue {
  private readonly runners = new Map<string, JobRunner>();
  /**
   * Each key's queued and running jobs, counted once per transaction and kept up to date by `enqueue`: a
   * burst gathered into one transaction (Gathered) checks its limit without counting the rows again each time.
   */
  private readonly activeCounts = new WeakMap<Tx, Map<string, number>>();
  /** When `claim` last tidied (the time it was given). */
  private tidiedAt: number | undefined;

  /** Submissions that arrive together are written in one transaction (see Gathered). */
  private readonly submissions: Gathered<PendingSubmission, Submitted>;

  constructor(
    private readonly backend: Backend,
    private readonly limits: QueueLimits,
    /** The cluster's clock (the database's): leases written by one node are read by the others. */
    readonly clock: Clock = systemClock,
  ) {
    this.submissions = new Gathered(backend, (tx, pending) => this.submitIn(tx, pending));
  }

  /** Jobs of `kind` are run (and their ends recorded) by `runner`. Register before submitting any. */
  register<R extends JobRequest, D>(kind: string, runner: JobRunner<R, D>): void {
    if (this.runners.has(kind)) throw new Error(`job kind ${kind} has a runner already`);
    // The runner reads back the request its kind submitted: R holds for every job of this kind.
    this.runners.set(kind, runner);
  }

  runnerOf(kind: string): JobRunner {
    const runner = this.runners.get(kind);
    if (!runner) throw new Error(`no runner for job kind ${kind}`);
    return runner;
  }

  /**
   * A new queued job, or — for a repeated Idempotency-Key with the same request within 24 h — the job
   * it made before (`created: false`). The same key with another request is 409.
   */
  submit(s: Submission, now = this.clock.now()): Promise<Submitted> {
    const requestHash = createHash('sha256')
      .update(`${s.kind}\n${s.webhookUrl ?? ''}\n${canonicalJson(s.fingerprint ?? s.request)}`)
      .digest('hex');
    return this.submissions.run({ s, requestHash, now });
  }

  /**
   * One submission inside a transaction (IMMEDIATE on SQLite): the read of the idempotency key and the
   * insert are one step, even across processes. Every refusal comes before any write (see Gathered).
   */
  private async submitIn(tx: Tx, { s, requestHash, now }: PendingSubmission): Promise<Submitted> {
    const { idempotencyKey, id, fingerprint: _fingerprint, ...job } = s;
    if (idempotencyKey !== undefined) {
      const since = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);
      const earlier = await tx.idempotency.find(s.keyId, idempotencyKey, since);
      if (earlier) {
        if (earlier.requestHash !== requestHash) {
          throw conflict('this Idempotency-Key was used with a different request in the last 24 hours');
        }
        const made = await tx.jobs.get(earlier.jobId);
        if (made) return { job: made, created: false };
      }
    }
    await this.assertRoom(tx, s.keyId);
    const queued = await this.enqueue(tx, job, now, id);
    if (idempotencyKey !== undefined) await tx.idempotency.put(s.keyId, idempotencyKey, requestHash, queued.id, now);
    return { job: queued, created: true };
  }

  /** Queue a job inside the caller's transaction (no limit checked: see `isFull`, `assertRoom`). */
  async enqueue(tx: Tx, e: Enqueued, now = this.clock.now(), id = mintJobId()): Promise<JobRecord> {
    const keptRequest = this.runnerOf(e.kind).keepAfterFinish(e.request);
    const queued = await tx.jobs.insert({ id, ...e, keptRequest }, now);
    const counted = this.activeCounts.get(tx);
    if (counted?.has(e.keyId)) counted.set(e.keyId, counted.get(e.keyId)! + 1);
    return queued;
  }

  /** The oldest queued or running job about `subject`, if any. */
  pendingFor(tx: Tx, subject: string): Promise<JobRecord | undefined> {
    return tx.jobs.activeFor(subject);
  }

  /** Whether the key has jobs.maxQueuedPerKey jobs queued or running (of every kind). */
  async isFull(tx: Tx, keyId: string): Promise<boolean> {
    let counted = this.activeCounts.get(tx);
    if (!counted) this.activeCounts.set(tx, (counted = new Map<string, number>()));
    let active = counted.get(keyId);
    if (active === undefined) counted.set(keyId, (active = await tx.jobs.countActive(keyId)));
    return active >= this.limits.maxQueuedPerKey;
  }

  /** 429 queue_full when the key's queue is full. */
  async assertRoom(tx: Tx, keyId: string): Promise<void> {
    if (await this.isFull(tx, keyId)) {
      throw queueFull(
        10,
        `This key already has ${this.limits.maxQueuedPerKey} jobs queued or running, its limit (jobs.maxQueuedPerKey): ` +
          'wait for some to finish, or cancel some.',
      );
    }
  }

  /**
   * Claim up to `limit` jobs for `owner`, keys taking turns (see fair-claim.ts). At most once every
   * TIDY_INTERVAL_MS, jobs whose tries ran out with their worker are failed first (`exhausted`: how many)
   * and jobs of revoked keys are canceled (`canceled`: their ids, so running ones can stop).
   * The claim itself is one statement (atomic on its own: no transaction around it), and the tidying
   * runs on the poll's rhythm rather than before every claim: neither kind of job is claimable meanwhile
   * (the claim passes over revoked keys and spent tries), so only the record of their end waits for it.
   * A worker claims each time a job ends; on PostgreSQL this took the claim from five round trips to one.
   */
  async claim(
    owner: string,
    limit: number,
    now = this.clock.now(),
  ): Promise<{ claimed: JobRecord[]; exhausted: number; canceled: string[] }> {
    const tidied = this.tidyDue(now) ? await this.tidy(now) : { exhausted: 0, canceled: [] };
    const claimed =
      limit > 0
        ? await this.backend.stores.jobs.claim(owner, limit, this.limits.leaseMs, this.limits.maxAttempts, now)
        : [];
    return { claimed, ...tidied };
  }

  private tidyDue(now: Date): boolean {
    const due = this.tidiedAt === undefined || Math.abs(now.getTime() - this.tidiedAt) >= TIDY_INTERVAL_MS;
    if (due) this.tidiedAt = now.getTime();
    return due;
  }

  private tidy(now: Date): Promise<{ exhausted: number; canceled: string[] }> {
    return this.backend.transaction(async (tx) => {
      const canceled = await tx.jobs.cancelRevoked(now);
      const exhausted = await tx.jobs.failExhausted(this.limits.maxAttempts, now);
      for (const job of exhausted) await this.runners.get(job.kind)?.onFailed?.(tx, job, now);
      return { exhausted: exhausted.length, canceled };
    });
  }

  /** The jobs this worker still holds (not canceled, not taken over). */
  runningOf(owner: string): Promise<Set<string>> {
    return this.backend.stores.jobs.runningOf(owner);
  }

  /** Extend the leases of the jobs `ids` this worker is still working on. */
  renew(owner: string, ids: readonly string[], now = this.clock.now()): Promise<void> {
    return this.backend.stores.jobs.renew(owner, ids, this.limits.leaseMs, now);
  }

  /**
   * Record the outcome, with what the runner's `onSucceeded` records, in one transaction; false if the
   * job stopped being this worker's meanwhile (canceled, taken over): then nothing is recorded.
   */
  succeed(job: JobRecord, owner: string, outcome: JobOutcome, now = this.clock.now()): Promise<boolean> {
    return this.backend.transaction(async (tx) => {
      const done = await tx.jobs.succeed(job.id, owner, outcome.result, now);
      if (!done) return false;
      await this.runners.get(done.kind)?.onSucceeded?.(tx, done, outcome, now);
      return true;
    });
  }

  /** A failure that may pass (a browser crash): queued again while tries are left, else failed. */
  failOrRetry(
    job: JobRecord,
    owner: string,
    error: JobError,
    retryable: boolean,
    now = this.clock.now(),
  ): Promise<'retried' | 'failed' | 'gone'> {
    return this.backend.transaction(async (tx) => {
      if (retryable && job.attempts < this.limits.maxAttempts) {
        return (await tx.jobs.requeue(job.id, owner, error)) ? 'retried' : 'gone';
      }
      const failed = await tx.jobs.fail(job.id, owner, error, now);
      if (!failed) return 'gone';
      await this.runners.get(failed.kind)?.onFailed?.(tx, failed, now);
      return 'failed';
    });
  }

  /** A stopping worker hands its running jobs back to the queue. */
  release(owner: string): Promise<number> {
    return this.backend.stores.jobs.release(owner);
  }

  /** Cancel a key's queued or running job of one of `kinds` (what the caller shows). */
  cancel(keyId: string, id: string, kinds: readonly string[], now = this.clock.now()): Promise<JobRecord | undefined> {
    return this.backend.stores.jobs.cancel(keyId, id, kinds, now);
  }
}

/** JSON with object keys sorted, so the same request always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
