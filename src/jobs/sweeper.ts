// Removes what has outlived its time: job results past jobs.resultTtlHours (the row stays, so the
// result URL answers 410 rather than 404) and idempotency keys past their 24 h window.
import type { IdempotencyKeyStore } from '../db/idempotency-keys.js';
import type { JobStore } from '../db/jobs.js';
import type { Logger } from '../log.js';
import { IDEMPOTENCY_WINDOW_MS } from './queue.js';
import type { FileStore } from '../storage/file-store.js';

const BATCH = 500;

export class Sweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly jobs: JobStore,
    private readonly idempotency: IdempotencyKeyStore,
    private readonly results: FileStore,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => { this.running ??= this.sweep().finally(() => { this.running = undefined; }); }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass; never throws (a failure is logged and the next pass tries again). */
  async sweep(now = new Date()): Promise<void> {
    try {
      let removed = 0;
      for (let batch = this.jobs.expiredResults(now, BATCH); batch.length; batch = this.jobs.expiredResults(now, BATCH)) {
        for (const job of batch) {
          await this.results.remove(job.result!.key);
          this.jobs.markResultRemoved(job.id, now);
          removed++;
        }
      }
      const keys = this.idempotency.sweep(new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS));
      if (removed || keys) this.log.info({ results: removed, idempotencyKeys: keys }, 'swept expired data');
    } catch (err) {
      this.log.error({ err }, 'sweep failed');
    }
  }
}
