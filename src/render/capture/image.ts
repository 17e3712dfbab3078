import type { BrowserContext, CDPSession, Page } from 'playwright';
import type { Box } from '../../domain/geometry.js';
import { fitToCaps, truncationOf, type ImageCaps } from './image-caps.js';
import { measureBoxes } from '../page-reads/measure-boxes.js';
import { readPageFacts, type FactsRequest } from '../page-reads/page-facts.js';
import { type PageFacts } from '../../domain/page-facts.js';
import { elementRect, readLayout, type Layout, type Rect } from '../page-reads/page-geometry.js';
import type { ImageSpec } from '../../domain/render-spec.js';
import { deviceScaleFor, viewportFor } from '../browser/viewport.js';

export interface ImageCapture {
  bytes: Buffer;
  contentType: string;
  /** A size cap cut the image. */
  truncated: boolean;
  /** Which cut, as X-Truncated says it ("full-page", "width", "height", "width, height"). */
  truncation?: string;
  /** Boxes of the measured selectors, in image pixels of this capture. */
  boxes?: Box[];
  /** What `facts` asked to read, from the page as captured. */
  facts?: PageFacts;
}

const CONTENT_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

/**
 * Every size that decides the bitmap comes from the request (viewport, scale, clip) or from the
 * browser over CDP (content size, element box, visible region), never from the page's JavaScript,
 * which can redefine devicePixelRatio, scrollHeight and the rest; and every region is cut to the caps.
 */
export async function captureImage(
  page: Page,
  context: BrowserContext,
  req: ImageSpec,
  caps: ImageCaps,
  measureSelectors: string[] = [],
  factsRequest?: FactsRequest,
): Promise<ImageCapture> {
  const format = req.format === 'jpg' ? 'jpeg' : req.format;
  const quality = format === 'png' ? undefined : (req.quality ?? 80);
  // The context was made with this scale (ownContextOptions), so it is what Playwright draws at.
  const scale = deviceScaleFor(req);
  // The CDP session and the layout are asked for only when something needs them: a plain viewport
  // PNG or JPEG (the common render) needs neither, and costs no extra round trips.
  let cdp: CDPSession | undefined;
  const session = async () => (cdp ??= await context.newCDPSession(page));
  let measured: Promise<Layout> | undefined;
  const layout = () => (measured ??= session().then(readLayout));
  try {
    // The viewport and a clip were checked against the caps up front (the schema, and the renderer
    // for stored requests); a full page and an element have their size only now. A clip goes through
    // the same cut, which leaves it whole.
    let clip: Rect | undefined = req.clip;
    if (req.fullPage) clip = { x: 0, y: 0, ...(await layout()).content };
    if (req.selector) clip = await elementRect(await session(), req.selector, await layout());
    let truncation: string | undefined;
    if (clip) {
      const fitted = fitToCaps(clip.width, clip.height, scale, caps);
      clip = { ...clip, width: fitted.width, height: fitted.height };
      truncation = truncationOf(fitted.cut, req.fullPage);
    }

    const area = async () => clip ?? { ...(await layout()).layoutScroll, ...viewportFor(req) };
    const boxes = measureSelectors.length
      ? await measureBoxes(page, measureSelectors, await area(), await layout(), scale)
      : undefined;
    const facts = factsRequest
      ? await readPageFacts(page, factsRequest, await area(), await layout(), scale)
      : undefined;
    let bytes: Buffer;
    if (format === 'webp') {
      const shot = await webpScreenshot(page, await session(), clip, quality!, req, {
        layout: clip ? undefined : await layout(),
        scale,
        caps,
      });
      bytes = shot.bytes;
      truncation ??= shot.truncation;
    } else {
      // fullPage lets a clip reach below the first screen; Playwright then reads it in page coordinates.
      bytes = await page.screenshot({
        type: format,
        quality,
        clip,
        fullPage: clip !== undefined,
        omitBackground: req.omitBackground,
        animations: req.animations,
        caret: req.caret,
        scale: 'device',
      });
    }
    return {
      bytes,
      contentType: CONTENT_TYPES[format],
      truncated: truncation !== undefined,
      truncation,
      ...(boxes && { boxes }),
      ...(facts && { facts }),
    };
  } finally {
    await cdp?.detach().catch(() => undefined);
  }
}

/**
 * Playwright screenshots only PNG and JPEG; Chromium itself encodes WebP, so ask it over CDP. CDP's
 * clip scale is output pixels per CSS pixel: the device scale (and pinch zoom, on a mobile device's
 * visible region), or a WebP would come out smaller than the PNG of the same page. Without a clip the
 * region is the visible one as CDP measures it, cut to the caps like any other.
 */
async function webpScreenshot(
  page: Page,
  cdp: CDPSession,
  clip: Rect | undefined,
  quality: number,
  req: ImageSpec,
  /** `layout` is needed only without a clip: then the region is the visible one. */
  at: { layout: Layout | undefined; scale: number; caps: ImageCaps },
): Promise<{ bytes: Buffer; truncation?: string }> {
  if (req.animations === 'disabled') {
    await page
      .evaluate(() =>
        document.getAnimations().forEach((a) => {
          try {
            a.finish();
          } catch {
            a.cancel();
          } // infinite animations cannot finish
        }),
      )
      .catch(() => undefined);
  }
  if (req.caret === 'hide') await page.addStyleTag({ content: '*{caret-color:transparent !important}' });
  let region = clip ? { ...clip, scale: at.scale } : { ...at.layout!.visible, scale: at.scale * at.layout!.pinchZoom };
  let truncation: string | undefined;
  if (!clip) {
    const fitted = fitToCaps(region.width, region.height, region.scale, at.caps);
    region = { ...region, width: fitted.width, height: fitted.height };
    truncation = truncationOf(fitted.cut, false);
  }
  try {
    if (req.omitBackground)
      await cdp.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
    const shot = await cdp.send('Page.captureScreenshot', {
      format: 'webp',
      quality,
      captureBeyondViewport: true,
      clip: region,
    });
    return { bytes: Buffer.from(shot.data, 'base64'), truncation };
  } finally {
    // The page may be a warm one: the next render must not inherit a transparent background.
    if (req.omitBackground) await cdp.send('Emulation.setDefaultBackgroundColorOverride', {}).catch(() => undefined);
  }
}
