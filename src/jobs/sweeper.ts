// Removes what has outlived its time: job results past jobs.resultTtlHours (the row stays, so the
// result URL answers 410 rather than 404), idempotency keys past their 24 h window, the rows of
// short-lived kinds of job (a monitor's capture: its outcome is the capture row) soon after they
// finished, finished job rows and webhook deliveries (with their attempts) past
// jobs.recordTtlDays, and — on the first pass and then hourly — stored files no row refers to any more
// (what a crash can leave behind). With several nodes on one database, one sweeps at a time
// (Backend.runExclusive): the others skip that pass.
import type { Lifecycle } from '../lifecycle.js';
import type { Logger } from '../log.js';
import type { FileStore } from '../stores/file-store.js';
import { ORPHAN_MIN_AGE_MS, PARTIAL_MIN_AGE_MS, removeOrphans } from '../stores/files/orphans.js';
import type { Backend, Stores } from '../stores/backend.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { IDEMPOTENCY_WINDOW_MS } from './queue.js';

const BATCH = 500;
const ORPHAN_PASS_EVERY_MS = 3600_000;

/** A file store, and how to tell whether a row still refers to one of its keys. */
export interface OrphanSource {
  name: string;
  store: FileStore;
  isReferenced(key: string): Promise<boolean>;
}

/** Finished jobs of `kind` are kept `keepMs` (to look into their recent tries), then deleted. */
export interface ShortLivedJobs {
  kind: string;
  keepMs: number;
}

export interface SweeperOptions {
  stores: Pick<Stores, 'jobs' | 'idempotency' | 'retention'>;
  results: FileStore;
  intervalMs: number;
  log: Logger;
  orphanSources: OrphanSource[];
  /** jobs.recordTtlDays: finished jobs and deliveries older than this are deleted. */
  recordTtlMs: number;
  shortLived?: readonly ShortLivedJobs[];
  /** One node at a time: another node's pass under way skips this one. Without it, every pass runs. */
  exclusive?: Pick<Backend, 'runExclusive'>;
  /** The cluster's clock (the database's): what has expired is judged on times other nodes wrote. */
  clock?: Clock;
}

export class Sweeper implements Lifecycle {
  readonly name = 'sweeper';
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private lastOrphanPass = -Infinity;

  private readonly options: Required<SweeperOptions>;

  constructor(options: SweeperOptions) {
    this.options = {
      shortLived: [],
      exclusive: { runExclusive: (_name, fn) => fn() },
      clock: systemClock,
      ...options,
    };
  }

  start(): Promise<void> {
    this.timer = setInterval(() => {
      this.running ??= this.sweep().finally(() => {
        this.running = undefined;
      });
    }, this.options.intervalMs);
    this.timer.unref();
    return Promise.resolve();
  }

  /**
   * No new pass; the one under way stops between batches. It is waited for whatever the deadline: a
   * pass cut short would leave files whose rows are gone (the orphan pass would find them an hour later).
   */
  async stop(_deadline: number): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.running;
  }

  /**
   * One pass, unless another node is sweeping the same database now; never throws (a failure is logged
   * and the next pass tries again).
   */
  async sweep(now = this.options.clock.now()): Promise<void> {
    try {
      const ran = await this.options.exclusive.runExclusive('pagewatch:sweep', () =>
        this.sweepOnce(now).then(() => true),
      );
      if (!ran) this.options.log.debug('sweep skipped: another node is sweeping');
    } catch (err) {
      this.options.log.error({ err }, 'sweep failed'); // could not even take the lock (the database is unreachable)
    }
  }

  private async sweepOnce(now: Date): Promise<void> {
    const { jobs, idempotency } = this.options.stores;
    try {
      let removed = 0;
      for (
        let batch = await jobs.expiredResults(now, BATCH);
        batch.length;
        batch = await jobs.expiredResults(now, BATCH)
      ) {
        for (const job of batch) {
          await this.options.results.remove(job.result!.key);
          await jobs.markResultRemoved(job.id, now);
          removed++;
        }
      }
      const keys = await idempotency.sweep(new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS));
      const finished: Record<string, number> = {};
      for (const { kind, keepMs } of this.options.shortLived) {
        const before = new Date(now.getTime() - keepMs);
        let deleted = 0;
        for (
          let n = await jobs.deleteFinished(kind, before, BATCH);
          n > 0;
          n = await jobs.deleteFinished(kind, before, BATCH)
        )
          deleted += n;
        if (deleted) finished[`${kind}Jobs`] = deleted;
      }
      const old = await this.removeOldRecords(now);
      if (removed || keys || Object.keys(finished).length || old.jobs || old.deliveries) {
        this.options.log.info({ results: removed, idempotencyKeys: keys, ...finished, ...old }, 'swept expired data');
      }
    } catch (err) {
      this.options.log.error({ err }, 'sweep failed');
    }
    if (now.getTime() - this.lastOrphanPass >= ORPHAN_PASS_EVERY_MS) {
      this.lastOrphanPass = now.getTime();
      await this.removeOrphans(now);
    }
  }

  /** Finished jobs and deliveries past jobs.recordTtlDays; a job's result file still on disk goes first. */
  private async removeOldRecords(now: Date): Promise<{ jobs: number; deliveries: number }> {
    const before = new Date(now.getTime() - this.options.recordTtlMs);
    const store = this.options.stores.retention;
    let jobs = 0;
    for (
      let batch = await store.oldJobs(before, BATCH);
      batch.length && !this.stopping;
      batch = await store.oldJobs(before, BATCH)
    ) {
      for (const job of batch) if (job.resultKey) await this.options.results.remove(job.resultKey);
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
    for (const source of this.options.orphanSources) {
      const { name, store } = source;
      try {
        const removed = await removeOrphans(
          store,
          (key) => source.isReferenced(key),
          before,
          () => this.stopping,
          new Date(now.getTime() - PARTIAL_MIN_AGE_MS),
        );
        if (removed) this.options.log.warn({ store: name, files: removed }, 'removed stored files no row refers to');
      } catch (err) {
        this.options.log.error({ err, store: name }, 'orphaned file sweep failed');
      }
    }
  }
}
