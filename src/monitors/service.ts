// What the HTTP routes ask of monitors: create, read, update, delete, run now, and their captures.
// Every change reaches the scheduler at once; the egress policy is checked before anything is stored.
// Capture secrets are sealed here, before the store sees them; a PATCH is merged into the monitor as
// shown (secrets masked), so absent and sent-back "••••" values alike keep what is stored — unless
// the PATCH would send them to another origin or widen where headers go (secret-binding.ts).
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { EgressPolicy } from '../egress/policy.js';
import { conflict, invalidRequest, notFound, urlBlocked, webhookUrlBlocked } from '../errors.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { JobRecord } from '../stores/jobs.js';
import type { FileStore } from '../stores/file-store.js';
import type { Backend } from '../stores/backend.js';
import type { CaptureListQuery, CaptureRecord } from '../stores/captures.js';
import type { MonitorListQuery, MonitorRecord } from '../stores/monitors.js';
import { maskSecrets, sameCapture, sealSecrets } from './capture-secrets.js';
import type { MonitorRuns } from './runs.js';
import type { MonitorScheduler } from './scheduler.js';
import { foldHeaderNames } from './header-names.js';
import { movedSecrets } from './secret-binding.js';
import { mergePatch, named, type MonitorSettings } from '../domain/monitor-settings.js';
import type { DeliveryRecord } from '../stores/webhook-deliveries.js';
import { recordEvent } from '../webhooks/outbox.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { testEventData } from './view.js';
import { parseStoredBlocks } from '../diff/text/compare-in-thread.js';
import type { PageBlock } from '../domain/page-facts.js';
import type { SavedLoginRecord } from '../stores/logins.js';
import { loginOutdated, withoutLogin } from './saved-login.js';

export interface MonitorServiceOptions {
  backend: Backend;
  runs: MonitorRuns;
  /** This node's schedules (or, on an api node, none: the worker nodes reconcile with the database). */
  scheduler: Pick<MonitorScheduler, 'schedule' | 'unschedule'>;
  files: FileStore;
  egress: EgressPolicy;
  /** Stop the capture jobs of a deleted monitor that are rendering now. */
  abortJob: (jobId: string) => void;
  limits: { maxPerKey: number };
  secrets: SecretBox;
  /** The cluster's clock (the database's); this machine's unless given. */
  clock?: Clock;
  /** Throws 400 unless every channel id listed is one of the key's channels; absent: no check. */
  checkChannels?: (keyId: string, ids: readonly string[] | undefined) => Promise<void>;
  /** Throws 507 while the disk is too full to store captures (storage.minFreeBytes); absent: no check. */
  assertStorageRoom?: () => Promise<void>;
}

export class MonitorService {
  private readonly clock: Clock;

  constructor(private readonly options: MonitorServiceOptions) {
    this.clock = options.clock ?? systemClock;
  }

  async create(
    keyId: string,
    settings: MonitorSettings,
    baseUrl: string,
    now = this.clock.now(),
  ): Promise<MonitorRecord> {
    await this.checkEgress(settings);
    await this.options.checkChannels?.(keyId, settings.channels);
    await this.options.assertStorageRoom?.(); // its captures would have nowhere to go
    const id = `mon_${randomBytes(10).toString('hex')}`;
    const sealed = { ...settings, capture: sealSecrets(settings.capture, undefined, this.options.secrets, id) };
    await this.options.backend.transaction(async (tx) => {
      if ((await tx.monitors.countByKey(keyId)) >= this.options.limits.maxPerKey) {
        throw conflict(
          `this key already has ${this.options.limits.maxPerKey} monitors (monitors.maxPerKey); delete one first`,
        );
      }
      await tx.monitors.insert({ id, keyId, settings: named(sealed), baseUrl }, now);
    });
    await this.options.scheduler.schedule((await this.options.backend.stores.monitors.get(id))!);
    return (await this.options.backend.stores.monitors.get(id))!;
  }

  async get(keyId: string, id: string): Promise<MonitorRecord> {
    const monitor = await this.options.backend.stores.monitors.getOwned(keyId, id);
    if (!monitor) throw notFound(`no monitor ${id}`);
    return monitor;
  }

  list(keyId: string, query: MonitorListQuery): Promise<MonitorRecord[]> {
    return this.options.backend.stores.monitors.list(keyId, query);
  }

  tags(keyId: string): Promise<{ tag: string; monitors: number }[]> {
    return this.options.backend.stores.monitors.tags(keyId);
  }

  /** The ids of the key's monitors with this tag, newest first (every one: a key's monitors are capped). */
  async idsWithTag(keyId: string, tag: string): Promise<string[]> {
    const rows = await this.list(keyId, { tag, limit: this.options.limits.maxPerKey });
    return rows.map((m) => m.id);
  }

  /**
   * A JSON Merge Patch of the monitor applied to its settings as shown (secrets masked): what the
   * caller validates whole, as a create, before it passes the result to `update`.
   */
  async patched(keyId: string, id: string, patch: unknown): Promise<unknown> {
    const before = await this.get(keyId, id);
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
      throw invalidRequest('the body must be a JSON object (a JSON Merge Patch of the monitor)', [
        { path: '', message: 'expected an object' },
      ]);
    }
    const shown = { ...before.settings, capture: maskSecrets(before.settings.capture) };
    // A name that was only the url's default follows the url when the url changes.
    const current = shown.name === shown.url ? { ...shown, name: undefined } : shown;
    return mergePatch(current, foldHeaderNames(patch, Object.keys(before.settings.capture.headers ?? {})));
  }

  /**
   * The monitor's new settings (`patched`, validated): masked secrets keep what is stored. Changing
   * the url or the capture options starts a new baseline; the schedule, pause state and timezone take
   * effect at once.
   */
  async update(keyId: string, id: string, merged: MonitorSettings, baseUrl: string): Promise<MonitorRecord> {
    const before = await this.get(keyId, id);
    const moved = movedSecrets(before.settings, merged);
    const settings = named({
      ...merged,
      capture: sealSecrets(merged.capture, before.settings.capture, this.options.secrets, id, moved),
    });
    await this.checkEgress(settings);
    await this.options.checkChannels?.(keyId, settings.channels);
    // What is captured changed (the page, how it is rendered, or which text is read): the old baseline
    // would compare unlike with unlike, so the next capture starts a new one. The baseline's stored text
    // is its filtered text, so other diff.filters also mean a new one.
    const newBaseline =
      settings.url !== before.settings.url ||
      !sameCapture(withoutLogin(settings.capture), withoutLogin(before.settings.capture), this.options.secrets, id) ||
      settings.diff.textSelector !== before.settings.diff.textSelector ||
      JSON.stringify(settings.diff.filters) !== JSON.stringify(before.settings.diff.filters);
    const monitors = this.options.backend.stores.monitors;
    await monitors.update(id, settings, baseUrl, newBaseline, this.clock.now());
    // A saved login was made by these steps, on this url, and judged by this probe: any other would
    // start from a state the new settings never made (saved-login.ts).
    if (loginOutdated(before.settings, settings, this.options.secrets, id))
      await this.options.backend.stores.logins.forget(id);
    const after = await monitors.get(id);
    if (!after) throw notFound(`no monitor ${id}`); // deleted meanwhile
    await this.options.scheduler.schedule(after);
    return (await monitors.get(id))!;
  }

  async delete(keyId: string, id: string): Promise<void> {
    await this.get(keyId, id);
    this.options.scheduler.unschedule(id);
    // Its pending captures are canceled with it, so none records into a monitor that is gone.
    const canceled = await this.options.backend.transaction(async (tx) => {
      const ids = await tx.jobs.cancelFor(id, this.clock.now());
      await tx.monitors.delete(id); // captures rows go with it (ON DELETE CASCADE)
      return ids;
    });
    for (const jobId of canceled) this.options.abortJob(jobId);
    await this.options.files.removeFolder(id);
  }

  /** The monitor's saved login (capture.saveLogin), if one is kept. */
  async login(keyId: string, id: string): Promise<SavedLoginRecord | undefined> {
    return this.options.backend.stores.logins.getOwned(keyId, id);
  }

  /** The saved logins of these monitors of the key, by monitor id. */
  async logins(keyId: string, ids: string[]): Promise<Map<string, SavedLoginRecord>> {
    const found = await Promise.all(ids.map((id) => this.login(keyId, id)));
    return new Map(found.flatMap((login) => (login ? [[login.monitorId, login] as const] : [])));
  }

  /** Forget the monitor's saved login: its next capture runs the steps again. Nothing kept: nothing to do. */
  async forgetLogin(keyId: string, id: string): Promise<void> {
    await this.get(keyId, id);
    await this.options.backend.stores.logins.forget(id);
  }

  /** Capture now; if a capture is already queued or running, that one (not a second). */
  async run(keyId: string, id: string): Promise<{ job: JobRecord; created: boolean }> {
    const monitor = await this.get(keyId, id);
    await this.options.assertStorageRoom?.();
    return this.options.runs.start(monitor, 'manual');
  }

  /**
   * A monitor.test event to the monitor's webhookUrl, through the outbox like every other event: signed
   * with the key's secret(s), retried, refused at send time by the egress policy, and listed in the
   * delivery log. 409 without a webhookUrl (nothing to send to); a paused monitor may be tested.
   */
  async testWebhook(keyId: string, id: string, now = this.clock.now()): Promise<DeliveryRecord> {
    const monitor = await this.get(keyId, id);
    const url = monitor.settings.webhookUrl;
    if (!url) {
      throw conflict(`monitor ${id} has no webhookUrl to send a test event to; set one first (PATCH webhookUrl)`);
    }
    const { deliveries } = this.options.backend.stores;
    const event = { keyId, url, type: 'monitor.test' as const, data: testEventData(monitor), monitorId: id };
    const deliveryId = await recordEvent(deliveries, event, now);
    return (await deliveries.get(keyId, deliveryId))!;
  }

  async listCaptures(keyId: string, monitorId: string, query: CaptureListQuery): Promise<CaptureRecord[]> {
    await this.get(keyId, monitorId);
    return this.options.backend.stores.captures.list(monitorId, query);
  }

  async capture(keyId: string, id: string): Promise<{ capture: CaptureRecord; monitor: MonitorRecord }> {
    const capture = await this.options.backend.stores.captures.getOwned(keyId, id);
    if (!capture) throw notFound(`no capture ${id}`);
    return { capture, monitor: await this.get(keyId, capture.monitorId) };
  }

  /** A capture's image or diff image for a download: its size and its bytes as a stream. */
  async captureFile(keyId: string, id: string, which: 'image' | 'diff'): Promise<{ size: number; body: Readable }> {
    const { capture } = await this.capture(keyId, id);
    const key = which === 'image' ? capture.imageKey : capture.diffKey;
    if (!key) {
      throw notFound(
        which === 'image'
          ? `capture ${id} failed and has no image`
          : `capture ${id} has no diff image ` +
              `(${capture.baselineId ? 'nothing differed from its baseline' : 'it is a baseline'})`,
      );
    }
    try {
      return await this.options.files.stream(key);
    } catch (err) {
      // Retention removed it between the lookup and the read.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(`capture ${id} is no longer kept`);
      throw err;
    }
  }

  /**
   * A capture's text blocks as compared (after the monitor's filters), the file kept beside its image.
   * 404 when it has none: a failed capture, or one taken before text was kept, or one retention removed.
   */
  async captureText(keyId: string, id: string): Promise<PageBlock[]> {
    const { capture } = await this.capture(keyId, id);
    if (!capture.textKey) throw notFound(`capture ${id} has no text (it failed, or predates text comparison)`);
    let bytes: Buffer;
    try {
      bytes = await this.options.files.get(capture.textKey);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(`capture ${id} is no longer kept`);
      throw err;
    }
    // A damaged file reads as no text rather than a 500: the capture itself is still there to see.
    return (parseStoredBlocks(bytes) ?? []).map(({ selector, tag, text, box }) => ({ selector, tag, text, box }));
  }

  /** The page to watch: 403 as a render would be; the webhook target: 400, it is a field. */
  private async checkEgress(settings: MonitorSettings): Promise<void> {
    const page = await this.options.egress.checkUrl(settings.url);
    if (!page.allowed && !page.unresolvable) throw urlBlocked(page.reason);
    if (settings.webhookUrl !== undefined) {
      const verdict = await this.options.egress.checkUrl(settings.webhookUrl);
      if (!verdict.allowed) {
        throw webhookUrlBlocked(verdict.reason);
      }
    }
  }
}
