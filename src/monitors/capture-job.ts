// The runner of `capture` jobs: capture the monitor's page, compare it with the baseline (in a diff
// thread), capture once more before reporting a change when `diff.confirm` asks, store the images and
// record the outcome. Failures are thrown to the job worker, which retries or fails the job (and the
// recorder then writes a failed capture).
import { performance } from 'node:perf_hooks';
import type { CaptureRecord, CaptureStore, NewCapture } from '../db/captures.js';
import type { JobRecord } from '../db/jobs.js';
import type { MonitorRecord, MonitorStore } from '../db/monitors.js';
import type { DiffResult } from '../diff/compare.js';
import { ImageTooLarge, pngSize, sha256, type CaptureImage, type Differ } from '../diff/differ.js';
import { renderFailed } from '../errors.js';
import type { ImageRequest } from '../http/schemas/render.js';
import type { JobRunner } from '../jobs/worker.js';
import type { Logger } from '../log.js';
import type { Box } from '../render/capture-image.js';
import type { Renderer } from '../render/renderer.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { FileStore } from '../storage/file-store.js';
import { openSecrets } from './capture-secrets.js';
import { newCaptureId, type CaptureJobRequest, type CaptureRecorder } from './recorder.js';

interface Shot extends CaptureImage { boxes: Box[]; truncated: boolean }

export class CaptureJobRunner implements JobRunner {
  constructor(
    private readonly monitors: MonitorStore,
    private readonly captures: CaptureStore,
    private readonly recorder: CaptureRecorder,
    private readonly renderer: Renderer,
    private readonly differ: Differ,
    private readonly files: FileStore,
    /** Called when events may have been recorded in the outbox (so the dispatcher sends them now). */
    private readonly onEvent: () => void,
    private readonly log: Logger,
    private readonly secrets: SecretBox,
  ) {}

  async run(job: JobRecord, owner: string, signal: AbortSignal): Promise<void> {
    const { reason } = JSON.parse(job.request) as CaptureJobRequest;
    const monitor = this.monitors.get(job.monitorId!);
    if (!monitor) {
      this.recorder.abandoned(job, owner); // deleted after the job was queued
      return;
    }
    const started = performance.now();
    const takenAt = new Date();
    let shot = await this.shoot(monitor, signal);
    const baseline = this.captures.baseline(monitor.id, monitor.specVersion);
    const baselineImage = baseline && await this.baselineImage(baseline);
    let diff: DiffResult | undefined;
    let confirmed = false;
    if (baseline && baselineImage) {
      diff = await this.compare(monitor, baseline, baselineImage, shot);
      // A change seen once may be a transient (a slide mid-way, a late banner): look again first.
      if (isChange(diff, monitor) && monitor.settings.diff.confirm) {
        confirmed = true;
        shot = await this.shoot(monitor, signal);
        diff = await this.compare(monitor, baseline, baselineImage, shot);
      }
    }
    if (signal.aborted) return;

    const id = newCaptureId();
    const keys = captureFileKeys(monitor.id, id);
    const imageKey = keys.image;
    const diffKey = diff?.diffPng ? keys.diff : null;
    await this.files.put(imageKey, shot.bytes);
    if (diffKey) await this.files.put(diffKey, diff!.diffPng!);
    const { width, height } = pngSize(shot.bytes);
    const capture: NewCapture = {
      id, monitorId: monitor.id, status: 'succeeded', reason, specVersion: monitor.specVersion, takenAt: takenAt.toISOString(),
      durationMs: Math.round(performance.now() - started), width, height, sha256: shot.sha256, imageKey, diffKey,
      baselineId: baselineImage ? baseline!.id : null, changed: diff !== undefined && isChange(diff, monitor), confirmed,
      diffPixels: diff?.diffPixels ?? 0, diffRatio: diff?.diffRatio ?? 0, regions: diff?.regions ?? [], ignoredBoxes: shot.boxes,
      truncated: shot.truncated, error: null, storedBytes: shot.bytes.length + (diffKey ? diff!.diffPng!.length : 0),
    };
    const released = this.recorder.succeeded(job, owner, monitor, capture, new Date());
    if (released === undefined) {
      // Not this worker's job any more (canceled, taken over) or the monitor is gone: nothing was recorded.
      await Promise.all([this.files.remove(imageKey), diffKey ? this.files.remove(diffKey) : undefined]);
      return;
    }
    this.onEvent();
    for (const key of released) await this.files.remove(key);
  }

  private async shoot(monitor: MonitorRecord, signal: AbortSignal): Promise<Shot> {
    const out = await this.renderer.renderImage(captureRequest(monitor, this.secrets), signal, {
      background: true, measureSelectors: monitor.settings.diff.ignoreSelectors,
    });
    const shot = { bytes: out.bytes, sha256: sha256(out.bytes), boxes: out.boxes ?? [], truncated: out.truncated };
    await refuseOversized(() => this.differ.check(shot, 'captured'));
    return shot;
  }

  /** The baseline's image; undefined (the new capture becomes the baseline) if its file is gone. */
  private async baselineImage(baseline: CaptureRecord): Promise<CaptureImage | undefined> {
    try {
      return { bytes: await this.files.get(baseline.imageKey!), sha256: baseline.sha256! };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.log.warn({ monitor: baseline.monitorId, capture: baseline.id }, 'baseline image missing; starting a new baseline');
      return undefined;
    }
  }

  private compare(monitor: MonitorRecord, baseline: CaptureRecord, baselineImage: CaptureImage, shot: Shot): Promise<DiffResult> {
    const { threshold, includeAA, ignoreRegions } = monitor.settings.diff;
    // An ignored element may have moved or resized: leave out where it was in either image.
    const ignore = [...ignoreRegions, ...baseline.ignoredBoxes, ...shot.boxes];
    return refuseOversized(() => this.differ.compare(baselineImage, shot, { threshold, includeAA, ignore }));
  }
}

/**
 * An image over limits.maxImagePixels (a monitor stored before the cap was lowered, a baseline taken
 * under a larger cap) fails the capture for good with the reason, rather than as an internal error.
 */
async function refuseOversized<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof ImageTooLarge) throw renderFailed(`${err.message}; the capture cannot be compared`, err);
    throw err;
  }
}

/** `changed` as the contract defines it; a ratio of 0 with minChangeRatio 0 is still no change. */
function isChange(diff: DiffResult, monitor: MonitorRecord): boolean {
  return diff.diffPixels > 0 && diff.diffRatio >= monitor.settings.diff.minChangeRatio;
}

/**
 * The render request of a capture: the monitor's image options with its secrets decrypted, its url,
 * always PNG. Secrets that do not decrypt (another key) fail the capture rather than send garbage.
 */
export function captureRequest(monitor: MonitorRecord, secrets: SecretBox): ImageRequest {
  const capture = openSecrets(monitor.settings.capture, secrets, monitor.id);
  return { ...capture, url: monitor.settings.url, format: 'png', response: 'binary', async: false };
}

/** A capture's files live in its monitor's folder, so deleting the monitor removes them in one go. */
export function captureFileKeys(monitorId: string, captureId: string): { image: string; diff: string } {
  return { image: `${monitorId}/${captureId}`, diff: `${monitorId}/${captureId}-diff` };
}

/** The capture a stored file belongs to: the inverse of captureFileKeys. */
export function captureIdOfFileKey(key: string): string {
  return key.slice(key.indexOf('/') + 1).replace(/-diff$/, '');
}
