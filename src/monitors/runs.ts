// Starting a monitor's capture: a `capture` job in the durable queue, so a crash loses none and the
// captures share the render slots with API traffic. One capture per monitor at a time: a schedule
// tick that finds the previous one still queued or running is skipped (and counted), and so is one
// whose key already has jobs.maxQueuedPerKey jobs queued or running (a manual run then gets 429).
// Jobs are queued through the JobQueue (which mints their ids), inside this module's transactions.
import { Gathered } from '../jobs/gathered.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Backend, Tx } from '../stores/backend.js';
import { systemClock, type Clock } from '../domain/clock.js';
import type { CaptureReason } from '../domain/capture-findings.js';
import type { JobRecord } from '../stores/jobs.js';
import type { MonitorRecord } from '../stores/monitors.js';
import { CAPTURE_JOB_KIND, type CaptureJobRequest } from './recorder.js';

export type TickOutcome = 'queued' | 'skipped' | 'taken';

interface Tick {
  monitorId: string;
  at: Date;
}

export class MonitorRuns {
  /**
   * Ticks that fire together (every monitor on `* * * * *`) are taken in one transaction, in monitor id
   * order: nodes taking the same ticks lock the same rows in the same order (see Gathered).
   */
  private readonly ticks: Gathered<Tick, TickOutcome>;

  constructor(
    private readonly backend: Pick<Backend, 'transaction'>,
    /** Captures share their key's place in the queue (jobs.maxQueuedPerKey) with its render jobs. */
    private readonly queue: Pick<JobQueue, 'enqueue' | 'pendingFor' | 'isFull' | 'assertRoom'>,
    /** monitors.minIntervalSeconds: ticks closer than this to the last one taken are passed over. */
    private readonly minIntervalSeconds = 0,
    /** The cluster's clock (the database's). */
    private readonly clock: Clock = systemClock,
  ) {
    this.ticks = new Gathered(backend, (tx, tick) => this.tickIn(tx, tick), byMonitorId);
  }

  /**
   * A schedule tick. `taken`: another process (or an earlier call) already handled this tick, the monitor is paused or
   * gone or its key revoked, or the tick comes sooner than minIntervalSeconds after the last one (a schedule stored
   * before that limit). `skipped`: its previous capture has not finished, or its key's queue is full.
   */
  tick(monitorId: string, at: Date): Promise<TickOutcome> {
    return this.ticks.run({ monitorId, at });
  }

  private async tickIn(tx: Tx, { monitorId, at }: { monitorId: string; at: Date }): Promise<TickOutcome> {
    if (!(await tx.monitors.claimTick(monitorId, at, this.minIntervalSeconds * 1000))) return 'taken';
    const monitor = (await tx.monitors.get(monitorId))!;
    if ((await this.queue.pendingFor(tx, monitorId)) || (await this.queue.isFull(tx, monitor.keyId))) {
      await tx.monitors.recordSkip(monitorId);
      return 'skipped';
    }
    await this.enqueue(tx, monitor, 'schedule', this.clock.now(), at);
    return 'queued';
  }

  /** Capture now (run now); the pending capture if there is one. */
  start(
    monitor: MonitorRecord,
    reason: 'manual',
    now = this.clock.now(),
  ): Promise<{ job: JobRecord; created: boolean }> {
    return this.backend.transaction((tx) => this.startIn(tx, monitor, reason, now));
  }

  /**
   * The one catch-up for the run missed at `missed` while every node was stopped; undefined when another
   * node (starting at the same time) took it.
   */
  catchUp(
    monitor: MonitorRecord,
    missed: string,
    now = this.clock.now(),
  ): Promise<{ job: JobRecord; created: boolean } | undefined> {
    return this.backend.transaction(async (tx) =>
      (await tx.monitors.claimCatchUp(monitor.id, missed, now))
        ? this.startIn(tx, monitor, 'catch-up', now)
        : undefined,
    );
  }

  private async startIn(tx: Tx, monitor: MonitorRecord, reason: 'manual' | 'catch-up', now: Date) {
    const pending = await this.queue.pendingFor(tx, monitor.id);
    if (pending) return { job: pending, created: false };
    await this.queue.assertRoom(tx, monitor.keyId);
    return { job: await this.enqueue(tx, monitor, reason, now), created: true };
  }

  private enqueue(tx: Tx, monitor: MonitorRecord, reason: CaptureReason, now: Date, scheduledFor?: Date) {
    const request: CaptureJobRequest = {
      monitorId: monitor.id,
      reason,
      ...(scheduledFor && { scheduledFor: scheduledFor.toISOString() }),
    };
    return this.queue.enqueue(
      tx,
      { keyId: monitor.keyId, kind: CAPTURE_JOB_KIND, request, baseUrl: monitor.baseUrl, subject: monitor.id },
      now,
    );
  }
}

const byMonitorId = (a: Tick, b: Tick): number => (a.monitorId < b.monitorId ? -1 : a.monitorId > b.monitorId ? 1 : 0);
