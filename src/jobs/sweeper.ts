// Removes what has outlived its time: job results past jobs.resultTtlHours (the row stays, so the
// result URL answers 410 rather than 404), idempotency keys past their 24 h window, capture jobs an hour
// after they finished, finished job rows and webhook deliveries (with their attempts) past
// jobs.recordTtlDays, and — on the first pass and then hourly — stored files no row refers to any more
// (what a crash can leave behind).
import type { IdempotencyKeyStore } from '../db/idempotency-keys.js';
import type { JobStore } from '../db/jobs.js';
import type { RecordRetention } from '../stores/retention.js';
import type { Logger } from '../log.js';
import { IDEMPOTENCY_WINDOW_MS } from './queue.js';
import type { FileStore } from '../storage/file-store.js';
import { ORPHAN_MIN_AGE_MS, removeOrphans } from '../storage/orphans.js';

const BATCH = 500;
const ORPHAN_PASS_EVERY_MS = 3600_000;
/** Finished capture jobs are kept this long (to look into a recent capture's tries), then deleted. */
export const CAPTURE_JOB_KEEP_MS = 3600_000;

/** A file store, and how to tell whether a row still refers to one of its keys. */
export interface OrphanSource {
  name: string;
  store: FileStore;
  isReferenced(key: string): boolean;
}

export class Sweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private lastOrphanPass = -Infinity;

  constructor(
    private readonly jobs: JobStore,
    private readonly idempotency: IdempotencyKeyStore,
    private readonly results: FileStore,
    private readonly intervalMs: number,
    private readonly log: Logger,
    private readonly orphanSources: OrphanSource[],
    private readonly records: { store: RecordRetention; ttlMs: number },
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.sweep().finally(() => {
        this.running = undefined;
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass; never throws (a failure is logged and the next pass tries again). */
  async sweep(now = new Date()): Promise<void> {
    try {
      let removed = 0;
      for (
        let batch = this.jobs.expiredResults(now, BATCH);
        batch.length;
        batch = this.jobs.expiredResults(now, BATCH)
      ) {
        for (const job of batch) {
          await this.results.remove(job.result!.key);
          this.jobs.markResultRemoved(job.id, now);
          removed++;
        }
      }
      const keys = this.idempotency.sweep(new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS));
      const finishedBefore = new Date(now.getTime() - CAPTURE_JOB_KEEP_MS);
      let captureJobs = 0;
      for (
        let n = this.jobs.deleteFinishedCaptures(finishedBefore, BATCH);
        n > 0;
        n = this.jobs.deleteFinishedCaptures(finishedBefore, BATCH)
      ) {
        captureJobs += n;
      }
      const old = await this.removeOldRecords(now);
      if (removed || keys || captureJobs || old.jobs || old.deliveries) {
        this.log.info({ results: removed, idempotencyKeys: keys, captureJobs, ...old }, 'swept expired data');
      }
    } catch (err) {
      this.log.error({ err }, 'sweep failed');
    }
    if (now.getTime() - this.lastOrphanPass >= ORPHAN_PASS_EVERY_MS) {
      this.lastOrphanPass = now.getTime();
      await this.removeOrphans(now);
    }
  }

  /** Finished jobs and deliveries past jobs.recordTtlDays; a job's result file still on disk goes first. */
  private async removeOldRecords(now: Date): Promise<{ jobs: number; deliveries: number }> {
    const before = new Date(now.getTime() - this.records.ttlMs);
    const { store } = this.records;
    let jobs = 0;
    for (
      let batch = await store.oldJobs(before, BATCH);
      batch.length && !this.stopping;
      batch = await store.oldJobs(before, BATCH)
    ) {
      for (const job of batch) if (job.resultKey) await this.results.remove(job.resultKey);
      jobs += await store.deleteJobs(batch.map((job) => job.id));
    }
    let deliveries = 0;
    for (
      let n = await store.deleteOldDeliveries(before, BATCH);
      n > 0 && !this.stopping;
      n = await store.deleteOldDeliveries(before, BATCH)
    ) {
      deliveries += n;
    }
    return { jobs, deliveries };
  }

  private async removeOrphans(now: Date): Promise<void> {
    const before = new Date(now.getTime() - ORPHAN_MIN_AGE_MS);
    for (const { name, store, isReferenced } of this.orphanSources) {
      try {
        const removed = await removeOrphans(store, isReferenced, before, () => this.stopping);
        if (removed) this.log.warn({ store: name, files: removed }, 'removed stored files no row refers to');
      } catch (err) {
        this.log.error({ err, store: name }, 'orphaned file sweep failed');
      }
    }
  }
}
