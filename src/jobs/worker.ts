// The job worker: claims queued jobs (up to `capacity` at once) and hands each to the runner of its
// kind (a render, a monitor's capture), which works through the same renderer and concurrency limit as
// synchronous requests. While it works it renews its lease, so a job is taken up again only when this
// process is gone; failures are retried or recorded here, the same for every kind.
import { randomBytes } from 'node:crypto';
import { AppError } from '../errors.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Logger } from '../log.js';
import type { Backend } from '../stores/backend.js';
import type { JobRecord } from '../stores/jobs.js';
import { storeFaultOf } from '../stores/store-fault.js';
import { retryWhileUnavailable } from '../stores/unavailable.js';
import { inRootSpan, inSpan, recordSpan, SpanKind } from '../tracing/spans.js';
import type { JobQueue } from './queue.js';
import type { JobOutcome, JobRunner } from './runner.js';

export interface WorkerOptions {
  /** Jobs rendering (or waiting for a render slot) at once. */
  capacity: number;
  pollIntervalMs: number;
  leaseMs: number;
}

/**
 * Errors that come from the job itself (a bad page, a blocked URL, its timeout) end it; others — a
 * crashed page (render_crashed), the browser down (unavailable), a worker error — are retried up to
 * jobs.maxAttempts, and the last attempt's error is the job's.
 */
const FINAL_CODES = new Set(['render_failed', 'render_timeout', 'url_blocked', 'invalid_request']);

export class JobWorker implements Lifecycle {
  readonly name = 'job worker';
  readonly owner = `worker_${randomBytes(6).toString('hex')}`;
  private readonly running = new Map<string, AbortController>();
  private readonly tasks = new Set<Promise<void>>();
  private pollTimer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private fillQueued = false;
  private filling: Promise<void> | undefined;
  private refill = false;
  private stopped = true;

  /**
   * A job became claimable (queued, requeued, handed back): claim now rather than at the next poll. With
   * every slot taken there is nothing to claim: the slot that frees first wakes the worker itself. (A burst
   * of submissions would otherwise cost one pass of stopLost and claim per submission.)
   */
  private readonly onJobs = () => {
    if (this.running.size < this.options.capacity) this.wake();
  };
  /**
   * A key was revoked or deleted, maybe through another node: its jobs are canceled in the database, so
   * look at the running ones now (the claim starts with stopLost) rather than at the next poll.
   */
  private readonly onKeys = () => this.wake();

  constructor(
    private readonly backend: Pick<Backend, 'changes'>,
    private readonly queue: JobQueue,
    private readonly options: WorkerOptions,
    private readonly log: Logger,
  ) {}

  get runningCount(): number {
    return this.running.size;
  }

  start(): Promise<void> {
    this.stopped = false;
    this.backend.changes.on('jobs', this.onJobs);
    this.backend.changes.on('keys', this.onKeys);
    this.heartbeat = setInterval(() => void this.renew(), Math.max(100, Math.floor(this.options.leaseMs / 3)));
    this.heartbeat.unref();
    this.wake();
    return Promise.resolve();
  }

  /**
   * A job was queued or a slot freed: claim now rather than at the next poll. The backend's `jobs` change
   * calls it; so may whoever knows of work written past the backend (another process's insert).
   */
  wake(): void {
    if (this.stopped || this.fillQueued) return;
    this.fillQueued = true;
    setImmediate(() => {
      this.fillQueued = false;
      void this.fill();
    });
  }

  /** Stop the render of a job that was just canceled (its row already says so). */
  abort(jobId: string): void {
    this.running.get(jobId)?.abort(new Error('canceled'));
  }

  /** Claim nothing more; let running jobs finish by `deadline` (epoch ms), then stop them and hand them back. */
  async stop(deadline: number): Promise<void> {
    this.stopped = true;
    this.backend.changes.off('jobs', this.onJobs);
    this.backend.changes.off('keys', this.onKeys);
    clearTimeout(this.pollTimer);
    await this.filling;
    const finished = await Promise.race([
      Promise.allSettled([...this.tasks]).then(() => true),
      new Promise<false>((done) => setTimeout(done, Math.max(0, deadline - Date.now()), false).unref()),
    ]);
    if (!finished) {
      for (const controller of this.running.values()) controller.abort(new Error('shutting down'));
      await Promise.allSettled([...this.tasks]);
    }
    clearInterval(this.heartbeat);
    try {
      const released = await this.queue.release(this.owner);
      if (released) this.log.info({ released }, 'unfinished jobs handed back to the queue');
    } catch (err) {
      this.log.error({ err }, 'job worker could not hand its jobs back (their leases will run out)');
    }
  }

  /** One claim at a time: a wake during a claim runs another once it is done. */
  private fill(): Promise<void> {
    if (this.filling) {
      this.refill = true;
      return this.filling;
    }
    this.filling = this.claimOnce().finally(() => {
      this.filling = undefined;
      if (this.refill) {
        this.refill = false;
        this.wake();
      }
    });
    return this.filling;
  }

  private async claimOnce(): Promise<void> {
    if (this.stopped) return;
    clearTimeout(this.pollTimer);
    try {
      await this.stopLost();
      const { claimed, canceled } = await this.queue.claim(this.owner, this.options.capacity - this.running.size);
      for (const id of canceled) this.abort(id);
      // A stop that began during the claim hands these back (release) without starting them. A job this
      // worker still runs comes back when its renewals failed (a full disk, the database away) until the
      // lease ran out: the try under way goes on under the new lease, never a second one beside it.
      if (!this.stopped) for (const job of claimed) if (!this.running.has(job.id)) this.begin(job);
    } catch (err) {
      this.log.error({ err }, 'job worker could not claim jobs'); // a tick never throws; try again at the next poll
    }
    if (this.stopped) return;
    this.pollTimer = setTimeout(() => void this.fill(), this.options.pollIntervalMs);
    this.pollTimer.unref();
  }

  /**
   * Stop renders of jobs that are no longer this worker's: canceled by another process (a key revoked
   * with the CLI, another instance's API) or taken over. Without this the render would hold its slot to
   * the end and only then find it has nothing to record.
   */
  private async stopLost(): Promise<void> {
    if (this.running.size === 0) return;
    const held = await this.queue.runningOf(this.owner);
    for (const [id, controller] of this.running) {
      if (!held.has(id) && !controller.signal.aborted) {
        this.log.info({ job: id }, "job is no longer this worker's (canceled or taken over): stopping it");
        controller.abort(new Error('canceled'));
      }
    }
  }

  private begin(job: JobRecord): void {
    const controller = new AbortController();
    this.running.set(job.id, controller);
    const task = this.process(job, controller.signal)
      .catch((err) =>
        // No longer in `running`, so its lease is not renewed: it runs out and the job is taken up again.
        this.log.error({ err, job: job.id }, 'job worker failed to record a job (it is retried when its lease ends)'),
      )
      .finally(() => {
        this.running.delete(job.id);
        this.tasks.delete(task);
        this.wake();
      });
    this.tasks.add(task);
  }

  /**
   * Each try of a job is a trace of its own: its time in the queue (from submission, or its retry, to
   * this claim) is its first span; the runner's render, post-processing and storage hang under it.
   */
  private process(job: JobRecord, signal: AbortSignal): Promise<void> {
    const attributes = {
      'pagewatch.job.id': job.id,
      'pagewatch.job.kind': job.kind,
      'pagewatch.job.attempt': job.attempts,
    };
    return inRootSpan(`job ${job.kind}`, { kind: SpanKind.CONSUMER, attributes }, () => {
      if (job.startedAt) recordSpan('queue wait', new Date(job.createdAt), new Date(job.startedAt));
      return this.processTraced(job, signal);
    });
  }

  private async processTraced(job: JobRecord, signal: AbortSignal): Promise<void> {
    let runner: JobRunner | undefined;
    let outcome: JobOutcome | undefined;
    let recorded = false;
    try {
      runner = this.queue.runnerOf(job.kind); // a kind no runner knows fails like any other error
      const done = await runner.run(job, { owner: this.owner, signal });
      outcome = done;
      // Canceled, taken over or stopping while it ran: its outcome is not this try's to record.
      recorded =
        !signal.aborted &&
        (await inSpan('storage', { 'pagewatch.stored': 'job outcome' }, () =>
          this.recording(job, () => this.queue.succeed(job, this.owner, done)),
        ));
    } catch (err) {
      if (signal.aborted) return; // canceled (recorded by the canceller), or stopping (handed back at stop)
      await this.recordFailure(job, err);
    } finally {
      if (outcome && !recorded) await runner?.discard?.(outcome);
    }
  }

  private async recordFailure(job: JobRecord, thrown: unknown): Promise<void> {
    // A store's own error met mid-run is no bug: a write that found no room (the result, a capture's files)
    // gets a reason the caller can read; a database that went away (storing the result), `unavailable`.
    // Both are retried.
    const fault = storeFaultOf(thrown, 'job');
    const err = fault ?? thrown;
    if (fault?.code === 'insufficient_storage')
      this.log.warn({ err: thrown, job: job.id }, 'job could not store its result: the disk is full');
    const final = err instanceof AppError && FINAL_CODES.has(err.code) && err.extra.retryable !== true;
    const error =
      err instanceof AppError
        ? { code: err.code, message: storedMessage(err) }
        : { code: 'internal', message: 'an internal error; the service log has the cause' };
    if (!(err instanceof AppError)) this.log.error({ err, job: job.id }, 'job failed with an internal error');
    const outcome = await inSpan('storage', { 'pagewatch.stored': 'job outcome' }, () =>
      this.recording(job, () => this.queue.failOrRetry(job, this.owner, error, !final)),
    );
    // The caller's record says only what it may know (a url_blocked job: "not allowed"); the log keeps why.
    const reason = err instanceof AppError ? err.extra.logDetail : undefined;
    this.log.info(
      { job: job.id, attempt: job.attempts, code: error.code, outcome, ...(reason !== undefined && { reason }) },
      'job attempt failed',
    );
  }

  /**
   * Writes a job's outcome; while the database is unavailable (a restart, a failover) tries again for up to
   * a lease, so the work done is not thrown away. Recording is safe that late: it checks the job is still
   * this worker's, and a job taken over meanwhile is simply not recorded here.
   */
  private recording<T>(job: JobRecord, write: () => Promise<T>): Promise<T> {
    const giveUpAt = Date.now() + this.options.leaseMs;
    return retryWhileUnavailable(
      write,
      (retryAt) => !this.stopped && retryAt < giveUpAt,
      (err) => this.log.warn({ err: (err as Error).message, job: job.id }, 'recording a job failed; retrying'),
    );
  }

  private async renew(): Promise<void> {
    if (this.running.size === 0) return;
    try {
      await this.queue.renew(this.owner, [...this.running.keys()]);
    } catch (err) {
      this.log.error({ err }, 'job worker could not renew its lease');
    }
  }
}

/**
 * A job's or capture's record keeps a code and a message, no details: a network failure's raw codes
 * (net::ERR_CONNECTION_REFUSED...) ride at the end of the message, in parentheses, for developers.
 */
export function storedMessage(err: AppError): string {
  const raw = err.code === 'render_failed' ? err.extra.details?.filter((d) => d.path === 'url') : undefined;
  if (!raw?.length) return err.message;
  return `${err.message.replace(/\.$/, '')} (${raw.map((d) => d.message).join('; ')}).`;
}
