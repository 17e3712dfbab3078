// Pages that navigate themselves once loaded (a meta refresh, `location = ...` on load, a chain of
// client-side hops through a login or consent page) are common. A step that runs while the page is
// between documents fails ("Execution context was destroyed", "Printing failed") or captures the
// wrong document, so the render's post-load steps run until the page has stopped moving.
import { errors as pwErrors, type Page, type Request } from 'playwright';
import { renderFailed, renderTimeout } from '../../errors.js';
import type { Budget } from '../budget.js';

/** More self-navigations than this after load is a loop, not a page settling down. */
export const MAX_HOPS = 10;

/**
 * A page that moved itself to another document of its site leaves Chromium's screenshot without an answer
 * now and then (a new frame host per document; about one capture in eight around such a move, measured in
 * plain Playwright). The stalled call never answers, but the next one does at once. So on such a page a
 * capture gets this long at first, doubling on each try, and a timed-out try is tried again while the
 * render's budget lasts; a capture that is merely slow still gets its time on a later try.
 */
export const STALLED_CAPTURE_MS = 2000;
const MAX_STALLS = 4;

const NAVIGATED = /Execution context was destroyed|navigat|Printing failed/i;

export class MainFrameNavigations {
  /** Main-document requests in flight: each ends in a new document, a failure or a download. */
  private readonly pending = new Set<Request>();
  /** New main documents so far (same-document history changes make no request and are not counted). */
  private documents = 0;
  private waiters: Array<() => void> = [];
  /** What the page is being waited for, while it is between documents (for a timeout's log line). */
  waitingFor: string | undefined;

  private readonly onRequest = (req: Request) => {
    if (isMainDocument(this.page, req)) this.changed(() => this.pending.add(req));
  };

  private readonly onRequestDone = (req: Request) => {
    if (this.pending.has(req)) this.changed(() => this.pending.delete(req));
  };

  private readonly onNavigated = (frame: unknown) => {
    if (frame !== this.page.mainFrame() || this.pending.size === 0) return;
    this.changed(() => {
      this.documents++;
      this.pending.clear();
    });
  };

  private readonly onClose = () => this.changed(() => this.pending.clear());

  constructor(private readonly page: Page) {
    page.on('request', this.onRequest);
    page.on('requestfinished', this.onRequestDone);
    page.on('requestfailed', this.onRequestDone);
    page.on('framenavigated', this.onNavigated);
    page.on('close', this.onClose);
  }

  /** Some document of this render has committed (the site sent a page). */
  get loadedAny(): boolean {
    return this.documents > 0;
  }

  /** A main-document request is in flight: the page is on its way to another document. */
  get moving(): boolean {
    return this.pending.size > 0;
  }

  /** Captures that stalled and were tried again (see STALLED_CAPTURE_MS). */
  stalls = 0;

  /**
   * How long the next step's Playwright calls may take: on a page that has moved itself, the stalled
   * capture's first try is short (STALLED_CAPTURE_MS, doubled per stall); otherwise the whole budget.
   */
  stepTimeout(budget: Budget): number {
    if (this.documents === 0) return budget.remaining(100);
    return Math.min(budget.remaining(100), STALLED_CAPTURE_MS * 2 ** this.stalls);
  }

  dispose(): void {
    this.page.off('request', this.onRequest);
    this.page.off('requestfinished', this.onRequestDone);
    this.page.off('requestfailed', this.onRequestDone);
    this.page.off('framenavigated', this.onNavigated);
    this.page.off('close', this.onClose);
  }

  /**
   * Run `step` (the waits, the caller's changes, the capture) on a document that stays put. If the
   * page moved to another document meanwhile, wait for the new one to load and run it again there.
   */
  async untilSettled<T>(budget: Budget, step: () => Promise<T>): Promise<T> {
    for (let hop = 0; ; hop++) {
      const before = this.documents;
      let outcome: { ok: true; value: T } | { ok: false; error: unknown };
      try {
        outcome = { ok: true, value: await step() };
      } catch (error) {
        outcome = { ok: false, error };
      }
      const moved = this.documents !== before || this.pending.size > 0;
      if (this.stalled(outcome, budget)) {
        this.stalls++;
        continue;
      }
      // A navigation without a request (to about:blank) is only seen in the error; trust that less.
      const looksMoved = !outcome.ok && hop < 3 && NAVIGATED.test(String(outcome.error));
      if (this.page.isClosed() || !(moved || looksMoved)) {
        if (outcome.ok) return outcome.value;
        throw outcome.error;
      }
      if (hop >= MAX_HOPS)
        throw renderFailed(`the page kept navigating itself (more than ${MAX_HOPS} times after loading)`);
      await this.settle(budget);
    }
  }

  /** A step on a page that moved itself timed out short of the render's budget: a stalled capture. */
  private stalled(outcome: { ok: boolean; error?: unknown }, budget: Budget): boolean {
    return (
      !outcome.ok &&
      outcome.error instanceof pwErrors.TimeoutError &&
      this.documents > 0 &&
      this.stalls < MAX_STALLS &&
      budget.remaining(100) > 100
    );
  }

  /** Wait until no main-document request is in flight and the current document has loaded. */
  private async settle(budget: Budget): Promise<void> {
    this.waitingFor = `the next document (after ${this.documents} moves)`;
    while (this.pending.size > 0 && !this.page.isClosed()) await this.nextChange(budget);
    this.waitingFor = `the load event of document ${this.documents + 1} (${this.page.url()})`;
    await this.page.waitForLoadState('load', { timeout: budget.remaining(100) });
    this.waitingFor = undefined;
  }

  private nextChange(budget: Budget): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(renderTimeout(budget.timeoutMs)), budget.remaining(100));
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private changed(update: () => void): void {
    update();
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/** A request for the page's own (top-level) document: the first load, a redirect hop, a self-navigation. */
export function isMainDocument(page: Page, req: Request): boolean {
  try {
    return req.isNavigationRequest() && req.frame() === page.mainFrame();
  } catch {
    return false; // a service worker's request has no frame
  }
}
