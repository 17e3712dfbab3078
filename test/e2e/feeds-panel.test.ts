// The dashboard's Feeds section (issue 28, item 3), in a real Chromium against the running service: make a
// feed of the key's monitors, see its URL once (and that it opens the Atom feed without a key), rotate it
// (the old URL is 404), revoke it (the new one is 404 too); axe audits the section at laptop and phone widths.
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { VIEWPORTS, violations } from '../helpers/axe.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let browser: Browser;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 } });
  key = svc.createKey('feeds-panel').key;
  const res = await svc.call('POST', '/api/monitors', key, {
    url: 'http://127.0.0.1:9/never',
    schedule: '0 0 1 1 *',
    name: 'Kettle',
    paused: true,
  });
  expect(res.status).toBe(201);
  browser = await chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe.each(Object.entries(VIEWPORTS))('at %s width', (_name, viewport) => {
  let page: Page;
  beforeAll(async () => {
    page = await browser.newPage({ viewport, bypassCSP: true });
    page.setDefaultTimeout(15_000);
  });
  afterAll(async () => {
    await page?.close();
  });

  it('makes, shows once, rotates and revokes a feed; axe finds nothing', async () => {
    await page.goto(`${svc.url}/monitors`);
    await page.getByRole('textbox', { name: 'API key' }).fill(key);
    await page.getByRole('button', { name: 'Save key' }).click();
    const section = page.getByRole('region', { name: 'Feeds' });
    await section.waitFor({ state: 'visible' });
    expect(await violations(page)).toEqual([]);

    await section.getByLabel('Feed of').selectOption('monitor');
    await section.getByRole('combobox', { name: 'Monitor' }).waitFor();
    expect(await violations(page)).toEqual([]);
    await section.getByLabel('Feed of').selectOption('key');
    await section.getByRole('button', { name: 'Make feed' }).click();
    const urlBox = section.getByRole('textbox', { name: /New feed URL/ });
    await urlBox.waitFor();
    const first = await urlBox.inputValue();
    expect(first).toMatch(new RegExp(`^${svc.url}/feeds/[A-Za-z0-9_-]{43}$`));
    expect((await fetch(first)).status).toBe(200);
    await section.getByRole('button', { name: 'Copy URL' }).waitFor();
    expect(await violations(page)).toEqual([]);

    await section.getByRole('button', { name: 'Rotate URL of the feed: All monitors' }).first().click();
    await page.waitForFunction((old) => document.querySelector<HTMLInputElement>('#feed-url')?.value !== old, first);
    const second = await urlBox.inputValue();
    expect((await fetch(first)).status).toBe(404);
    expect((await fetch(second)).status).toBe(200);

    await section.getByRole('button', { name: 'Revoke the feed: All monitors' }).first().click();
    await urlBox.waitFor({ state: 'detached' });
    expect((await fetch(second)).status).toBe(404);
    expect(await violations(page)).toEqual([]);
  });
});
