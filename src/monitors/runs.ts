// Starting a monitor's capture: a `capture` job in the durable queue, so a crash loses none and the
// captures share the render slots with API traffic. One capture per monitor at a time: a schedule
// tick that finds the previous one still queued or running is skipped (and counted), and so is one
// whose key already has jobs.maxQueuedPerKey jobs queued or running (a manual run then gets 429).
import { randomBytes } from 'node:crypto';
import type { CaptureReason } from '../db/captures.js';
import type { JobRecord, JobStore } from '../db/jobs.js';
import type { MonitorRecord, MonitorStore } from '../db/monitors.js';
import type { Db } from '../db/open.js';
import { queueFull } from '../errors.js';
import type { CaptureJobRequest } from './recorder.js';

export type TickOutcome = 'queued' | 'skipped' | 'taken';

export class MonitorRuns {
  constructor(
    private readonly db: Db,
    private readonly monitors: MonitorStore,
    private readonly jobs: JobStore,
    /** Tell the job worker there is work now. */
    private readonly wake: () => void,
    /** jobs.maxQueuedPerKey: captures share their key's place in the queue with its render jobs. */
    private readonly maxQueuedPerKey: number,
    /** monitors.minIntervalSeconds: ticks closer than this to the last one taken are passed over. */
    private readonly minIntervalSeconds = 0,
  ) {}

  private atCap(keyId: string): boolean {
    return this.jobs.countActive(keyId) >= this.maxQueuedPerKey;
  }

  /**
   * A schedule tick. `taken`: another process (or an earlier call) already handled this tick, the
   * monitor is paused or gone or its key revoked, or the tick comes sooner than minIntervalSeconds after
   * the last one (a schedule stored before that limit). `skipped`: its previous capture has not finished, or its key's queue is full.
   */
  tick(monitorId: string, at: Date): TickOutcome {
    const outcome = this.db
      .transaction((): TickOutcome => {
        if (!this.monitors.claimTick(monitorId, at, this.minIntervalSeconds * 1000)) return 'taken';
        const monitor = this.monitors.get(monitorId)!;
        if (this.jobs.activeCapture(monitorId) || this.atCap(monitor.keyId)) {
          this.monitors.recordSkip(monitorId);
          return 'skipped';
        }
        this.insert(monitor, 'schedule', new Date(), at);
        return 'queued';
      })
      .immediate();
    if (outcome === 'queued') this.wake();
    return outcome;
  }

  /** Capture now (run now, or the one catch-up after downtime); the pending capture if there is one. */
  start(
    monitor: MonitorRecord,
    reason: Exclude<CaptureReason, 'schedule'>,
    now = new Date(),
  ): { job: JobRecord; created: boolean } {
    const result = this.db
      .transaction(() => {
        const pending = this.jobs.activeCapture(monitor.id);
        if (pending) return { job: pending, created: false };
        if (this.atCap(monitor.keyId)) {
          throw queueFull(
            10,
            `this key already has ${this.maxQueuedPerKey} jobs queued or running (jobs.maxQueuedPerKey)`,
          );
        }
        return { job: this.insert(monitor, reason, now), created: true };
      })
      .immediate();
    if (result.created) this.wake();
    return result;
  }

  private insert(monitor: MonitorRecord, reason: CaptureReason, now: Date, scheduledFor?: Date): JobRecord {
    const id = `job_${randomBytes(10).toString('hex')}`;
    const request: CaptureJobRequest = {
      monitorId: monitor.id,
      reason,
      ...(scheduledFor && { scheduledFor: scheduledFor.toISOString() }),
    };
    this.jobs.insert(
      {
        id,
        keyId: monitor.keyId,
        kind: 'capture',
        request: JSON.stringify(request),
        baseUrl: monitor.baseUrl,
        monitorId: monitor.id,
      },
      now,
    );
    return this.jobs.get(id)!;
  }
}
