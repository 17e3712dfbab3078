// How the service launches Chromium, read from the real browser: the headless shell when it is installed,
// Chromium's features as the service sets them (Playwright's own list kept, RenderDocument off), and site
// isolation on (the headless shell has it off unless told).
import { existsSync, readFileSync } from 'node:fs';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { launchChromium, type LaunchedBrowser } from '../../src/render/browser/launch.js';

const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';
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
  it('is the headless shell when it is installed (npm install installs it on Debian)', () => {
    expect(existsSync(HEADLESS_SHELL)).toBe(true);
    expect(findChromium('')).toBe(HEADLESS_SHELL);
  });

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

  it("puts a page's cross-site frame in a process of its own", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.route('**/*', (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: route.request().url().includes('127.0.0.2')
            ? '<p>frame</p>'
            : '<iframe src="http://127.0.0.2:8/f"></iframe>',
        }),
      );
      await page.goto('http://127.0.0.1:8/');
      await page.frames()[1]!.waitForLoadState();
      const cdp = await browser.newBrowserCDPSession();
      const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: { type: string; url: string }[] };
      await cdp.detach();
      // An out-of-process frame is a target of its own; a frame in its parent's renderer is not.
      expect(targetInfos.filter((t) => t.type === 'iframe').map((t) => t.url)).toEqual(['http://127.0.0.2:8/f']);
    } finally {
      await context.close();
    }
  });
});
