// Records a capture's outcome: the capture row, the monitor's status, its webhook events and the
// retention cut, in the one transaction that also finishes the capture job. A crash can lose none of
// them, and a try that lost its job (canceled, lease taken over) records nothing.
import { randomBytes } from 'node:crypto';
import type { CaptureRecord, CaptureStore, NewCapture } from '../db/captures.js';
import type { JobRecord, JobStore } from '../db/jobs.js';
import type { MonitorRecord, MonitorStatus, MonitorStore } from '../db/monitors.js';
import type { Db } from '../db/open.js';
import type { DeliveryStore } from '../db/webhook-deliveries.js';
import type { NotifyEvent } from './settings.js';
import type { Logger } from '../log.js';
import type { FileStore } from '../storage/file-store.js';
import { recordEvent, type EventType } from '../webhooks/outbox.js';
import { captureEventData } from './view.js';

export const newCaptureId = () => `cap_${randomBytes(10).toString('hex')}`;

/** What a capture job's request holds. */
export interface CaptureJobRequest {
  monitorId: string;
  reason: CaptureRecord['reason'];
  /** Schedule ticks: the tick's time (the job's createdAt is when it was actually queued). */
  scheduledFor?: string;
}

export class CaptureRecorder {
  constructor(
    private readonly db: Db,
    private readonly jobs: JobStore,
    private readonly monitors: MonitorStore,
    private readonly captures: CaptureStore,
    private readonly deliveries: DeliveryStore,
    private readonly files: FileStore,
    private readonly log: Logger,
    private readonly limits: { maxStoredBytesPerKey: number },
  ) {}

  /**
   * The capture job succeeded. Returns the file keys retention released (remove them now), or
   * undefined when the job was no longer this worker's: then nothing was recorded.
   */
  succeeded(
    job: JobRecord,
    owner: string,
    monitor: MonitorRecord,
    capture: NewCapture,
    now: Date,
  ): string[] | undefined {
    return this.db
      .transaction(() => {
        if (!this.jobs.complete(job.id, owner, now)) return undefined;
        const current = this.monitors.get(monitor.id);
        if (!current) return undefined; // deleted meanwhile: its files go with its folder
        this.captures.insert(capture);
        const status: MonitorStatus =
          capture.baselineId === null ? 'baseline' : capture.changed ? 'changed' : 'unchanged';
        this.monitors.recordRun(current.id, status, now);
        const record = { ...capture, createdAt: capture.takenAt };
        // With notifyWhen rules, a change is told only once they hold (conditionsMet is null without rules).
        if (capture.changed && capture.conditionsMet !== false)
          this.tell(current, 'change', 'monitor.changed', record, now);
        this.tell(current, 'capture', 'capture.completed', record, now);
        const retained = this.prune(current);
        // Then the key's storage cap, across its monitors: the oldest captures go first, never a
        // monitor's current baseline nor the capture just taken (so the key may stay over by those).
        const evicted = this.captures.evictOldest(current.keyId, this.limits.maxStoredBytesPerKey, capture.id);
        if (evicted.ids.length)
          this.log.info(
            { keyId: current.keyId, captures: evicted.ids.length },
            'captures removed: the key is over monitors.maxStoredBytesPerKey',
          );
        return [...retained.keys, ...evicted.keys];
      })
      .immediate();
  }

  /** The job's monitor was deleted after it was queued: the job ends with nothing to record. */
  abandoned(job: JobRecord, owner: string, now = new Date()): void {
    this.jobs.complete(job.id, owner, now);
  }

  /**
   * A capture job failed for good (called by the job queue inside its transaction): a failed capture
   * is recorded, so the monitor's history and webhooks show it.
   */
  jobFailed(job: JobRecord, now: Date): void {
    const monitor = job.monitorId ? this.monitors.get(job.monitorId) : undefined;
    if (!monitor) return;
    const request = JSON.parse(job.request) as Partial<CaptureJobRequest>;
    const takenAt = job.startedAt ?? now.toISOString(); // when its first try began
    const capture: CaptureRecord = {
      id: newCaptureId(),
      monitorId: monitor.id,
      status: 'failed',
      reason: request.reason ?? 'schedule',
      specVersion: monitor.specVersion,
      takenAt,
      createdAt: takenAt,
      durationMs: now.getTime() - Date.parse(takenAt),
      width: null,
      height: null,
      sha256: null,
      imageKey: null,
      diffKey: null,
      baselineId: null,
      changed: false,
      confirmed: false,
      diffPixels: 0,
      diffRatio: 0,
      regions: [],
      ignoredBoxes: [],
      truncated: false,
      error: job.error ?? { code: 'internal', message: 'the capture failed' },
      textKey: null,
      textChanges: [],
      textChangesTotal: 0,
      conditions: [],
      conditionErrors: [],
      conditionsMet: null,
    };
    this.captures.insert(capture);
    this.monitors.recordRun(monitor.id, 'failed', now);
    this.tell(monitor, 'failure', 'capture.failed', capture, now);
    // A page that stays down must not grow the history without bound either. This runs inside the job
    // queue's transaction: the files go once it has ended, and only if the rows are really gone.
    const released = this.prune(monitor);
    if (released.ids.length) setImmediate(() => void this.removeReleased(released));
  }

  /** Retention: the newest `keep` captures stay, and the baseline the next capture is compared with. */
  private prune(monitor: MonitorRecord): { ids: string[]; keys: string[] } {
    const baseline = this.captures.baseline(monitor.id, monitor.specVersion);
    return this.captures.prune(monitor.id, monitor.settings.retention.keep, baseline?.id);
  }

  private async removeReleased({ ids, keys }: { ids: string[]; keys: string[] }): Promise<void> {
    if (ids.some((id) => this.captures.exists(id))) return; // the transaction rolled back
    try {
      await Promise.all(keys.map((key) => this.files.remove(key)));
    } catch (err) {
      this.log.error({ err }, 'could not remove capture files past retention');
    }
  }

  private tell(monitor: MonitorRecord, when: NotifyEvent, type: EventType, capture: CaptureRecord, now: Date): void {
    const url = monitor.settings.webhookUrl;
    if (!url || !monitor.settings.notify.includes(when)) return;
    recordEvent(
      this.deliveries,
      { keyId: monitor.keyId, url, type, data: captureEventData(monitor, capture), monitorId: monitor.id },
      now,
    );
  }
}
