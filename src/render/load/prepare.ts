// Everything between "a page is ours" and its loaded document: emulation, cookies, routes and
// navigation. The waits that make a capture stable and the caller's css/js/hide/scroll follow in
// ready-page.ts.
import type { BrowserContext, Page, Response } from 'playwright';
import { errors as pwErrors } from 'playwright';
import { renderFailed, type AppError } from '../../errors.js';
import { Budget } from '../budget.js';
import { LoadError } from './network-errors.js';
import { mainDocumentFails, mainStatusAdvice } from './failure-rules.js';
import { attachOriginHeaders, targetOrigin } from '../browser/origin-headers.js';
import type { MediaType, PageSpec } from '../../domain/render-spec.js';
import { rendersInertly } from './inert-html.js';
import { cookiesGiven } from '../browser/warm-page.js';
import { serveUpload } from './upload-origin.js';

/** The media emulation each page has now, so an unchanged one is not sent again (~6 ms a call). */
const emulated = new WeakMap<Page, string>();
/** Pages given headers for every request by their last render. */
const withHeaders = new WeakSet<Page>();

export async function preparePage(
  page: Page,
  context: BrowserContext,
  req: PageSpec,
  media: MediaType,
  viewport: { width: number; height: number },
  budget: Budget,
  /** Main-document statuses loaded as they are instead of failing the render (RenderOptions.captureStatuses). */
  spare: readonly number[] = [],
): Promise<{ spared: boolean }> {
  page.setDefaultTimeout(budget.remaining());
  // Set for every render, so nothing of the previous render's emulation survives on a reused page
  // (skipped only where the page already has exactly these values).
  const current = page.viewportSize();
  if (current?.width !== viewport.width || current.height !== viewport.height) await page.setViewportSize(viewport);
  const emulation = {
    media: req.media ?? media,
    colorScheme: req.colorScheme,
    reducedMotion: req.reducedMotion ?? 'no-preference',
    // Part of the cached key like the rest: a page left in forced colors by its last render is reset.
    forcedColors: req.forcedColors ?? 'none',
    contrast: req.contrast ?? 'no-preference',
  } as const;
  const key = JSON.stringify(emulation);
  if (emulated.get(page) !== key) {
    await page.emulateMedia(emulation);
    emulated.set(page, key);
  }
  await applyHeaders(page, context, req, emulation.media);
  if (req.cookies?.length) await addCookies(context, req);
  if (req.blockResources?.length) await blockResources(page, req.blockResources);

  return navigate(page, req, budget, spare);
}

/**
 * headersScope "all": on every request (Playwright's extra headers, redirects included). "origin":
 * only on requests to the target's origin; html without baseUrl has none, and the schema refuses
 * headers there unless the scope is "all".
 */
async function applyHeaders(page: Page, context: BrowserContext, req: PageSpec, media: MediaType): Promise<void> {
  const headers = req.headers ?? {};
  const everywhere = req.headersScope === 'all';
  const setHere = everywhere && Object.keys(headers).length > 0;
  // Only when some are set now or were by an earlier render (the wipe takes those off as well).
  if (setHere || withHeaders.has(page)) await page.setExtraHTTPHeaders(setHere ? headers : {});
  if (setHere) withHeaders.add(page);
  else withHeaders.delete(page);
  const origin = targetOrigin(req);
  if (everywhere || origin === undefined || Object.keys(headers).length === 0) return;
  // Detached by the page's wipe (a single-use page closes with its context).
  await attachOriginHeaders(page, context, origin, headers, media);
  // The navigation under that session drops Playwright's own media emulation for good (the session's
  // copy goes with the wipe): the next render on this page must emulate again, not trust the cache.
  emulated.delete(page);
}

async function addCookies(context: BrowserContext, req: PageSpec): Promise<void> {
  cookiesGiven.add(context);
  const pageUrl = req.url ?? req.baseUrl;
  await context.addCookies(
    req.cookies!.map((c) => {
      // Playwright takes either url, or domain + path; fill in from the page when the caller gave neither.
      if (c.url || !c.domain) return { ...c, url: c.url ?? pageUrl, domain: undefined, path: undefined };
      return { ...c, path: c.path ?? '/' };
    }),
  );
}

async function blockResources(page: Page, types: readonly string[]): Promise<void> {
  const blocked = new Set(types);
  // WebSockets never reach page.route; a route that answers nothing and closes refuses them.
  if (blocked.has('websocket'))
    await page.routeWebSocket(/.*/, (ws) => {
      ws.close().catch(() => undefined);
    });
  await page.route('**/*', (route) =>
    blocked.has(route.request().resourceType()) ? route.abort('blockedbyclient') : route.fallback(),
  );
}

/**
 * Playwright's own load wait never ends if the page starts a download before it has loaded (it
 * waits for a navigation that turned into a download). So, where the page can run script, commit
 * first and then wait for the document's own readyState — the same moment, without the trap.
 */
export function commitThenWait(req: PageSpec): boolean {
  // Inert HTML cannot start a download (that takes a script or a meta refresh): Playwright's wait is safe.
  return req.javaScriptEnabled && req.waitUntil !== 'networkidle' && !rendersInertly(req);
}

/**
 * The document loaded as `waitUntil` says (the moment a monitor's steps start). One round trip that
 * resolves on the event itself (polling would add up to its interval). It needs no timer of its own:
 * the render's timeout closes the page, which ends this wait.
 */
export async function documentReady(page: Page, req: PageSpec): Promise<void> {
  if (!commitThenWait(req)) return;
  await page.evaluate(
    (state) =>
      new Promise<void>((resolve) => {
        if (state === 'load' ? document.readyState === 'complete' : document.readyState !== 'loading') return resolve();
        if (state === 'load') window.addEventListener('load', () => resolve(), { once: true });
        else document.addEventListener('DOMContentLoaded', () => resolve(), { once: true });
      }),
    req.waitUntil,
  );
}

/** Whether the document loaded with a status its rules fail but `spare` let through. */
async function navigate(
  page: Page,
  req: PageSpec,
  budget: Budget,
  spare: readonly number[],
): Promise<{ spared: boolean }> {
  const response = await load(page, req, commitThenWait(req) ? 'commit' : req.waitUntil, budget);
  // failOnHttpStatusCodes when given, else failOnHttpError (failure-rules.ts); html is never judged.
  if (req.url !== undefined && response && mainDocumentFails(req, response.status())) {
    if (spare.includes(response.status())) return { spared: true };
    throw mainStatusFailed(req, response.status());
  }
  return { spared: false };
}

/** The failure of a main document whose status the render's rules fail. */
export function mainStatusFailed(req: PageSpec, status: number): AppError {
  return renderFailed(`The page answered HTTP ${status}: check the URL, or ${mainStatusAdvice(req)}.`);
}

/** Start the document: an upload's index.html, the caller's HTML, that HTML served at baseUrl, or the url itself. */
async function load(
  page: Page,
  req: PageSpec,
  waitUntil: PageSpec['waitUntil'] | 'commit',
  budget: Budget,
): Promise<Response | null> {
  if (req.files) {
    // Navigated like html at baseUrl, but every file (index.html too) comes from the upload's own origin.
    const href = await serveUpload(page, req.files, req.blockResources);
    return goto(page, href, waitUntil, budget);
  }
  if (req.html !== undefined && !req.baseUrl) {
    await page.setContent(req.html, { waitUntil, timeout: budget.remaining() });
    return null;
  }
  if (req.html !== undefined && req.baseUrl) {
    // Serve the HTML as the document at baseUrl, so relative links resolve and it has that origin.
    const { html } = req;
    const href = new URL(req.baseUrl).href;
    await page.route(
      (u) => u.href === href,
      (route) =>
        route.request().isNavigationRequest()
          ? route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html })
          : route.fallback(),
    );
    return goto(page, href, waitUntil, budget);
  }
  return goto(page, req.url!, waitUntil, budget);
}

async function goto(
  page: Page,
  url: string,
  waitUntil: PageSpec['waitUntil'] | 'commit',
  budget: Budget,
): Promise<Response | null> {
  try {
    return await page.goto(url, { waitUntil, timeout: budget.remaining() });
  } catch (err) {
    if (err instanceof pwErrors.TimeoutError) throw err; // the budget ran out: a timeout, not a failure
    // A network failure is worded by the renderer, which knows what the egress proxy saw.
    const netError = /net::ERR_[A-Z0-9_]+/.exec(firstLine(err))?.[0];
    if (netError) throw new LoadError(url, netError, err);
    throw renderFailed(`could not load ${url}: ${firstLine(err)}`, err);
  }
}

export function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.replace(/^\w+\.\w+: /, '');
}
