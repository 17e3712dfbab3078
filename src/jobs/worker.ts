// The job worker: claims queued jobs (up to `capacity` at once) and hands each to the runner of its
// kind (a render, a monitor's capture), which works through the same renderer and concurrency limit as
// synchronous requests. While it works it renews its lease, so a job is taken up again only when this
// process is gone; failures are retried or recorded here, the same for every kind.
import { randomBytes } from 'node:crypto';
import type { JobKind, JobRecord } from '../db/jobs.js';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import type { JobQueue } from './queue.js';

export interface WorkerOptions {
  /** Jobs rendering (or waiting for a render slot) at once. */
  capacity: number;
  pollIntervalMs: number;
  leaseMs: number;
}

/** Does one kind of job. */
export interface JobRunner {
  /**
   * Do the job and record its success (naming `owner`, so a try that lost the job records nothing).
   * Throw to fail the try: the worker retries or fails it. Once `signal` is aborted, record nothing.
   */
  run(job: JobRecord, owner: string, signal: AbortSignal): Promise<void>;
}

/**
 * Errors that come from the job itself (a bad page, a blocked URL, its timeout) end it; others — and a
 * crashed page, which may be the browser going down — are retried up to jobs.maxAttempts.
 */
const FINAL_CODES = new Set(['render_failed', 'render_timeout', 'url_blocked', 'invalid_request']);

export class JobWorker {
  readonly owner = `worker_${randomBytes(6).toString('hex')}`;
  private readonly running = new Map<string, AbortController>();
  private readonly tasks = new Set<Promise<void>>();
  private pollTimer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private fillQueued = false;
  private stopped = true;

  constructor(
    private readonly queue: JobQueue,
    private readonly runners: Record<JobKind, JobRunner>,
    private readonly options: WorkerOptions,
    private readonly log: Logger,
    /** Called when an event was recorded in the outbox (so the dispatcher sends it now). */
    private readonly onEvent: () => void,
  ) {}

  get runningCount(): number {
    return this.running.size;
  }

  start(): void {
    this.stopped = false;
    this.heartbeat = setInterval(() => this.renew(), Math.max(100, Math.floor(this.options.leaseMs / 3)));
    this.heartbeat.unref();
    this.wake();
  }

  /** A job was submitted or a slot freed: claim now rather than at the next poll. */
  wake(): void {
    if (this.stopped || this.fillQueued) return;
    this.fillQueued = true;
    setImmediate(() => {
      this.fillQueued = false;
      this.fill();
    });
  }

  /** Stop the render of a job that was just canceled (its row already says so). */
  abort(jobId: string): void {
    this.running.get(jobId)?.abort(new Error('canceled'));
  }

  /** Claim nothing more; give running jobs `graceMs` to finish, then stop them and hand them back. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pollTimer);
    const finished = await Promise.race([
      Promise.allSettled([...this.tasks]).then(() => true),
      new Promise<false>((done) => setTimeout(done, graceMs, false).unref()),
    ]);
    if (!finished) {
      for (const controller of this.running.values()) controller.abort(new Error('shutting down'));
      await Promise.allSettled([...this.tasks]);
    }
    clearInterval(this.heartbeat);
    const released = this.queue.release(this.owner);
    if (released) this.log.info({ released }, 'unfinished jobs handed back to the queue');
  }

  private fill(): void {
    if (this.stopped) return;
    clearTimeout(this.pollTimer);
    try {
      this.stopLost();
      const { claimed, exhausted, canceled } = this.queue.claim(this.owner, this.options.capacity - this.running.size);
      if (exhausted) this.onEvent();
      for (const id of canceled) this.abort(id);
      for (const job of claimed) this.begin(job);
    } catch (err) {
      this.log.error({ err }, 'job worker could not claim jobs'); // a tick never throws; try again at the next poll
    }
    this.pollTimer = setTimeout(() => this.fill(), this.options.pollIntervalMs);
    this.pollTimer.unref();
  }

  /**
   * Stop renders of jobs that are no longer this worker's: canceled by another process (a key revoked
   * with the CLI, another instance's API) or taken over. Without this the render would hold its slot to
   * the end and only then find it has nothing to record.
   */
  private stopLost(): void {
    if (this.running.size === 0) return;
    const held = this.queue.runningOf(this.owner);
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
      .catch((err) => this.log.error({ err, job: job.id }, 'job worker failed to record a job'))
      .finally(() => {
        this.running.delete(job.id);
        this.tasks.delete(task);
        this.wake();
      });
    this.tasks.add(task);
  }

  private async process(job: JobRecord, signal: AbortSignal): Promise<void> {
    try {
      await this.runners[job.kind].run(job, this.owner, signal);
    } catch (err) {
      if (signal.aborted) return; // canceled (recorded by the canceller), or stopping (handed back at stop)
      this.recordFailure(job, err);
    }
  }

  private recordFailure(job: JobRecord, err: unknown): void {
    const final = err instanceof AppError && FINAL_CODES.has(err.code) && err.extra.retryable !== true;
    const error =
      err instanceof AppError
        ? { code: err.code, message: err.message }
        : { code: 'internal', message: 'an internal error; the service log has the cause' };
    if (!(err instanceof AppError)) this.log.error({ err, job: job.id }, 'job failed with an internal error');
    const outcome = this.queue.failOrRetry(job, this.owner, error, !final);
    if (outcome === 'failed') this.onEvent();
    // The caller's record says only what it may know (a url_blocked job: "not allowed"); the log keeps why.
    const reason = err instanceof AppError ? err.extra.logDetail : undefined;
    this.log.info(
      { job: job.id, attempt: job.attempts, code: error.code, outcome, ...(reason !== undefined && { reason }) },
      'job attempt failed',
    );
  }

  private renew(): void {
    if (this.running.size === 0) return;
    try {
      this.queue.renew(this.owner);
    } catch (err) {
      this.log.error({ err }, 'job worker could not renew its lease');
    }
  }
}
