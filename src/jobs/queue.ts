// The job queue's transactions. Each state change and the webhook event that reports it are written
// together, so after a crash a finished job always has its event in the outbox, and an event never
// speaks of a job that did not finish.
import { createHash, randomBytes } from 'node:crypto';
import type { IdempotencyKeyStore } from '../db/idempotency-keys.js';
import type { JobError, JobKind, JobRecord, JobStore, StoredResult } from '../db/jobs.js';
import type { Db } from '../db/open.js';
import type { DeliveryStore } from '../db/webhook-deliveries.js';
import { conflict, queueFull } from '../errors.js';
import { recordEvent } from '../webhooks/outbox.js';
import { jobEventData } from './view.js';

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;

export interface Submission {
  keyId: string;
  kind: JobKind;
  /** The validated request (defaults filled in), stored for the worker. */
  request: Record<string, unknown>;
  baseUrl: string;
  webhookUrl?: string;
  idempotencyKey?: string;
}

export interface QueueLimits {
  maxAttempts: number;
  leaseMs: number;
  maxQueuedPerKey: number;
}

export class JobQueue {
  constructor(
    private readonly db: Db,
    private readonly jobs: JobStore,
    private readonly deliveries: DeliveryStore,
    private readonly idempotency: IdempotencyKeyStore,
    private readonly limits: QueueLimits,
    /** A capture job failed for good: its monitor records a failed capture (inside the same transaction). */
    private readonly captureFailed: (job: JobRecord, now: Date) => void = () => undefined,
  ) {}

  /**
   * A new queued job, or — for a repeated Idempotency-Key with the same request within 24 h — the job
   * it made before (`created: false`). The same key with another request is 409.
   */
  submit(s: Submission, now = new Date()): { job: JobRecord; created: boolean } {
    const requestJson = JSON.stringify(s.request);
    const requestHash = createHash('sha256')
      .update(`${s.kind}\n${s.webhookUrl ?? ''}\n${canonicalJson(s.request)}`)
      .digest('hex');
    // IMMEDIATE: the read of the idempotency key and the insert are one step, even across processes.
    return this.db
      .transaction(() => {
        if (s.idempotencyKey !== undefined) {
          const earlier = this.idempotency.find(
            s.keyId,
            s.idempotencyKey,
            new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS),
          );
          if (earlier) {
            if (earlier.requestHash !== requestHash) {
              throw conflict('this Idempotency-Key was used with a different request in the last 24 hours');
            }
            const job = this.jobs.get(earlier.jobId);
            if (job) return { job, created: false };
          }
        }
        if (this.jobs.countActive(s.keyId) >= this.limits.maxQueuedPerKey) {
          throw queueFull(
            10,
            `this key already has ${this.limits.maxQueuedPerKey} jobs queued or running (jobs.maxQueuedPerKey)`,
          );
        }
        const id = `job_${randomBytes(10).toString('hex')}`;
        this.jobs.insert(
          { id, keyId: s.keyId, kind: s.kind, request: requestJson, baseUrl: s.baseUrl, webhookUrl: s.webhookUrl },
          now,
        );
        if (s.idempotencyKey !== undefined) this.idempotency.put(s.keyId, s.idempotencyKey, requestHash, id, now);
        return { job: this.jobs.get(id)!, created: true };
      })
      .immediate();
  }

  /**
   * Claim up to `limit` jobs for `owner`, keys taking turns (see fair-claim.ts). Jobs whose tries ran
   * out with their worker are failed first (`exhausted`: how many, so the caller knows events were
   * recorded), and jobs of revoked keys are canceled (`canceled`: their ids, so running ones can stop).
   */
  claim(
    owner: string,
    limit: number,
    now = new Date(),
  ): { claimed: JobRecord[]; exhausted: number; canceled: string[] } {
    return this.db
      .transaction(() => {
        const canceled = this.jobs.cancelRevoked(now);
        const exhausted = this.jobs.failExhausted(this.limits.maxAttempts, now);
        for (const job of exhausted) this.finished(job, now);
        const claimed =
          limit > 0 ? this.jobs.claim(owner, limit, this.limits.leaseMs, this.limits.maxAttempts, now) : [];
        return { claimed, exhausted: exhausted.length, canceled };
      })
      .immediate();
  }

  /** The jobs this worker still holds (not canceled, not taken over). */
  runningOf(owner: string): Set<string> {
    return this.jobs.runningOf(owner);
  }

  renew(owner: string, now = new Date()): void {
    this.jobs.renew(owner, this.limits.leaseMs, now);
  }

  /** Record the result; false if the job stopped being this worker's meanwhile (canceled, taken over). */
  succeed(job: JobRecord, owner: string, result: StoredResult, now = new Date()): boolean {
    return this.db
      .transaction(() => {
        const done = this.jobs.succeed(job.id, owner, result, now);
        if (done) this.finished(done, now);
        return done !== undefined;
      })
      .immediate();
  }

  /** A failure that may pass (a browser crash): queued again while tries are left, else failed. */
  failOrRetry(
    job: JobRecord,
    owner: string,
    error: JobError,
    retryable: boolean,
    now = new Date(),
  ): 'retried' | 'failed' | 'gone' {
    return this.db
      .transaction(() => {
        if (retryable && job.attempts < this.limits.maxAttempts) {
          return this.jobs.requeue(job.id, owner, error) ? 'retried' : 'gone';
        }
        const failed = this.jobs.fail(job.id, owner, error, now);
        if (failed) this.finished(failed, now);
        return failed ? 'failed' : 'gone';
      })
      .immediate();
  }

  /** A stopping worker hands its running jobs back to the queue. */
  release(owner: string): number {
    return this.jobs.release(owner);
  }

  cancel(keyId: string, id: string, now = new Date()): JobRecord | undefined {
    return this.jobs.cancel(keyId, id, now);
  }

  /** Record what a job's end tells: a render job's webhook event, or a capture job's failed capture. */
  private finished(job: JobRecord, now: Date): void {
    if (job.kind === 'capture') {
      if (job.status === 'failed') this.captureFailed(job, now);
      return;
    }
    if (!job.webhookUrl) return;
    recordEvent(
      this.deliveries,
      {
        keyId: job.keyId,
        url: job.webhookUrl,
        type: job.status === 'succeeded' ? 'job.succeeded' : 'job.failed',
        data: jobEventData(job),
        jobId: job.id,
      },
      now,
    );
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
