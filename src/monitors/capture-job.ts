// The runner of `capture` jobs: capture the monitor's page, compare it with the baseline (in a diff
// thread), capture once more before reporting a change when `diff.confirm` asks, store the images and
// return the capture as the job's outcome; the queue records it (through the recorder) in the
// transaction that ends the job. Failures are thrown to the job worker, which retries or fails the job
// (and the recorder then writes a failed capture).
// Whether a capture changed is decided in src/diff/verdict.ts; its file keys are in capture-files.ts.
import { systemClock, type Clock } from '../domain/clock.js';
import { performance } from 'node:perf_hooks';
import { ImageTooLarge, pngSize, sha256, type CaptureImage, type Differ } from '../diff/pixels/differ.js';
import { renderFailed } from '../errors.js';
import type { JobOf, JobOutcome, JobRunner, RunContext } from '../jobs/runner.js';
import type { Logger } from '../log.js';
import type { Box } from '../domain/geometry.js';
import type { PageBlock, PageFacts } from '../domain/page-facts.js';
import type { Renderer, RenderOptions, RenderOutput } from '../render/renderer.js';
import { LoginNotHeld } from '../render/load/saved-login.js';
import type { LoginOutcome } from '../domain/saved-login.js';
import {
  limitState,
  loginOutdated,
  loginToUse,
  monitoredOrigins,
  outcomeOfSteps,
  sealState,
  serializeState,
  withoutLogin,
} from './saved-login.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { FileStore } from '../stores/file-store.js';
import type { Stores, Tx } from '../stores/backend.js';
import type { CaptureRecord, NewCapture } from '../stores/captures.js';
import type { JobRecord } from '../stores/jobs.js';
import type { MonitorRecord } from '../stores/monitors.js';
import { evaluateConditions } from './conditions.js';
import { leafRules, type RuleEntry } from '../domain/notify-rules.js';
import { hideTypedSecrets } from './typed-secrets.js';
import { parseStoredBlocks } from '../diff/text/compare-in-thread.js';
import { judgeChange, type Verdict } from '../diff/verdict.js';
import { newCaptureId, type CaptureJobRequest, type CaptureRecorder } from './recorder.js';
import { captureFileKeys } from './capture-files.js';
import type { ImageSpec } from '../domain/render-spec.js';
import type { RunStep } from '../render/load/steps.js';
import { originOf } from '../render/browser/origin-headers.js';
import { openSecrets } from './capture-secrets.js';
import { CHALLENGE_STATUSES, suspicionOf, type Suspicion } from './suspect.js';
import type { CaptureContent } from '../domain/content.js';
import type { EgressPolicy } from '../egress/policy.js';
import { readContent, type ContentSettings } from '../content/read-content.js';
import { notHtmlProbes } from '../content/not-html-probes.js';
import { filterTextInThread } from '../filters/filter-in-thread.js';
import { missingMessage } from '../filters/filter-names.js';
import { describeActiveSpan, inSpan } from '../tracing/spans.js';

interface Shot extends CaptureImage {
  boxes: Box[];
  truncated: boolean;
  facts: PageFacts;
  /** The render request of an HTML page (null for content read from the response: JSON, text, PDF, bytes). */
  spec: ImageSpec | null;
  /** What the URL served (src/content decides). */
  content: CaptureContent;
  /** What the capture did with the monitor's saved login (capture.saveLogin). */
  login?: LoginOutcome;
}

export interface CaptureJobRunnerOptions {
  /** Read outside any transaction: a capture takes seconds. */
  stores: Pick<Stores, 'monitors' | 'captures' | 'logins'>;
  recorder: CaptureRecorder;
  renderer: Renderer;
  differ: Differ;
  files: FileStore;
  log: Logger;
  secrets: SecretBox;
  /** Checks every hop of the Node fetch that learns what the URL serves (src/content). */
  egress: EgressPolicy;
  /** monitors.maxContentBytes, pdfMaxPages, pdfPicturePages; pdf.memoryMb. */
  content: ContentSettings;
  /** The cluster's clock (the database's): when a capture was taken, on the same clock as its schedule. */
  clock?: Clock;
  /** monitors.loginTtlHours: how long a saved login is used (saved-login.ts). */
  loginTtlHours: number;
}

export class CaptureJobRunner implements JobRunner<CaptureJobRequest, NewCapture> {
  constructor(private readonly options: CaptureJobRunnerOptions) {}

  /** The capture, its files stored, as the outcome's detail; none when the monitor is gone or the job aborted. */
  async run(job: JobOf<CaptureJobRequest>, { signal }: RunContext): Promise<JobOutcome<NewCapture>> {
    const { reason, monitorId } = job.request;
    describeActiveSpan(
      { 'pagewatch.monitor.id': monitorId, 'pagewatch.capture.reason': reason ?? 'schedule' },
      'monitor capture',
    );
    const monitor = await this.options.stores.monitors.get(monitorId);
    if (!monitor) return {}; // deleted after the job was queued: the job ends with nothing recorded
    const started = performance.now();
    const takenAt = (this.options.clock ?? systemClock).now();
    let shot = await this.read(monitor, signal);
    // A confirming capture starts from the login the first one saved: the first says what happened to it.
    const login = shot.login;
    const baseline = await this.options.stores.captures.baseline(monitor.id, monitor.specVersion);
    const baselineImage = baseline && (await this.baselineImage(baseline));
    const baselineBlocks = baselineImage ? await this.baselineBlocks(baseline) : undefined;
    // A failed fetch (a bot check, an empty page...) is recorded as suspect, never compared (suspect.ts).
    let suspect = judgeSuspicion(monitor, shot, baselineBlocks);
    let outcome: Verdict | undefined;
    let confirmed = false;
    // A capture whose filter matched nothing is not compared (it would be all "removed"): filter_missing.
    if (!suspect && baseline && baselineImage && !filterMissing(shot)) {
      outcome = await inSpan('diff', {}, () => this.compare(monitor, baseline, baselineImage, baselineBlocks, shot));
      // A change seen once may be a transient (a slide mid-way, a late banner): look again first.
      if (outcome.changed && monitor.settings.diff.confirm) {
        confirmed = true;
        shot = await this.read(monitor, signal);
        suspect = judgeSuspicion(monitor, shot, baselineBlocks);
        outcome =
          suspect || filterMissing(shot)
            ? undefined
            : await this.compare(monitor, baseline, baselineImage, baselineBlocks, shot);
      }
    }
    // A failed fetch is said first: a bot check also makes filters miss.
    const missing = !suspect && filterMissing(shot);
    const conditions = evaluateConditions(
      monitor.settings.notifyWhen,
      shot.facts.probes,
      baseline,
      shot.facts.product ?? null,
    );
    if (signal.aborted) return {};

    const id = newCaptureId();
    const keys = captureFileKeys(monitor.id, id);
    const diffPng = outcome?.diff.diffPng ?? null;
    const diffKey = diffPng ? keys.diff : null;
    const textBytes = Buffer.from(JSON.stringify(shot.facts.blocks));
    await inSpan('storage', { 'pagewatch.stored': 'capture files' }, () =>
      this.storeAll([
        [keys.image, shot.bytes],
        ...(diffKey ? [[diffKey, diffPng!] as const] : []),
        [keys.text, textBytes],
      ]),
    );
    const { width, height } = pngSize(shot.bytes);
    const capture: NewCapture = {
      id,
      monitorId: monitor.id,
      status: suspect ? 'suspect' : missing ? 'filter_missing' : 'succeeded',
      reason,
      specVersion: monitor.specVersion,
      takenAt: takenAt.toISOString(),
      durationMs: Math.round(performance.now() - started),
      width,
      height,
      sha256: shot.sha256,
      imageKey: keys.image,
      diffKey,
      baselineId: baselineImage && !suspect && !missing ? baseline.id : null,
      changed: outcome?.changed ?? false,
      confirmed,
      diffPixels: outcome?.diff.diffPixels ?? 0,
      diffRatio: outcome?.diff.diffRatio ?? 0,
      regions: outcome?.regions ?? [],
      ignoredBoxes: shot.boxes,
      truncated: shot.truncated,
      error:
        suspect ??
        (missing
          ? {
              code: 'filter_missing',
              message: missingMessage(monitor.settings.diff.filters, shot.facts.missingFilters!),
            }
          : null),
      storedBytes: shot.bytes.length + (diffPng?.length ?? 0) + textBytes.length,
      textKey: keys.text,
      textChanges: outcome?.text.changes ?? [],
      textChangesTotal: outcome?.text.total ?? 0,
      conditions: conditions.results,
      conditionErrors: conditions.errors,
      conditionsMet: conditions.met,
      content: shot.content,
      product: shot.facts.product ?? null,
      ...(login && { login }),
    };
    return { detail: capture };
  }

  /**
   * Store a capture's files, all or none: when one cannot be written (a full disk), those already written
   * are removed at once rather than left to the orphan sweep an hour later, holding space meanwhile.
   */
  private async storeAll(files: readonly (readonly [string, Buffer])[]): Promise<void> {
    const written: string[] = [];
    try {
      for (const [key, bytes] of files) {
        await this.options.files.put(key, bytes);
        written.push(key);
      }
    } catch (err) {
      await Promise.all(written.map((key) => this.options.files.remove(key))).catch(() => {});
      throw err;
    }
  }

  /** Recorded with the job's success, in the queue's transaction. */
  async onSucceeded(tx: Tx, job: JobRecord, outcome: JobOutcome<NewCapture>, now: Date): Promise<void> {
    if (outcome.detail) await this.options.recorder.succeeded(tx, job, outcome.detail, now);
  }

  /** A failed capture, recorded with the job's failure in the queue's transaction. */
  onFailed(tx: Tx, job: JobRecord, now: Date): Promise<void> {
    return this.options.recorder.failed(tx, job, now);
  }

  /** Not recorded (canceled, taken over, stopping): the files `run` stored are nobody's. */
  async discard({ detail }: JobOutcome<NewCapture>): Promise<void> {
    if (!detail) return;
    const keys = [detail.imageKey, detail.diffKey, detail.textKey].filter((key): key is string => key !== null);
    await Promise.all(keys.map((key) => this.options.files.remove(key)));
  }

  /** A monitor id and a reason (and a tick's time): nothing secret, and the failed capture needs the reason. */
  keepAfterFinish(request: CaptureJobRequest): CaptureJobRequest {
    return request;
  }

  /**
   * What the monitor's URL serves, read for this capture (src/content/read-content.ts): an HTML page is
   * rendered by the browser as always (`shoot`); JSON, text, bytes and PDFs are read from the response
   * and come with a picture of their own. Their notifyWhen selectors have no elements to read.
   */
  private async read(monitor: MonitorRecord, signal: AbortSignal): Promise<Shot> {
    const { url, capture, diff, notifyWhen } = monitor.settings;
    const opened = openSecrets({ ...withoutLogin(capture), steps: [] }, this.options.secrets, monitor.id);
    const { renderer, egress, content: settings } = this.options;
    const read = await readContent(
      { url, capture: opened, filters: diff.filters },
      { egress, renderer, settings },
      signal,
    );
    if (read.via === 'browser') {
      const shot = await this.shoot(monitor, signal, read.page);
      // The browser's own answer when it navigated; the fetch's when it rendered fetched HTML.
      const status = shot.facts.status ?? read.status;
      return { ...shot, content: read.content, facts: { ...shot.facts, ...(status !== undefined && { status }) } };
    }
    const shot: Shot = {
      bytes: read.image,
      sha256: sha256(read.image),
      boxes: [],
      truncated: read.truncated,
      // The text filters (extract, unique, sort...) apply to every kind; jsonPath was applied in the read.
      facts: await withTextFilters(
        {
          blocks: read.blocks,
          probes: notHtmlProbes(probeSelectors(notifyWhen), read.content.kind),
          status: read.status,
          missingFilters: read.missingFilters,
        },
        diff.filters,
      ),
      spec: null,
      content: read.content,
    };
    await refuseOversized(() => this.options.differ.check(shot, 'captured'));
    return shot;
  }

  /** The page rendered by the browser: the monitor's url, or (`page`) HTML fetched by a POST or PUT. */
  private async shoot(
    monitor: MonitorRecord,
    signal: AbortSignal,
    page?: { html: string; baseUrl: string },
  ): Promise<Omit<Shot, 'content'>> {
    const { diff, notifyWhen } = monitor.settings;
    const steps = captureSteps(monitor, this.options.secrets);
    const spec = captureRequest(monitor, this.options.secrets);
    const { out, login } = await this.render(monitor, page ? fetchedPageRequest(spec, page) : spec, signal, {
      background: true,
      measureSelectors: diff.ignoreSelectors,
      steps,
      captureStatuses: CHALLENGE_STATUSES,
      facts: {
        textSelector: diff.textSelector,
        ignoreSelectors: diff.ignoreSelectors,
        probeSelectors: probeSelectors(notifyWhen),
        priceSelector: diff.priceSelector,
        availabilitySelector: diff.availabilitySelector,
        filters: diff.filters,
      },
    });
    // What a secret step typed may show up in the page's text (a contenteditable field, a page that
    // echoes it): it is hidden before anything is stored, compared or sent.
    const facts = await withTextFilters(hideTypedSecrets(out.facts ?? { blocks: [], probes: [] }, steps), diff.filters);
    const shot = {
      bytes: out.bytes,
      sha256: sha256(out.bytes),
      boxes: out.boxes ?? [],
      truncated: out.truncated,
      facts,
      spec,
      ...(login && { login }),
    };
    await refuseOversized(() => this.options.differ.check(shot, 'captured'));
    return shot;
  }

  /**
   * The render, with the monitor's saved login when it keeps one (saved-login.ts): it starts from the
   * saved state while that is current; when loggedInWhen does not hold on the page loaded from it, the
   * page is rendered again from a clean context, its steps run, and the state they leave replaces it.
   */
  private async render(
    monitor: MonitorRecord,
    req: ImageSpec,
    signal: AbortSignal,
    options: RenderOptions,
  ): Promise<{ out: RenderOutput; login?: LoginOutcome }> {
    const { renderer, stores, secrets } = this.options;
    const { loggedInWhen, saveLogin } = monitor.settings.capture;
    if (!saveLogin || !loggedInWhen || !options.steps?.length || req.url === undefined)
      return { out: await renderer.renderImage(req, signal, options) };
    const clock = this.options.clock ?? systemClock;
    const use = loginToUse(await stores.logins.get(monitor.id), secrets, clock.now());
    let out: RenderOutput;
    try {
      out = await renderer.renderImage(req, signal, { ...options, login: { state: use.state, loggedInWhen } });
    } catch (err) {
      if (!(err instanceof LoginNotHeld)) throw err;
      out = await renderer.renderImage(req, signal, { ...options, login: { loggedInWhen } });
    }
    if (!out.login) return { out }; // the page answered an error: no steps ran, nothing to keep
    if ('reused' in out.login) return { out, login: 'reused' };
    // Settings changed while the steps ran (a PATCH forgot the login meanwhile): what the old steps left
    // is not kept; the next capture signs in with the new ones.
    const current = await stores.monitors.get(monitor.id);
    if (!current || loginOutdated(monitor.settings, current.settings, secrets, monitor.id)) return { out };
    const origins = monitoredOrigins(monitor.settings);
    const text = serializeState(limitState(out.login.state, origins));
    if (text === undefined) {
      await stores.logins.forget(monitor.id);
      this.options.log.warn({ monitor: monitor.id }, 'saved login too large to keep; the steps run every time');
      return { out, login: outcomeOfSteps(use.expired === true, false) };
    }
    const savedAt = clock.now();
    await stores.logins.put({
      monitorId: monitor.id,
      keyId: monitor.keyId,
      state: sealState(text, secrets, monitor.id),
      origins,
      savedAt: savedAt.toISOString(),
      expiresAt: new Date(savedAt.getTime() + this.options.loginTtlHours * 3_600_000).toISOString(),
    });
    return { out, login: outcomeOfSteps(use.expired === true, true) };
  }

  /** The baseline's image; undefined (the new capture becomes the baseline) if its file is gone. */
  private async baselineImage(baseline: CaptureRecord): Promise<CaptureImage | undefined> {
    try {
      return { bytes: await this.options.files.get(baseline.imageKey!), sha256: baseline.sha256! };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.options.log.warn(
        { monitor: baseline.monitorId, capture: baseline.id },
        'baseline image missing; starting a new baseline',
      );
      return undefined;
    }
  }

  /**
   * The baseline's text blocks; undefined for a capture taken before they were kept (or whose file is
   * gone): its text is unknown, so nothing is said about text changes against it.
   */
  private async baselineBlocks(baseline: CaptureRecord): Promise<PageBlock[] | undefined> {
    if (!baseline.textKey) return undefined;
    try {
      return parseStoredBlocks(await this.options.files.get(baseline.textKey));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      return undefined;
    }
  }

  /** The capture against the baseline (src/diff/verdict.ts decides whether it changed). */
  private compare(
    monitor: MonitorRecord,
    baseline: CaptureRecord,
    baselineImage: CaptureImage,
    baselineBlocks: PageBlock[] | undefined,
    shot: Shot,
  ): Promise<Verdict> {
    return refuseOversized(() =>
      judgeChange(
        this.options.differ,
        monitor.settings.diff,
        { image: baselineImage, blocks: baselineBlocks, ignoredBoxes: baseline.ignoredBoxes },
        { image: shot, blocks: shot.facts.blocks, ignoredBoxes: shot.boxes },
      ),
    );
  }
}

/** Whether a selecting filter matched nothing in this shot: the capture is then filter_missing. */
const filterMissing = (shot: Shot): boolean => (shot.facts.missingFilters?.length ?? 0) > 0;

/**
 * diff.filters' text filters over the blocks the page filters left: what is stored and compared. The
 * extract filters that matched nothing join the page filters that did not.
 */
async function withTextFilters(facts: PageFacts, filters: MonitorRecord['settings']['diff']['filters']) {
  const filtered = await filterTextInThread(facts.blocks, filters);
  const missing = [...(facts.missingFilters ?? []), ...filtered.missing];
  return { ...facts, blocks: filtered.blocks, ...(missing.length ? { missingFilters: missing } : {}) };
}

/**
 * Whether an HTML page read a failure (suspect.ts); a monitor that types a secret in its steps means to
 * sign in. Content read from the response (JSON, text, PDF, bytes) is judged by its status alone.
 */
function judgeSuspicion(monitor: MonitorRecord, shot: Shot, baselineBlocks: PageBlock[] | undefined): Suspicion | null {
  if (!shot.spec) return null;
  const signsIn = monitor.settings.capture.steps.some((step) => step.action === 'fill' && step.secret);
  return suspicionOf({ facts: shot.facts, spec: shot.spec, signsIn, baselineBlocks });
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

/** The elements the rules read, each once (price rules read the product instead). */
function probeSelectors(notifyWhen: RuleEntry[]): string[] {
  const selectors = leafRules(notifyWhen).map(({ rule }) => rule.selector);
  return [...new Set(selectors.filter((s): s is string => s !== undefined))];
}

// --- the render request of a capture: its image options and steps with their secrets opened --------

/**
 * The render request of a capture: the monitor's image options with its secrets decrypted, its url,
 * always PNG. Secrets that do not decrypt (another key) fail the capture rather than send garbage.
 */
export function captureRequest(monitor: MonitorRecord, secrets: SecretBox): ImageSpec {
  // The request's method and body were sent by the fetch (src/content): the browser only GETs.
  const {
    steps: _steps,
    method: _method,
    body: _body,
    bodyContentType: _bodyType,
    ...capture
  } = openSecrets(withoutLogin(monitor.settings.capture), secrets, monitor.id);
  return { ...capture, url: monitor.settings.url, format: 'png' };
}

/**
 * The render of HTML a POST or PUT was answered with, at the URL that answered. The monitor's
 * secrets were given for its url's origin: when a redirect led elsewhere, they stay behind.
 */
function fetchedPageRequest(request: ImageSpec, page: { html: string; baseUrl: string }): ImageSpec {
  const { url, headers, httpCredentials, cookies, ...rest } = request;
  const home = originOf(url!) === originOf(page.baseUrl);
  const ownCookies = cookies?.filter((c) => home || c.domain || c.url);
  return {
    ...rest,
    html: page.html,
    baseUrl: page.baseUrl,
    ...(home && headers && { headers }),
    ...(home && httpCredentials && { httpCredentials }),
    ...(ownCookies?.length && { cookies: ownCookies }),
  };
}

/**
 * The monitor's steps as the renderer runs them: secret fill values opened (they stay marked secret,
 * so the renderer keeps them out of its errors) and bound to the origin they may be typed into. Values
 * that do not open fail the capture, as above.
 */
export function captureSteps(monitor: MonitorRecord, secrets: SecretBox): RunStep[] {
  const { steps } = openSecrets({ steps: monitor.settings.capture.steps }, secrets, monitor.id);
  let pageOrigin = originOf(monitor.settings.url);
  return steps.map(({ action, selector, value, secret, origin }) => {
    if (action === 'goto' && value !== undefined) pageOrigin = originOf(value);
    const step: RunStep = { action, selector, value, secret };
    // Where the secret was given for: its own origin, else the page the steps were meant to be on.
    if (secret) step.origin = (origin === undefined ? undefined : originOf(origin)) ?? pageOrigin ?? 'null';
    return step;
  });
}
