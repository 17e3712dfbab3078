// Everything between "a page is ours" and "capture": emulation, cookies, routes, navigation, the
// waits that make a capture stable, and the caller's css/js/hide/scroll.
import type { BrowserContext, Page, Response } from 'playwright';
import { errors as pwErrors } from 'playwright';
import { invalidRequest, renderFailed } from '../errors.js';
import { Budget } from './budget.js';
import { attachOriginHeaders, targetOrigin } from './origin-headers.js';
import type { PageSpec } from '../domain/render-spec.js';

/** The media emulation each page has now, so an unchanged one is not sent again (~6 ms a call). */
const emulated = new WeakMap<Page, string>();

export async function preparePage(
  page: Page,
  context: BrowserContext,
  req: PageSpec,
  media: 'screen' | 'print',
  viewport: { width: number; height: number },
  budget: Budget,
): Promise<void> {
  page.setDefaultTimeout(budget.remaining());
  // Set for every render, so nothing of the previous render's emulation survives on a reused page
  // (skipped only where the page already has exactly these values).
  const current = page.viewportSize();
  if (current?.width !== viewport.width || current.height !== viewport.height) await page.setViewportSize(viewport);
  const emulation = {
    media: req.media ?? media,
    colorScheme: req.colorScheme,
    reducedMotion: req.reducedMotion ?? 'no-preference',
  } as const;
  const key = JSON.stringify(emulation);
  if (emulated.get(page) !== key) {
    await page.emulateMedia(emulation);
    emulated.set(page, key);
  }
  await applyHeaders(page, context, req, emulation.media);
  if (req.cookies?.length) await addCookies(context, req);
  if (req.blockResources?.length) await blockResources(page, req.blockResources);

  await navigate(page, req, budget);
}

/**
 * The post-load steps: the document ready as `waitUntil` says, the caller's waits, then the caller's
 * css/js/hide/scroll/delay. Run again by the renderer if the page moves to another document.
 */
export async function readyPage(page: Page, req: PageSpec, budget: Budget): Promise<void> {
  await documentReady(page, req);
  await waitUntilReady(page, req, budget);
  await applyPageChanges(page, req, budget);
}

/**
 * headersScope "all": on every request (Playwright's extra headers, redirects included). "origin":
 * only on requests to the target's origin; html without baseUrl has none, and the schema refuses
 * headers there unless the scope is "all".
 */
async function applyHeaders(
  page: Page,
  context: BrowserContext,
  req: PageSpec,
  media: 'screen' | 'print',
): Promise<void> {
  const headers = req.headers ?? {};
  const everywhere = req.headersScope === 'all';
  await page.setExtraHTTPHeaders(everywhere ? headers : {});
  const origin = targetOrigin(req);
  if (everywhere || origin === undefined || Object.keys(headers).length === 0) return;
  // Detached by the page's wipe (a single-use page closes with its context).
  await attachOriginHeaders(page, context, origin, headers, media);
}

async function addCookies(context: BrowserContext, req: PageSpec): Promise<void> {
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
function commitThenWait(req: PageSpec): boolean {
  return req.javaScriptEnabled && req.waitUntil !== 'networkidle';
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

async function navigate(page: Page, req: PageSpec, budget: Budget): Promise<void> {
  const response = await load(page, req, commitThenWait(req) ? 'commit' : req.waitUntil, budget);
  const failOnHttpError = req.failOnHttpError ?? true;
  if (req.url !== undefined && failOnHttpError && response && response.status() >= 400) {
    throw renderFailed(`the page answered HTTP ${response.status()} (set failOnHttpError: false to render it anyway)`);
  }
}

/** Start the document: the caller's HTML, that HTML served at baseUrl, or the url itself. */
async function load(
  page: Page,
  req: PageSpec,
  waitUntil: PageSpec['waitUntil'] | 'commit',
  budget: Budget,
): Promise<Response | null> {
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
    throw renderFailed(`could not load ${url}: ${firstLine(err)}`, err);
  }
}

async function waitUntilReady(page: Page, req: PageSpec, budget: Budget): Promise<void> {
  if (req.waitForSelector) {
    try {
      await page
        .locator(req.waitForSelector)
        .first()
        .waitFor({ state: 'visible', timeout: budget.remaining(100) });
    } catch (err) {
      if (err instanceof pwErrors.TimeoutError)
        throw renderFailed(`waitForSelector "${req.waitForSelector}" never became visible`);
      throw renderFailed(`waitForSelector "${req.waitForSelector}": ${firstLine(err)}`, err);
    }
  }
  if (req.waitForFunction) {
    try {
      await page.waitForFunction(req.waitForFunction, undefined, { timeout: budget.remaining(100) });
    } catch (err) {
      if (err instanceof pwErrors.TimeoutError) throw renderFailed('waitForFunction never became truthy');
      throw renderFailed(`waitForFunction failed: ${firstLine(err)}`, err);
    }
  }
  if (req.javaScriptEnabled) await fontsAndImagesReady(page, !('fullPage' in req) || req.fullPage === true, budget);
}

/** At most this many images are waited for: the page decides how many there are. */
const MAX_AWAITED_IMAGES = 500;

/**
 * Fonts loaded and the images of the captured area decoded, so the capture does not catch them half-drawn
 * (an image that arrives late would otherwise read as a change). The captured area is the viewport, or the
 * whole document for a full-page capture or a PDF: there, `loading="lazy"` images are switched to eager
 * first, since nothing scrolls them into view before the capture. The wait takes at most half of what is
 * left of the render's budget; an image that never arrives is captured as it is then.
 */
async function fontsAndImagesReady(page: Page, wholePage: boolean, budget: Budget): Promise<void> {
  await page.evaluate(
    async ({ wholePage, maxMs, maxImages }) => {
      const timeUp = new Promise<void>((resolve) => setTimeout(resolve, maxMs));
      await Promise.race([document.fonts.ready, timeUp]);
      const captured = [...document.images]
        .filter((img) => {
          if (wholePage) return true;
          const r = img.getBoundingClientRect();
          return r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth;
        })
        .slice(0, maxImages);
      for (const img of captured) if (img.loading === 'lazy') img.loading = 'eager';
      await Promise.race([Promise.all(captured.map((img) => img.decode().catch(() => undefined))), timeUp]);
      // Text drawn by an image's arrival (a late layout) may need a font the first wait did not.
      await Promise.race([document.fonts.ready, timeUp]);
    },
    { wholePage, maxMs: Math.floor(budget.remaining() / 2), maxImages: MAX_AWAITED_IMAGES },
  );
}

async function applyPageChanges(page: Page, req: PageSpec, budget: Budget): Promise<void> {
  if (req.css) await page.addStyleTag({ content: req.css });
  if (req.js) {
    try {
      await page.addScriptTag({ content: req.js });
    } catch (err) {
      throw renderFailed(`js could not be added: ${firstLine(err)}`, err);
    }
  }
  if (req.hideSelectors?.length) await hide(page, req.hideSelectors);
  if (req.scrollPage) await scrollThrough(page, budget);
  if (req.delay > 0) await page.waitForTimeout(Math.min(req.delay, budget.remaining()));
}

async function hide(page: Page, selectors: string[]): Promise<void> {
  const bad = await page.evaluate((sels) => {
    for (const [i, sel] of sels.entries()) {
      try {
        document
          .querySelectorAll<HTMLElement>(sel)
          .forEach((el) => el.style.setProperty('visibility', 'hidden', 'important'));
      } catch {
        return i;
      }
    }
    return -1;
  }, selectors);
  if (bad >= 0)
    throw invalidRequest('hideSelectors holds an invalid CSS selector', [
      { path: `hideSelectors.${bad}`, message: 'not a valid CSS selector' },
    ]);
}

/** Scroll down a viewport at a time so lazy content loads, then back to the top and wait for images. */
async function scrollThrough(page: Page, budget: Budget): Promise<void> {
  await page.evaluate(
    async (maxMs) => {
      const until = Date.now() + maxMs;
      const pause = () => new Promise((r) => setTimeout(r, 100));
      for (let y = 0; y < document.documentElement.scrollHeight && Date.now() < until; y += innerHeight) {
        scrollTo(0, y);
        await pause();
      }
      scrollTo(0, 0);
      const pending = [...document.images].filter((img) => !img.complete);
      await Promise.race([
        Promise.all(
          pending.map(
            (img) =>
              new Promise((r) => {
                img.addEventListener('load', r);
                img.addEventListener('error', r);
              }),
          ),
        ),
        new Promise((r) => setTimeout(r, Math.max(0, until - Date.now()))),
      ]);
    },
    Math.max(0, budget.remaining() - 500),
  );
}

export function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.replace(/^\w+\.\w+: /, '');
}
