import type { BrowserContext, Page } from 'playwright';
import { renderFailed } from '../errors.js';
import type { ImageRequest } from '../http/schemas/render.js';
import { fitToCaps, truncationOf, type ImageCaps } from './image-caps.js';

export interface ImageCapture {
  bytes: Buffer;
  contentType: string;
  /** A size cap cut the image. */
  truncated: boolean;
  /** Which cut, as X-Truncated says it ("full-page", "width", "height", "width, height"). */
  truncation?: string;
  /** Boxes of the measured selectors, in image pixels of this capture. */
  boxes?: Box[];
}

/** A rectangle in image pixels (device pixels from the top-left of the captured image). */
export interface Box { x: number; y: number; width: number; height: number }

/** A rectangle in document coordinates (CSS pixels from the top-left of the page, not the viewport). */
type Clip = { x: number; y: number; width: number; height: number };

const CONTENT_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

export async function captureImage(
  page: Page, context: BrowserContext, req: ImageRequest, caps: ImageCaps, measureSelectors: string[] = [],
): Promise<ImageCapture> {
  const format = req.format === 'jpg' ? 'jpeg' : req.format;
  const quality = format === 'png' ? undefined : (req.quality ?? 80);
  // The viewport and a clip were checked against the caps up front (the schema); a full page and an
  // element have their size only now, so they are cut here. A clip goes through the same cut, which
  // leaves it whole, in case the page's scale is not the one the schema counted.
  let clip: Clip | undefined = req.clip;
  if (req.fullPage) {
    const size = await page.evaluate(() => ({
      width: Math.max(document.documentElement.scrollWidth, document.body?.scrollWidth ?? 0, innerWidth),
      height: Math.max(document.documentElement.scrollHeight, document.body?.scrollHeight ?? 0),
    }));
    clip = { x: 0, y: 0, ...size };
  }
  if (req.selector) clip = await elementClip(page, req.selector);
  let truncation: string | undefined;
  if (clip) {
    const fitted = fitToCaps(clip.width, clip.height, await page.evaluate(() => devicePixelRatio), caps);
    clip = { ...clip, width: fitted.width, height: fitted.height };
    truncation = truncationOf(fitted.cut, req.fullPage);
  }

  const boxes = measureSelectors.length ? await measureBoxes(page, measureSelectors, clip) : undefined;
  const bytes = format === 'webp'
    ? await webpScreenshot(page, context, clip, quality!, req)
    // fullPage lets a clip reach below the first screen; Playwright then reads it in page coordinates.
    : await page.screenshot({
      type: format, quality, clip, fullPage: clip !== undefined, omitBackground: req.omitBackground,
      animations: req.animations, caret: req.caret, scale: 'device',
    });
  return { bytes, contentType: CONTENT_TYPES[format], truncated: truncation !== undefined, truncation, ...(boxes && { boxes }) };
}

/**
 * Where the selectors' elements are in the image about to be taken: document boxes moved to the
 * capture's origin (the clip, or the scrolled viewport) and scaled to device pixels, rounded outward.
 */
async function measureBoxes(page: Page, selectors: string[], clip: Clip | undefined): Promise<Box[]> {
  const measured = await page.evaluate(({ selectors, clip }) => {
    const origin = clip ?? { x: scrollX, y: scrollY };
    const boxes: { x: number; y: number; width: number; height: number }[] = [];
    for (const selector of selectors) {
      let elements: NodeListOf<Element>;
      try {
        elements = document.querySelectorAll(selector);
      } catch {
        return { invalid: selector };
      }
      for (const el of elements) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) continue;
        const x0 = (r.x + scrollX - origin.x) * devicePixelRatio;
        const y0 = (r.y + scrollY - origin.y) * devicePixelRatio;
        const x = Math.floor(x0);
        const y = Math.floor(y0);
        boxes.push({ x, y, width: Math.ceil(x0 + r.width * devicePixelRatio) - x, height: Math.ceil(y0 + r.height * devicePixelRatio) - y });
      }
    }
    return { boxes };
  }, { selectors, clip });
  if ('invalid' in measured) throw renderFailed(`ignoreSelectors: "${measured.invalid}" is not a valid CSS selector`);
  return measured.boxes;
}

/**
 * The element's box in document coordinates. Missing elements fail at once rather than waiting out
 * the timeout: the page is already loaded and ready by now.
 */
async function elementClip(page: Page, selector: string): Promise<Clip> {
  const box = await page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return { x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height };
  }, selector).catch(() => { throw renderFailed(`selector "${selector}" is not a valid CSS selector`); });
  if (!box) throw renderFailed(`selector "${selector}" matched no element`);
  if (box.width === 0 || box.height === 0) throw renderFailed(`selector "${selector}" matched an element with no visible box`);
  return box;
}

/** Playwright screenshots only PNG and JPEG; Chromium itself encodes WebP, so ask it over CDP. */
async function webpScreenshot(page: Page, context: BrowserContext, clip: Clip | undefined, quality: number, req: ImageRequest): Promise<Buffer> {
  if (req.animations === 'disabled') {
    await page.evaluate(() => document.getAnimations().forEach((a) => {
      try { a.finish(); } catch { a.cancel(); } // infinite animations cannot finish
    })).catch(() => undefined);
  }
  if (req.caret === 'hide') await page.addStyleTag({ content: '*{caret-color:transparent !important}' });
  // CDP's clip scale is output pixels per CSS pixel: the device pixel ratio (and pinch zoom, on a
  // mobile device's layout viewport), or a WebP would come out smaller than the PNG of the same page.
  const view = await page.evaluate(() => ({
    x: scrollX, y: scrollY, width: visualViewport?.width ?? innerWidth, height: visualViewport?.height ?? innerHeight,
    dpr: devicePixelRatio, zoom: visualViewport?.scale ?? 1,
  }));
  const region = clip ? { ...clip, scale: view.dpr } : { x: view.x, y: view.y, width: view.width, height: view.height, scale: view.dpr * view.zoom };
  const cdp = await context.newCDPSession(page);
  try {
    if (req.omitBackground) await cdp.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
    const shot = await cdp.send('Page.captureScreenshot', { format: 'webp', quality, captureBeyondViewport: true, clip: region });
    return Buffer.from(shot.data, 'base64');
  } finally {
    // The page may be a warm one: the next render must not inherit a transparent background.
    if (req.omitBackground) await cdp.send('Emulation.setDefaultBackgroundColorOverride', {}).catch(() => undefined);
    await cdp.detach().catch(() => undefined);
  }
}
