// Records a capture job's end: the capture row, the monitor's status, its webhook events and the
// retention cut, inside the job queue's transaction that also finishes the job (the capture runner's
// hooks). A crash can lose none of them, a try that lost its job (canceled, lease taken over) records
// nothing, and files released by retention are removed only once that transaction has committed.
import { randomBytes } from 'node:crypto';
import type { NotifyEvent } from '../domain/monitor-settings.js';
import type { Logger } from '../log.js';
import type { FileStore } from '../stores/file-store.js';
import type { Tx } from '../stores/backend.js';
import type { CaptureRecord, NewCapture } from '../stores/captures.js';
import type { JobRecord } from '../stores/jobs.js';
import type { MonitorRecord } from '../stores/monitors.js';
import type { MonitorStatus } from '../domain/capture-findings.js';
import { recordEvent, type EventType } from '../webhooks/outbox.js';
import { captureEventData, filterMissingEventData } from './view.js';
import { releaseOf } from '../channels/release-time.js';
import { deliveryTarget } from '../channels/stored.js';

export const newCaptureId = () => `cap_${randomBytes(10).toString('hex')}`;

/** The job kind of a monitor's capture; its subject is the monitor id. */
export const CAPTURE_JOB_KIND = 'capture';
/** Finished capture jobs are kept this long (to look into a recent capture's tries), then deleted. */
export const CAPTURE_JOB_KEEP_MS = 3600_000;

/** What a capture job's request holds. */
export type CaptureJobRequest = {
  monitorId: string;
  reason: CaptureRecord['reason'];
  /** Schedule ticks: the tick's time (the job's createdAt is when it was actually queued). */
  scheduledFor?: string;
};

/**
 * How a monitor stands after a capture that was read: suspect and filter_missing captures say so (they
 * are neither a change nor a baseline); otherwise baseline, changed or unchanged.
 */
function monitorStatusOf(capture: NewCapture): MonitorStatus {
  if (capture.status === 'suspect' || capture.status === 'filter_missing') return capture.status;
  return capture.baselineId === null ? 'baseline' : capture.changed ? 'changed' : 'unchanged';
}

export class CaptureRecorder {
  constructor(
    private readonly files: FileStore,
    private readonly log: Logger,
    private readonly limits: { maxStoredBytesPerKey: number },
  ) {}

  /**
   * The capture job succeeded (the queue has marked it so in `tx`). A monitor deleted since the capture
   * was taken records nothing: the capture's files are removed once the job's end is committed.
   */
  async succeeded(tx: Tx, job: JobRecord, capture: NewCapture, now: Date): Promise<void> {
    const current = job.subject === null ? undefined : await tx.monitors.get(job.subject);
    if (!current) {
      this.removeAfterCommit(tx, [capture.imageKey, capture.diffKey, capture.textKey]);
      return;
    }
    await tx.captures.insert(capture);
    await tx.monitors.recordRun(current.id, monitorStatusOf(capture), now);
    const record = { ...capture, createdAt: capture.takenAt };
    // With notifyWhen rules, a change is told only once they hold (conditionsMet is null without rules).
    if (capture.changed && capture.conditionsMet !== false)
      await this.tell(tx, current, 'change', 'monitor.changed', record, now);
    // A suspect capture read a failure (a bot check, an empty page): told as one, with its reason.
    if (capture.status === 'suspect') await this.tell(tx, current, 'failure', 'capture.failed', record, now);
    else await this.tell(tx, current, 'capture', 'capture.completed', record, now);
    if (capture.status === 'filter_missing') await this.tellFilterMissing(tx, current, record, now);
    const retained = await this.prune(tx, current);
    // Then the key's storage cap, across its monitors: the oldest captures go first, never a
    // monitor's current baseline nor the capture just taken (so the key may stay over by those).
    const evicted = await tx.captures.evictOldest(current.keyId, this.limits.maxStoredBytesPerKey, capture.id);
    if (evicted.ids.length)
      this.log.info(
        { keyId: current.keyId, captures: evicted.ids.length },
        'captures removed: the key is over monitors.maxStoredBytesPerKey',
      );
    this.removeAfterCommit(tx, [...retained.keys, ...evicted.keys]);
  }

  /**
   * A capture job failed for good (the queue has marked it so in `tx`): a failed capture is recorded,
   * so the monitor's history and webhooks show it. A monitor deleted since records nothing.
   */
  async failed(tx: Tx, job: JobRecord, now: Date): Promise<void> {
    const monitor = job.subject === null ? undefined : await tx.monitors.get(job.subject);
    if (!monitor) return;
    const request = job.request as Partial<CaptureJobRequest>;
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
      content: null,
      product: null,
    };
    await tx.captures.insert(capture);
    await tx.monitors.recordRun(monitor.id, 'failed', now);
    await this.tell(tx, monitor, 'failure', 'capture.failed', capture, now);
    // A page that stays down must not grow the history without bound either.
    const released = await this.prune(tx, monitor);
    this.removeAfterCommit(tx, released.keys);
  }

  /** Files whose rows `tx` deletes (or never writes) go once it commits; never if it rolls back. */
  private removeAfterCommit(tx: Tx, keys: readonly (string | null)[]): void {
    const files = keys.filter((key): key is string => key !== null);
    if (files.length === 0) return;
    tx.afterCommit(() => {
      Promise.all(files.map((key) => this.files.remove(key))).catch((err: unknown) =>
        this.log.error({ err }, 'could not remove capture files past retention'),
      );
    });
  }

  /** Retention: the newest `keep` captures stay, and the baseline the next capture is compared with. */
  private async prune(tx: Tx, monitor: MonitorRecord): Promise<{ ids: string[]; keys: string[] }> {
    const baseline = await tx.captures.baseline(monitor.id, monitor.specVersion);
    return tx.captures.prune(monitor.id, monitor.settings.retention.keep, baseline?.id);
  }

  /**
   * monitor.filter_missing, once a streak: when this capture makes the monitor's newest captures
   * filter_missing exactly diff.filterMissingAfter in a row (the one before them, if any, was not). The
   * streak is read from the kept captures, before retention prunes: with retention.keep below
   * filterMissingAfter it cannot be counted, and the event is not sent.
   */
  private async tellFilterMissing(tx: Tx, monitor: MonitorRecord, capture: CaptureRecord, now: Date): Promise<void> {
    const after = monitor.settings.diff.filterMissingAfter;
    if (!monitor.settings.notify.includes('failure')) return;
    if (monitor.settings.retention.keep < after) return;
    const statuses = await tx.captures.latestStatuses(monitor.id, after + 1);
    let streak = 0;
    while (streak < statuses.length && statuses[streak] === 'filter_missing') streak++;
    if (streak !== after) return;
    await this.record(tx, monitor, 'monitor.filter_missing', filterMissingEventData(monitor, capture, streak), now);
  }

  private async tell(
    tx: Tx,
    monitor: MonitorRecord,
    when: NotifyEvent,
    type: EventType,
    capture: CaptureRecord,
    now: Date,
  ): Promise<void> {
    if (!monitor.settings.notify.includes(when)) return;
    await this.record(tx, monitor, type, captureEventData(monitor, capture), now);
  }

  /**
   * The event for the monitor's webhook (if it has one) and for each of its channels (its own list, or
   * its key's default channels), in `tx`. A channel's delivery is due at once, or held for its digest
   * or quiet hours until its release, on the wall clock of the monitor's time zone.
   */
  private async record(
    tx: Tx,
    monitor: MonitorRecord,
    type: EventType,
    data: Record<string, unknown>,
    now: Date,
  ): Promise<void> {
    const { keyId, id: monitorId, settings } = monitor;
    if (settings.webhookUrl)
      await recordEvent(tx.deliveries, { keyId, url: settings.webhookUrl, type, data, monitorId }, now);
    const channels =
      settings.channels === undefined
        ? await tx.channels.defaults(keyId)
        : await tx.channels.getMany(keyId, settings.channels);
    for (const channel of channels) {
      const release = releaseOf(now, channel.settings, settings.timezone);
      const url = deliveryTarget(channel);
      const held = release.heldFor && {
        heldFor: release.heldFor,
        releaseAt: release.at,
        batch: `${channel.id}@${release.at.toISOString()}`,
      };
      await recordEvent(
        tx.deliveries,
        { keyId, url, type, data, monitorId, channel: { channelId: channel.id, channelType: channel.type, ...held } },
        now,
      );
    }
  }
}
