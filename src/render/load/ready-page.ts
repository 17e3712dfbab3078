// The post-load steps of a render: the document ready as `waitUntil` says, the caller's waits (selector,
// function, fonts and images), then the caller's css/js/hide/scroll/delay. They follow prepare.ts
// (which gets the page to its loaded document); the renderer runs them again if the page moves on.
import type { Page } from 'playwright';
import { errors as pwErrors } from 'playwright';
import { invalidRequest, renderFailed } from '../../errors.js';
import { WAIT_RESERVE_MS, type Budget } from '../budget.js';
import { commitThenWait, documentReady, firstLine } from './prepare.js';
import type { PageSpec } from '../../domain/render-spec.js';
import { awaitsNothing } from './inert-html.js';
import type { LoadClock } from '../load-clock.js';
import { inSpan } from '../../tracing/spans.js';

/** One span per wait, named by what it waits for ("wait waitForSelector", "wait fonts and images", "wait delay"). */
const waitSpan = <T>(what: string, fn: () => Promise<T>): Promise<T> =>
  inSpan(`wait ${what}`, { 'pagewatch.wait': what }, fn);

/**
 * The post-load steps: the document ready as `waitUntil` says, the caller's waits, then the caller's
 * css/js/hide/scroll/delay. Run again by the renderer if the page moves to another document.
 */
export async function readyPage(page: Page, req: PageSpec, budget: Budget, clock?: LoadClock): Promise<void> {
  let endedBy: string = req.waitUntil;
  if (!req.waitForSelector && !req.waitForFunction && req.javaScriptEnabled && !awaitsNothing(req)) {
    // No wait of the caller's own between them: one round trip waits for the document, then its fonts and images.
    const gaveUp = await waitSpan('fonts and images', () =>
      fontsAndImagesReady(page, wholePage(req), budget, commitThenWait(req) ? req.waitUntil : undefined),
    );
    if (gaveUp) endedBy = FONTS_AND_IMAGES_TIMEOUT;
  } else {
    if (commitThenWait(req)) await waitSpan(req.waitUntil, () => documentReady(page, req)); // else loaded already
    endedBy = await waitUntilReady(page, req, budget);
  }
  if (clock) {
    clock.endedBy = endedBy;
    clock.lap('waits');
  }
  await applyPageChanges(page, req, budget, clock);
}

/** endedBy when the wait for fonts and images ran out of its time (half the budget left) and the page was taken as it was. */
export const FONTS_AND_IMAGES_TIMEOUT = 'fontsAndImagesTimeout';

const wholePage = (req: PageSpec) => !('fullPage' in req) || req.fullPage === true;

/** The caller's waits; says which one ended the load. */
async function waitUntilReady(page: Page, req: PageSpec, budget: Budget): Promise<string> {
  let endedBy: string = req.waitUntil;
  if (req.waitForSelector) {
    endedBy = 'waitForSelector';
    const selector = req.waitForSelector;
    try {
      await waitSpan('waitForSelector', () =>
        page
          .locator(selector)
          .first()
          .waitFor({ state: 'visible', timeout: budget.remaining(WAIT_RESERVE_MS) }),
      );
    } catch (err) {
      if (err instanceof pwErrors.TimeoutError)
        throw renderFailed(`waitForSelector "${req.waitForSelector}" never became visible`);
      throw renderFailed(`waitForSelector "${req.waitForSelector}": ${firstLine(err)}`, err);
    }
  }
  if (req.waitForFunction) {
    endedBy = 'waitForFunction';
    const expression = req.waitForFunction;
    try {
      await waitSpan('waitForFunction', () =>
        page.waitForFunction(untilTruthy, expression, { timeout: budget.remaining(WAIT_RESERVE_MS) }),
      );
    } catch (err) {
      if (err instanceof pwErrors.TimeoutError) throw renderFailed('waitForFunction never became truthy');
      throw renderFailed(`waitForFunction failed: ${firstLine(err)}`, err);
    }
  }
  if (
    req.javaScriptEnabled &&
    !awaitsNothing(req) &&
    (await waitSpan('fonts and images', () => fontsAndImagesReady(page, wholePage(req), budget)))
  )
    endedBy = FONTS_AND_IMAGES_TIMEOUT;
  if (!req.javaScriptEnabled && (await waitSpan('fonts', () => fontsSettledWithoutScript(page, budget))))
    endedBy = FONTS_AND_IMAGES_TIMEOUT;
  return endedBy;
}

/** How often a page that runs no script is asked whether a font is still loading. */
const FONT_POLL_MS = 25;

/**
 * The fonts wait of a page that runs no script: no timer or event listener of ours runs there either, so the
 * page is asked for its fonts' status until none is loading, for at most half of what is left of the budget
 * (as fontsAndImagesReady). Resolves true when it ran out of that time.
 */
async function fontsSettledWithoutScript(page: Page, budget: Budget): Promise<boolean> {
  const until = Date.now() + budget.remaining() / 2;
  while (Date.now() < until) {
    const status = await page.evaluate(() => {
      void document.documentElement?.offsetWidth; // layout asks for the fonts the page uses
      return document.fonts.status;
    });
    if (status === 'loaded') return false;
    await new Promise((resolve) => setTimeout(resolve, FONT_POLL_MS));
  }
  return true;
}

/**
 * The caller's waitForFunction, evaluated in the page until it is truthy. Playwright's own wait takes a
 * returned promise as truthy whatever it settles to; here a promise (any thenable) is awaited, and the
 * expression counts as ready only when it settles truthy. A falsy result, settled or not, is evaluated
 * again on the next animation frame (as Playwright polls); a rejection ends the wait with its error (422);
 * a promise that never settles runs into the wait's timeout like a falsy value. An expression that is a
 * function is called, as Playwright does. The loop runs in the page, so Playwright's timeout does not stop
 * it: the document it runs in is unloaded when the render ends (the page's wipe, or its closing).
 */
async function untilTruthy(expression: string): Promise<unknown> {
  for (;;) {
    let value: unknown = globalThis.eval(expression);
    if (typeof value === 'function') value = (value as () => unknown)();
    value = await value;
    if (value) return value;
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
}

/** At most this many images are waited for: the page decides how many there are. */
const MAX_AWAITED_IMAGES = 500;

/**
 * Fonts loaded and the images of the captured area decoded, so the capture does not catch them half-drawn
 * (an image that arrives late would otherwise read as a change). The captured area is the viewport, or the
 * whole document for a full-page capture or a PDF: there, `loading="lazy"` images are switched to eager
 * first, since nothing scrolls them into view before the capture. The wait takes at most half of what is
 * left of the render's budget; an image that never arrives is captured as it is then. With `loaded`, it
 * first waits for the document to reach that state as documentReady does (which has no time limit either:
 * the render's timeout closes the page). Resolves true when it ran out of that time (said in the same round trip).
 */
async function fontsAndImagesReady(
  page: Page,
  wholePage: boolean,
  budget: Budget,
  loaded?: PageSpec['waitUntil'],
): Promise<boolean> {
  return page.evaluate(
    async ({ wholePage, maxMs, maxImages, loaded }) => {
      if (loaded === 'load' && document.readyState !== 'complete')
        await new Promise((resolve) => window.addEventListener('load', resolve, { once: true }));
      if (loaded && loaded !== 'load' && document.readyState === 'loading')
        await new Promise((resolve) => document.addEventListener('DOMContentLoaded', resolve, { once: true }));
      // Settled once no font is loading. document.fonts.ready would also wait for the document's load, which a
      // page still loading (an image that never arrives) reaches only at the timeout. Layout runs first: it is
      // what asks for the fonts the page uses.
      const fontsSettled = async () => {
        for (;;) {
          void document.documentElement?.offsetWidth;
          if (document.fonts.status === 'loaded') return;
          await new Promise((resolve) => {
            document.fonts.addEventListener('loadingdone', resolve, { once: true });
            document.fonts.addEventListener('loadingerror', resolve, { once: true });
          });
        }
      };
      let ranOut = false;
      const timeUp = new Promise<void>((resolve) =>
        setTimeout(() => {
          ranOut = true;
          resolve();
        }, maxMs),
      );
      await Promise.race([fontsSettled(), timeUp]);
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
      await Promise.race([fontsSettled(), timeUp]);
      return ranOut;
    },
    { wholePage, maxMs: Math.floor(budget.remaining() / 2), maxImages: MAX_AWAITED_IMAGES, loaded },
  );
}

async function applyPageChanges(page: Page, req: PageSpec, budget: Budget, clock?: LoadClock): Promise<void> {
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
  clock?.lap('pageChanges');
  if (req.delay > 0) {
    await waitSpan('delay', () => page.waitForTimeout(Math.min(req.delay, budget.remaining())));
    if (clock) {
      clock.endedBy = 'delay';
      clock.lap('delay');
    }
  }
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
