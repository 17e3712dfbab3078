// How the service launches Chromium, read from the real browser: the leader of its process group, with
// Playwright's own disabled features kept and RenderDocument off; and what RenderDocument off asks of the
// capture: a page still loading (an image that never arrives) is captured at once, not at the timeout.
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { launchChromium, type LaunchedBrowser } from '../../src/render/browser/launch.js';

let launched: LaunchedBrowser;
let browser: Browser;

beforeAll(async () => {
  const executablePath = findChromium('');
  if (!executablePath) throw new Error('no Chromium: run npm install');
  // Every request below is answered by a route, so the proxy is never asked; nothing listens on port 9.
  launched = await launchChromium({
    executablePath,
    proxyUrl: 'http://127.0.0.1:9',
    sandbox: process.geteuid?.() !== 0,
  });
  browser = launched.browser;
});
afterAll(async () => {
  await browser?.close();
});

/** The values of every `--disable-features` in the browser process's command line, in order. */
function disabledFeatureLists(): string[][] {
  const args = readFileSync(`/proc/${launched.pid}/cmdline`, 'utf8').split('\0');
  return args.filter((a) => a.startsWith('--disable-features=')).map((a) => a.split('=')[1]!.split(','));
}

describe('Chromium as the service launches it', () => {
  it('leads its process group, so a crashed browser is reaped with all its processes', () => {
    const stat = readFileSync(`/proc/${launched.pid}/stat`, 'utf8');
    const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    expect(pgrp).toBe(launched.pid);
  });

  it('keeps every feature Playwright turns off, and turns RenderDocument off (Chromium reads the last list)', () => {
    const lists = disabledFeatureLists();
    expect(lists.length).toBeGreaterThanOrEqual(2); // Playwright's, then the service's
    const [playwrights, effective] = [lists[0]!, lists.at(-1)!];
    for (const feature of playwrights) expect(effective, `Playwright's ${feature}`).toContain(feature);
    expect(effective).toContain('RenderDocument');
  });

  it('takes a screenshot of a page that is still loading at once (document.fonts.ready waits for the load)', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      // The page's image is asked for and never answered: the document stays loading for good.
      await page.route('**/never.png', () => undefined);
      await page.route('http://127.0.0.1:8/', (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: '<h1>Still loading</h1><img src="/never.png"><div style="height:3000px"></div>',
        }),
      );
      await page.goto('http://127.0.0.1:8/', { waitUntil: 'domcontentloaded' });
      expect(await page.evaluate(() => document.readyState)).toBe('interactive');
      // A screenshot takes well under a second here; 10 s without one is the wait that never ends.
      for (const fullPage of [false, true]) {
        const shot = await page.screenshot({ fullPage, timeout: 10_000 });
        expect(shot.subarray(1, 4).toString()).toBe('PNG');
      }
    } finally {
      await context.close();
    }
  });
});
