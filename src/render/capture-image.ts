import type { BrowserContext, Page } from 'playwright';
import { renderFailed } from '../errors.js';
import type { ImageRequest } from '../http/schemas/render.js';

export interface ImageCapture { bytes: Buffer; contentType: string; truncated: boolean }

type Clip = { x: number; y: number; width: number; height: number };

const CONTENT_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

export async function captureImage(page: Page, context: BrowserContext, req: ImageRequest, maxFullPageHeight: number): Promise<ImageCapture> {
  const format = req.format === 'jpg' ? 'jpeg' : req.format;
  const quality = format === 'png' ? undefined : (req.quality ?? 80);
  let clip: Clip | undefined = req.clip;
  let truncated = false;

  if (req.fullPage) {
    const size = await page.evaluate(() => ({
      width: Math.max(document.documentElement.scrollWidth, document.body?.scrollWidth ?? 0, innerWidth),
      height: Math.max(document.documentElement.scrollHeight, document.body?.scrollHeight ?? 0),
    }));
    if (size.height > maxFullPageHeight) {
      truncated = true;
      clip = { x: 0, y: 0, width: size.width, height: maxFullPageHeight };
    } else if (format === 'webp') {
      clip = { x: 0, y: 0, ...size };
    }
  }
  if (req.selector) clip = await elementClip(page, req.selector, format === 'webp');

  const bytes = format === 'webp'
    ? await webpScreenshot(page, context, clip ?? await viewportClip(page), quality!, req)
    : await page.screenshot({
      type: format, quality, clip, fullPage: req.fullPage, omitBackground: req.omitBackground,
      animations: req.animations, caret: req.caret, scale: 'device',
    });
  return { bytes, contentType: CONTENT_TYPES[format], truncated };
}

/**
 * The element's box in document coordinates. Missing elements fail at once rather than waiting out
 * the timeout: the page is already loaded and ready by now.
 */
async function elementClip(page: Page, selector: string, documentCoordinates: boolean): Promise<Clip> {
  const element = page.locator(selector).first();
  if ((await page.locator(selector).count()) === 0) throw renderFailed(`selector "${selector}" matched no element`);
  await element.scrollIntoViewIfNeeded();
  const box = await element.boundingBox();
  if (!box || box.width === 0 || box.height === 0) throw renderFailed(`selector "${selector}" matched an element with no visible box`);
  const scroll = await page.evaluate(() => ({ x: scrollX, y: scrollY }));
  // Playwright's clip is relative to the viewport; CDP's (webp) to the document.
  return documentCoordinates ? { ...box, x: box.x + scroll.x, y: box.y + scroll.y } : box;
}

async function viewportClip(page: Page): Promise<Clip> {
  return page.evaluate(() => ({ x: scrollX, y: scrollY, width: innerWidth, height: innerHeight }));
}

/** Playwright screenshots only PNG and JPEG; Chromium itself encodes WebP, so ask it over CDP. */
async function webpScreenshot(page: Page, context: BrowserContext, clip: Clip, quality: number, req: ImageRequest): Promise<Buffer> {
  if (req.animations === 'disabled') {
    await page.evaluate(() => document.getAnimations().forEach((a) => {
      try { a.finish(); } catch { a.cancel(); } // infinite animations cannot finish
    })).catch(() => undefined);
  }
  if (req.caret === 'hide') await page.addStyleTag({ content: '*{caret-color:transparent !important}' });
  const cdp = await context.newCDPSession(page);
  try {
    if (req.omitBackground) await cdp.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
    const shot = await cdp.send('Page.captureScreenshot', {
      format: 'webp', quality, captureBeyondViewport: true, clip: { ...clip, scale: 1 },
    });
    return Buffer.from(shot.data, 'base64');
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}
