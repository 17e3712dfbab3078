// What a page reported while it rendered: resources that failed, console.error messages, exceptions no
// script caught. Listeners are attached once per page, at its first render (a warm page lives for many
// renders: eventsOf keeps its collector), and `begin` clears what the previous render saw: no listener is
// added or removed per render, and no call is made to the browser (Playwright delivers these events
// whether or not anyone listens).
// Resources are judged against the render's failure rules (failure-rules.ts) as they arrive, so the lists
// can be capped without losing a failure.
import type { BrowserContext, ConsoleMessage, Page, Request, Response } from 'playwright';
import {
  DIAGNOSTICS_LIST_CAP,
  DIAGNOSTICS_TEXT_CAP,
  type FailedResource,
  type PageMessage,
} from '../../domain/render-diagnostics.js';
import type { EgressFailures } from '../../egress/failures.js';
import { BLOCKED_HEADER, REASON_HEADER } from '../../egress/proxy.js';
import { noRules, type FailureRules } from './failure-rules.js';
import { isMainDocument } from './navigations.js';
import { networkErrorInWords } from './network-errors.js';

/** Said of a resource the egress proxy refused: the operator's policy, not the site's failure. */
export const BLOCKED_BY_POLICY = "blocked by the service's egress policy";

/**
 * Request failures that are not the resource's: a request the page or the browser cancelled (a navigation
 * away, an image replaced, a download refused) and one the caller's blockResources refused.
 */
const NOT_FAILURES = new Set(['net::ERR_ABORTED', 'net::ERR_BLOCKED_BY_CLIENT']);

/** Chromium's console line for every failed load: the same failure is already in failedResources. */
const LOAD_FAILURE_LINE = /^Failed to load resource: /;

/** How many stack lines of an exception are kept. */
const STACK_LINES = 5;

export const capText = (text: string) =>
  text.length > DIAGNOSTICS_TEXT_CAP ? `${text.slice(0, DIAGNOSTICS_TEXT_CAP - 1)}…` : text;

/** A list that keeps its first DIAGNOSTICS_LIST_CAP entries and counts the rest. */
class CappedList<T> {
  readonly items: T[] = [];
  omitted = 0;
  push(item: T): void {
    if (this.items.length < DIAGNOSTICS_LIST_CAP) this.items.push(item);
    else this.omitted++;
  }
}

/** A failure rule a render broke: which option, and what broke it in words. */
export interface Violation {
  rule: keyof FailureRules;
  what: string;
}

/** At most this many violations are kept for the 422's message and details. */
export const MAX_VIOLATIONS = 10;

export interface SeenEvents {
  failedResources: CappedList<FailedResource>;
  consoleErrors: CappedList<PageMessage>;
  exceptions: CappedList<PageMessage>;
  violations: Violation[];
  violationCount: number;
}

/** Each page's collector, made at its first render and gone with the page. */
const collectors = new WeakMap<Page, PageEvents>();

/** The collector of `page` (in `context`), attached now if this is the page's first render. */
export function eventsOf(page: Page, context: BrowserContext): PageEvents {
  let events = collectors.get(page);
  if (!events) collectors.set(page, (events = new PageEvents(page, context)));
  return events;
}

export class PageEvents {
  private seen = PageEvents.empty();
  private rules: FailureRules = noRules;
  private failures: EgressFailures | undefined;

  private static empty(): SeenEvents {
    return {
      failedResources: new CappedList(),
      consoleErrors: new CappedList(),
      exceptions: new CappedList(),
      violations: [],
      violationCount: 0,
    };
  }

  /** `context`'s events include its workers' requests; the page is the context's only one (popups are closed). */
  constructor(
    private readonly page: Page,
    context: BrowserContext,
  ) {
    context.on('response', (res) => this.onResponse(res));
    context.on('requestfailed', (req) => this.onFailed(req));
    page.on('console', (msg) => this.onConsole(msg));
    page.on('pageerror', (err) => this.onPageError(err));
  }

  /** A render starts: forget what came before, and judge what follows by `rules`. */
  begin(rules: FailureRules, failures: EgressFailures | undefined): void {
    this.seen = PageEvents.empty();
    this.rules = rules;
    this.failures = failures;
  }

  /** What the render has seen so far (the live lists: read them, do not keep them past the render). */
  get current(): SeenEvents {
    return this.seen;
  }

  private violate(rule: keyof FailureRules, what: string): void {
    this.seen.violationCount++;
    if (this.seen.violations.length < MAX_VIOLATIONS) this.seen.violations.push({ rule, what });
  }

  private onResponse(res: Response): void {
    const status = res.status();
    if (status < 400) return;
    const req = res.request();
    const url = req.url();
    const main = isMainDocument(this.page, req);
    const headers = res.headers();
    const marker = headers[BLOCKED_HEADER];
    if (marker === 'blocked') return this.record(req, main, { error: BLOCKED_BY_POLICY });
    if (marker === 'unreachable') {
      // The egress proxy's 502 when the origin could not be reached: no answer, said as the failure it was.
      const proxyReason = headers[REASON_HEADER];
      return this.record(req, main, { error: networkErrorInWords(url, 'net::ERR_FAILED', { proxyReason }) });
    }
    this.record(req, main, { status });
  }

  private onFailed(req: Request): void {
    const errorText = req.failure()?.errorText ?? 'net::ERR_FAILED';
    if (NOT_FAILURES.has(errorText)) return;
    const main = isMainDocument(this.page, req);
    const url = req.url();
    if (errorText === 'net::ERR_TUNNEL_CONNECTION_FAILED') {
      // An https CONNECT the proxy refused or could not make: its reason tells which (egress-watch.ts).
      const proxyReason = this.failures?.reasonFor(url);
      if (!proxyReason) return this.record(req, main, { error: BLOCKED_BY_POLICY });
      return this.record(req, main, { error: networkErrorInWords(url, errorText, { proxyReason }) });
    }
    this.record(req, main, { error: networkErrorInWords(url, errorText) });
  }

  private record(req: Request, main: boolean, outcome: { status?: number; error?: string }): void {
    const url = req.url();
    const entry: FailedResource = { url: capText(url), resourceType: req.resourceType(), ...outcome };
    this.seen.failedResources.push(entry);
    if (main) return; // the main document is judged by failOnHttpError / failOnHttpStatusCodes, in prepare.ts
    const said = `${entry.url} (${entry.resourceType}): ${outcome.status !== undefined ? `HTTP ${outcome.status}` : outcome.error}`;
    const { rules } = this;
    if (outcome.status !== undefined && rules.resourceStatus?.(outcome.status, url)) {
      this.violate('resourceStatus', said);
    } else if (outcome.error !== undefined && outcome.error !== BLOCKED_BY_POLICY && rules.resourceLoadingFailed) {
      this.violate('resourceLoadingFailed', said);
    }
  }

  private onConsole(msg: ConsoleMessage): void {
    if (msg.type() !== 'error') return;
    const text = msg.text();
    if (LOAD_FAILURE_LINE.test(text)) return;
    const { url, lineNumber, columnNumber } = msg.location();
    // Playwright's lines and columns count from 0; people and editors count from 1.
    const location = url ? capText(`${url}:${lineNumber + 1}:${columnNumber + 1}`) : undefined;
    this.seen.consoleErrors.push({ text: capText(text), ...(location && { location }) });
  }

  private onPageError(err: Error): void {
    const text = capText(err.name ? `${err.name}: ${err.message}` : err.message);
    // The stack's first line repeats the message; the next few say where it was thrown.
    const stack = (err.stack ?? '')
      .split('\n')
      .filter((line) => /^\s+at /.test(line))
      .slice(0, STACK_LINES)
      .map((line) => line.trim())
      .join('\n');
    this.seen.exceptions.push({ text, ...(stack && { location: capText(stack) }) });
    if (this.rules.consoleExceptions) this.violate('consoleExceptions', text.split('\n')[0]!);
  }
}
