import { chromium, type Browser, type BrowserContext, type Page } from 'playwright';
import type { RenderFn } from './measure.js';
import { findChromium } from '../src/render/browser/chromium-path.js';
import { CHROMIUM_FEATURES_ARG } from '../src/render/browser/launch.js';

export type Format = 'png' | 'pdf';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** The Chromium the service would launch with its defaults (PAGEWATCH_CHROMIUM_PATH, else the one it finds). */
export function chromiumPath(): string {
  const path = findChromium(process.env.PAGEWATCH_CHROMIUM_PATH ?? '');
  if (!path) throw new Error('no Chromium found: set PAGEWATCH_CHROMIUM_PATH or run npm install');
  return path;
}

export function launchRaw(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}

/** Raw Chromium with the service's features (RenderDocument off: the cheapest unload measured). */
export function launchRawWithServiceFeatures(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_ARGS, CHROMIUM_FEATURES_ARG] });
}

/**
 * Output equivalent to the service's defaults for {html, format:'png'} and {html}:
 * 1280x800 viewport, viewport-sized PNG; A4 PDF, 10 mm margins, backgrounds, tagged.
 */
export const VIEWPORT = { width: 1280, height: 800 };
const PDF_OPTIONS = {
  format: 'A4',
  margin: { top: '10mm', right: '10mm', bottom: '10mm', left: '10mm' },
  printBackground: true,
  tagged: true,
} as const;

async function capture(page: Page, format: Format): Promise<void> {
  const buf = format === 'png' ? await page.screenshot({ type: 'png' }) : await page.pdf(PDF_OPTIONS);
  if (buf.length === 0) throw new Error(`empty ${format} from raw Playwright`);
}

/** `n` pages, each in its own context, warmed with one render each. */
export async function openWarmPages(browser: Browser, n: number, html: string): Promise<Page[]> {
  const pages: Page[] = [];
  for (let i = 0; i < n; i++) {
    const context: BrowserContext = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    await page.setContent(html);
    pages.push(page);
  }
  return pages;
}

/** (a) reused warm page per client: `load` (nothing is wiped) + capture. */
function warmRenderer(pages: readonly Page[], load: (page: Page) => Promise<unknown>, format: Format): RenderFn {
  return async (client) => {
    const page = pages[client];
    if (!page) throw new Error(`no warm page for client ${client}`);
    await load(page);
    await capture(page, format);
  };
}

/** (a) for HTML: setContent + capture. */
export function rawWarmRenderer(pages: readonly Page[], html: string, format: Format): RenderFn {
  return warmRenderer(pages, (page) => page.setContent(html), format);
}

/** (a) for a URL: the page navigates to it (one navigation, the least a URL can cost) + capture. */
export function rawWarmUrlRenderer(pages: readonly Page[], url: string, format: Format): RenderFn {
  return warmRenderer(pages, (page) => page.goto(url), format);
}

/**
 * (f) the bare page on a fresh Document every render, as the service's isolation requires: the unload to
 * `about:blank` before `load`, and nothing else of the wipe. The least any render with that guarantee costs.
 */
export function rawFreshDocumentRenderer(
  pages: readonly Page[],
  load: (page: Page) => Promise<unknown>,
  format: Format,
): RenderFn {
  const unloadThenLoad = async (page: Page): Promise<void> => {
    await page.goto('about:blank');
    await load(page);
  };
  return warmRenderer(pages, unloadThenLoad, format);
}

/** (b) new context + page per render, closed afterwards. */
export function rawNewContextRenderer(browser: Browser, html: string, format: Format): RenderFn {
  return async () => {
    const context = await browser.newContext({ viewport: VIEWPORT });
    try {
      const page = await context.newPage();
      await page.setContent(html);
      await capture(page, format);
    } finally {
      await context.close();
    }
  };
}
