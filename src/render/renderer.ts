// A render: wait for a slot → lease a page → prepare → capture → hand the page back.
// The request's `timeout` bounds all of it (queue wait included); on timeout or client disconnect the
// page is thrown away, which really stops whatever it was doing.
import { errors as pwErrors, type Page } from 'playwright';
import type { EgressFailures } from '../egress/failures.js';
import type { EgressPolicy } from '../egress/policy.js';
import { AppError, renderCrashed, renderFailed, renderTimeout, unavailable, urlBlocked } from '../errors.js';
import type { Lease } from './browser/browser-manager.js';
import type { BrowserManager } from './browser/browser-manager.js';
import { Budget } from './budget.js';
import type { Box } from '../domain/geometry.js';
import { captureImage } from './capture/image.js';
import { capturePdf } from './capture/pdf.js';
import { viewportOverCaps } from './capture/image-caps.js';
import { abortable } from './abortable.js';
import { EgressWatch } from './load/egress-watch.js';
import type { RenderLimiter } from './limiter.js';
import { MainFrameNavigations } from './load/navigations.js';
import { failureInWords } from './load/network-errors.js';
import { hostNotFound, type LoadError } from './load/network-errors.js';
import { ownContextOptions } from './browser/own-context.js';
import type { FactsRequest } from './page-reads/page-facts.js';
import type { PageFacts } from '../domain/page-facts.js';
import type { RenderDiagnostics } from '../domain/render-diagnostics.js';
import { checkGlyphs, type MissingGlyphs } from './page-reads/missing-glyphs.js';
import { documentReady, firstLine, preparePage } from './load/prepare.js';
import { readyPage } from './load/ready-page.js';
import type { ImageSpec, MediaType, PdfSpec, RenderSpec } from '../domain/render-spec.js';
import { runSteps, type RunStep } from './load/steps.js';
import { failureRules, rulesBroken } from './load/failure-rules.js';
import { eventsOf, type SeenEvents } from './load/page-events.js';
import { LoadClock } from './load-clock.js';
import { deviceScaleFor, viewportFor } from './browser/viewport.js';
import type { LoginState } from '../domain/saved-login.js';
import { loginContextOptions, loginHolds, LoginNotHeld, takeState, type LoginRequest } from './load/saved-login.js';
import { inSpan, markFailed, spanUrl, startSpan, type Span } from '../tracing/spans.js';

export interface RenderOutput {
  bytes: Buffer;
  contentType: string;
  renderMs: number;
  finalUrl?: string;
  pageCount?: number;
  /** Images: a size cap cut the image. */
  truncated: boolean;
  /** Images: the X-Truncated value of that cut ("full-page", "width", "height", "width, height"). */
  truncation?: string;
  /** Sub-resources the egress policy refused (they were simply not loaded). */
  blockedRequests: number;
  /** Images: boxes of `measureSelectors` in image pixels. */
  boxes?: Box[];
  /** Images: what `options.facts` asked to read, at the moment of the capture. */
  facts?: PageFacts;
  /** What the render saw: failed resources, page errors, load timeline, missing glyphs, cuts. */
  diagnostics?: RenderDiagnostics;
  /**
   * With `options.login`: `reused` when it started from the saved state and loggedInWhen held (the steps
   * were skipped); else `state`, what the steps left in the context (all of it: the caller limits it).
   */
  login?: { reused: true } | { state: LoginState };
}

export interface RenderOptions {
  /** Work that bounds its own demand (async jobs): queued with everyone else, never refused as queue_full. */
  background?: boolean;
  /** Images: measure these selectors' boxes on the page as captured (a monitor's ignoreSelectors). */
  measureSelectors?: string[];
  /** Images: read these facts of the page as captured (monitor captures: text blocks, notifyWhen elements). */
  facts?: FactsRequest;
  /** Run after the page has loaded and before the capture (a monitor's capture.steps, secrets opened). */
  steps?: RunStep[];
  /**
   * Main-document statuses captured as they are where the request's rules would fail them, its steps then
   * skipped: a monitor looks at a 403/429/503 for a bot check (facts.status says what the page answered).
   */
  captureStatuses?: readonly number[];
  /**
   * A monitor that keeps its login (capture.saveLogin): the render gets a single-use context (with the
   * saved state, when there is one), checks loggedInWhen on the loaded page and skips the steps when it
   * holds, else fails with LoginNotHeld (the caller renders again without the state).
   */
  login?: LoginRequest;
}

export interface Renderer {
  renderPdf(req: PdfSpec, signal: AbortSignal, options?: RenderOptions): Promise<RenderOutput>;
  renderImage(req: ImageSpec, signal: AbortSignal, options?: RenderOptions): Promise<RenderOutput>;
}

/**
 * A render's diagnostics, assembled in this one place: what the page reported (page-events.ts, each list
 * capped and copied, so nothing reported after the capture changes them), the load's timeline, and the cut
 * of a size cap. and the characters the glyph check (page-reads/missing-glyphs.ts) found no font for.
 */
function diagnosisOf(
  seen: SeenEvents,
  clock: LoadClock,
  truncation: string | undefined,
  { glyphs, more }: MissingGlyphs,
): RenderDiagnostics {
  const omitted: NonNullable<RenderDiagnostics['omitted']> = {};
  if (seen.failedResources.omitted) omitted.failedResources = seen.failedResources.omitted;
  if (seen.consoleErrors.omitted) omitted.consoleErrors = seen.consoleErrors.omitted;
  if (seen.exceptions.omitted) omitted.exceptions = seen.exceptions.omitted;
  return {
    failedResources: [...seen.failedResources.items],
    consoleErrors: [...seen.consoleErrors.items],
    exceptions: [...seen.exceptions.items],
    load: clock.timeline(),
    missingGlyphs: glyphs,
    ...(more && { moreMissingGlyphs: true as const }),
    ...(truncation && { truncated: truncation }),
    ...(Object.keys(omitted).length > 0 && { omitted }),
  };
}

const isTimeout = (err: unknown) => err instanceof AppError && err.code === 'render_timeout';
const isCrash = (err: unknown) => err instanceof AppError && err.code === 'render_crashed';

/**
 * How long a failed render waits to learn whether its page's renderer died. A killed renderer fails the
 * call in flight (a navigation as net::ERR_ABORTED, an evaluate as "Target crashed") a moment before the
 * page's `crash` event arrives; a live page answers the probe in about a millisecond, so only a page busy
 * in a script of its own costs the whole wait.
 */
const CRASH_GRACE_MS = 1000;

/** The client went away; nobody is waiting for an answer. */
export class RenderAborted extends Error {}

export interface PlaywrightRendererOptions {
  browsers: BrowserManager;
  limiter: RenderLimiter;
  limits: { maxFullPageHeight: number; maxImagePixels: number };
  egress: EgressPolicy;
  /** The egress proxy's reasons for origins it could not reach, to say a failed load in words. */
  failures?: EgressFailures;
}

/** What a render is given: the request, the caller's signal, its options, the media and its capture. */
type RenderArgs = [
  req: RenderSpec,
  clientSignal: AbortSignal,
  options: RenderOptions,
  media: MediaType,
  capture: (lease: Lease) => Promise<Omit<RenderOutput, 'renderMs' | 'finalUrl' | 'blockedRequests'>>,
];

export class PlaywrightRenderer implements Renderer {
  constructor(private readonly options: PlaywrightRendererOptions) {}

  renderPdf(req: PdfSpec, signal: AbortSignal, options: RenderOptions = {}): Promise<RenderOutput> {
    return this.render(req, signal, options, 'print', async (lease) => {
      const pdf = await capturePdf(lease.page, req); // its capture and post-processing spans are its own
      return { bytes: pdf.bytes, contentType: 'application/pdf', pageCount: pdf.pageCount, truncated: false };
    });
  }

  renderImage(req: ImageSpec, signal: AbortSignal, options: RenderOptions = {}): Promise<RenderOutput> {
    const caps = { maxSide: this.options.limits.maxFullPageHeight, maxPixels: this.options.limits.maxImagePixels };
    // The schema refused this up front for a new request; a stored monitor or job was checked against
    // the caps of its day. Refused, not cut: a viewport is drawn whole in every mode.
    const viewport = viewportFor(req);
    const over = viewportOverCaps(viewport.width, viewport.height, deviceScaleFor(req), caps);
    if (over) return Promise.reject(renderFailed(over));
    return this.render(req, signal, options, 'screen', (lease) =>
      inSpan('capture', {}, () =>
        captureImage(lease.page, lease.context, req, caps, options.measureSelectors, options.facts),
      ),
    );
  }

  /** A render as one span, its stages (queue wait, load, steps, waits, capture...) its children. */
  private render(...args: RenderArgs): Promise<RenderOutput> {
    const [req, , , media] = args;
    const attributes = {
      'pagewatch.render.media': media,
      'pagewatch.render.source': req.url === undefined ? 'html' : 'url',
      ...(req.url !== undefined && { 'url.full': spanUrl(req.url) }),
    };
    return inSpan('render', attributes, () => this.renderUntraced(...args));
  }

  private async renderUntraced(...[req, clientSignal, options, media, capture]: RenderArgs): Promise<RenderOutput> {
    const started = performance.now();
    const budget = new Budget(req.timeout);
    const timeoutSignal = AbortSignal.timeout(req.timeout);
    const signal = AbortSignal.any([clientSignal, timeoutSignal]);
    // Where the time went when it runs out: a render that hangs says in the log what it was waiting for.
    let stage = 'waiting for a render slot';
    let trackedNavigations: MainFrameNavigations | undefined;
    const clock = new LoadClock(started);
    const fail = (err: unknown): never => {
      if (clientSignal.aborted) throw new RenderAborted('client disconnected');
      if (err instanceof LoginNotHeld) throw err; // not a failure: the caller starts again, signed out
      const where = () => {
        const waitingFor = trackedNavigations?.waitingFor;
        return waitingFor ? `waiting for ${waitingFor}` : stage;
      };
      if (isCrash(err)) throw err; // even if the timeout ran out while the crash was being confirmed
      if (isTimeout(err)) {
        (err as AppError).extra.logDetail ??= `timed out ${where()}`; // its message already says what timed out
        throw err;
      }
      if (timeoutSignal.aborted || err instanceof pwErrors.TimeoutError)
        throw renderTimeout(req.timeout, undefined, where());
      if (err instanceof AppError) throw err;
      // Anything else Playwright throws mid-render comes from what the page did (it navigated away
      // during a step, closed itself, refused a clip...): the page could not be rendered.
      throw renderFailed(`the page could not be rendered: ${firstLine(err)}`, err);
    };

    // From asking for a slot to holding a page; not the active span, so the render's stages are not its children.
    let queueWait: Span | undefined;
    try {
      // Refuse a blocked address before queueing, so not even one request is made to it.
      if (req.url) await this.checkTopLevel(req.url);
      queueWait = startSpan('queue wait', { 'pagewatch.render.background': options.background === true });
      return await this.options.limiter.run(
        signal,
        async () => {
          stage = 'waiting for a browser page';
          const contextOptions = options.login ? loginContextOptions(req, options.login) : ownContextOptions(req);
          const lease = await abortable(this.options.browsers.lease(contextOptions), signal, (l) => l.release(false));
          clock.lap('queue');
          queueWait?.end();
          const events = eventsOf(lease.page, lease.context);
          events.begin(failureRules(req), this.options.failures);
          const watch = new EgressWatch(lease.page);
          const navigations = new MainFrameNavigations(lease.page);
          trackedNavigations = navigations;
          let reusable = false;
          try {
            const work = (async () => {
              stage = 'loading the page';
              const { spared } = await inSpan('load', {}, () =>
                preparePage(lease.page, lease.context, req, media, viewportFor(req), budget, options.captureStatuses),
              );
              clock.lap('navigation');
              // A spared error page is not the page the steps were written for.
              let steps = spared ? [] : (options.steps ?? []);
              const login = options.login;
              let reused = false;
              if (login?.state && steps.length) {
                stage = 'checking the saved login';
                await navigations.untilSettled(budget, () => documentReady(lease.page, req));
                if (!(await loginHolds(lease.page, login.loggedInWhen, budget))) throw new LoginNotHeld();
                steps = [];
                reused = true;
              }
              if (steps.length) stage = 'running the steps';
              if (steps.length) {
                await inSpan('steps', { 'pagewatch.steps.count': steps.length }, () =>
                  this.runSteps(lease.page, req, steps, budget, navigations, (err) =>
                    failureInWords(err, { watch, navigations, timeoutSignal, req, failures: this.options.failures }),
                  ),
                );
                clock.lap('steps');
              }
              let missingGlyphs: MissingGlyphs = { glyphs: [], more: false };
              const out = await navigations.untilSettled(budget, async () => {
                stage = 'waiting for the page to be ready (its waits, fonts and images)';
                await readyPage(lease.page, req, budget, clock);
                // The failure rules judge what the page did up to its capture (page-events.ts judged it as it came).
                const seen = events.current;
                if (seen.violationCount > 0) throw rulesBroken(seen.violations, seen.violationCount);
                lease.page.setDefaultTimeout(navigations.stepTimeout(budget)); // see STALLED_CAPTURE_MS
                stage = 'looking for characters no font can draw';
                missingGlyphs = await checkGlyphs(lease.page, req); // the page as it will be captured
                clock.lap('glyphs');
                stage = 'capturing';
                const captured = await capture(lease);
                clock.lap('capture');
                return captured;
              });
              stage = 'finishing';
              await this.assertDocumentAllowed(watch); // a redirect after load may have reached a blocked address
              const loginOut: RenderOutput['login'] =
                login &&
                (reused ? { reused: true } : steps.length ? { state: await takeState(lease.page) } : undefined);
              const finalUrl = req.url === undefined ? undefined : lease.page.url();
              const status = watch.documentStatus;
              return {
                ...out,
                ...(out.facts && status !== undefined && { facts: { ...out.facts, status } }),
                finalUrl,
                blockedRequests: watch.blockedSubresources,
                diagnostics: diagnosisOf(events.current, clock, out.truncation, missingGlyphs),
                renderMs: Math.round(performance.now() - started),
                ...(loginOut && { login: loginOut }),
              };
            })();
            const result = await abortable(work, AbortSignal.any([signal, lease.lost]));
            reusable = true;
            return result;
          } catch (caught) {
            if (!(caught instanceof AppError && caught.code === 'url_blocked')) await this.assertDocumentAllowed(watch);
            const err = failureInWords(caught, {
              watch,
              navigations,
              timeoutSignal,
              req,
              failures: this.options.failures,
            });
            // Whatever the failure looked like, a renderer that ended caused it. Past the timeout (or with the
            // client gone) only a crash already seen counts: the answer is not held up to look for one.
            const alive =
              lease.lost.aborted || signal.aborted
                ? !lease.lost.aborted
                : await lease.rendererAlive(Math.min(CRASH_GRACE_MS, budget.remaining()));
            if (!lease.browserConnected()) throw unavailable('the browser stopped during the render; try again', err);
            if (alive === false) throw renderCrashed(err);
            // A render that failed on its own (404, bad selector) leaves a healthy page; keep it. One
            // still moving between documents (a navigation loop), or silent when asked, is not trusted: replace it.
            reusable = err instanceof AppError && !signal.aborted && !navigations.moving && alive === true;
            throw err;
          } finally {
            watch.dispose();
            navigations.dispose();
            lease.release(reusable);
          }
        },
        { background: options.background },
      );
    } catch (err) {
      if (queueWait?.isRecording()) {
        markFailed(queueWait, err); // refused (queue_full, a blocked address) or given up while waiting
        queueWait.end();
      }
      return fail(err);
    }
  }

  /**
   * A monitor's steps, exactly once: on the loaded page once it has stopped moving (a redirect to a
   * login page has happened). The monitor's own waits, css/js, hideSelectors, scrolling and delay then
   * apply to the page the steps lead to (readyPage, run again if that page moves on by itself).
   */
  private async runSteps(
    page: Page,
    req: RenderSpec,
    steps: RunStep[],
    budget: Budget,
    navigations: MainFrameNavigations,
    explainLoad: (err: LoadError) => unknown,
  ): Promise<void> {
    await navigations.untilSettled(budget, () => documentReady(page, req));
    await runSteps(page, steps, budget, {
      checkUrl: (url) => this.checkTopLevel(url),
      failOnHttpError: req.failOnHttpError ?? true,
      failOnHttpStatusCodes: req.failOnHttpStatusCodes,
      explainLoad: (err) => {
        const said = explainLoad(err);
        return said instanceof AppError ? said : renderFailed(err.message, err);
      },
    });
  }

  private async checkTopLevel(url: string): Promise<void> {
    const verdict = await this.options.egress.checkUrl(url);
    if (verdict.allowed) return;
    // A name that does not resolve says nothing about the internal network: the caller may hear it.
    if (verdict.unresolvable) throw hostNotFound(url, verdict.reason);
    throw urlBlocked(verdict.reason); // the reason (e.g. what the name resolved to) is logged, not answered
  }

  /** 403 when the main document (or one of its redirects) was refused by the egress proxy. */
  private async assertDocumentAllowed(watch: EgressWatch): Promise<void> {
    // Where the page led and why it was refused go to the log only (urlBlocked): the caller hears just "not allowed".
    if (watch.blockedDocument) throw urlBlocked(`the page led to ${watch.blockedDocument}`);
    if (watch.failedTunnel) {
      const verdict = await this.options.egress.checkUrl(watch.failedTunnel);
      if (!verdict.allowed && !verdict.unresolvable)
        throw urlBlocked(`the page led to ${watch.failedTunnel}: ${verdict.reason}`);
    }
  }
}
