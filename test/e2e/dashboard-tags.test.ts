// Tags in the dashboard (issue 28), in a real browser against the running service, at the laptop and the
// phone width: the form's Tags field (comma-separated) saves the tags the API then has, and shows a bad
// one's problem at the field; rows show their tags; the tag filter (the key's tags from /api/tags) narrows
// the list; Pause all and Resume all act on the filtered tag only; Delete all… asks first in a dialog, and
// Cancel deletes nothing. Every state is audited with axe, and nothing scrolls sideways.
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { VIEWPORTS, violations } from '../helpers/axe.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const YEARLY = '0 0 1 1 *';
interface Monitor {
  id: string;
  name: string;
  paused: boolean;
  tags: string[];
}

let svc: TestService;
let fx: FixtureServer;
let browser: Browser;

beforeAll(async () => {
  [svc, fx, browser] = await Promise.all([
    startTestService({ rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 } }),
    startFixtureServer(),
    chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] }),
  ]);
  fx.route('/watched', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Watched</title><h1>Hello</h1>');
  });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([svc?.close(), fx?.close()]);
});

describe.each(Object.entries(VIEWPORTS))('at the %s width', (width, viewport) => {
  let page: Page;
  let owner: { key: string };
  const problems: string[] = [];
  async function monitors(): Promise<Monitor[]> {
    const res = await svc.call('GET', '/api/monitors?limit=100', owner.key);
    return ((await res.json()) as { items: Monitor[] }).items;
  }
  const byName = async (name: string) => (await monitors()).find((m) => m.name === name)!;
  const audit = async () => {
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    expect(await violations(page)).toEqual([]);
  };
  const visibleNames = () => page.locator('#monitor-rows a.name').allTextContents();

  beforeAll(async () => {
    owner = svc.createKey(`dashboard-tags-${width}`);
    // Two monitors made through the API; the third through the form below.
    for (const [name, tags] of [
      ['Other', ['news']],
      ['Plain', []],
    ] as const) {
      const res = await svc.call('POST', '/api/monitors', owner.key, {
        name,
        url: `${fx.url}/watched`,
        schedule: YEARLY,
        tags,
      });
      expect(res.status).toBe(201);
    }
    const context = await browser.newContext({ viewport, bypassCSP: true }); // bypass: axe is injected
    await context.addInitScript((key) => localStorage.setItem('pagewatch.apiKey', key), owner.key);
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => problems.push(String(err)));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push(m.text());
    });
    await page.goto(`${svc.url}/monitors`);
    await page.locator('#list-section').waitFor();
  });
  afterAll(async () => {
    await page?.context().close();
  });

  it('the Tags field: a bad tag is shown at the field; good ones are saved as the API has them', async () => {
    await page.getByRole('button', { name: 'New monitor' }).click();
    await page.locator('#f-name').fill('Shop');
    await page.locator('#f-url').fill(`${fx.url}/watched`);
    await page.locator('#f-schedule').fill(YEARLY);
    await page.locator('#f-tags').fill('Shop, prices/EU, shop');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await until('the tags error', async () =>
      ((await page.locator('#f-tags-error').textContent()) ?? '').includes('shop'),
    );
    expect(await page.locator('#f-tags').getAttribute('aria-invalid')).toBe('true');
    await audit();
    await page.locator('#f-tags').fill(' Shop ,  prices/EU ,, ');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await page.locator('#form-section').waitFor({ state: 'hidden' });
    expect((await byName('Shop')).tags).toStrictEqual(['Shop', 'prices/EU']);
    const row = page.locator('#monitor-rows tr', { hasText: 'Shop' });
    await until('the row shows its tags', async () => (await row.locator('.tag').allTextContents()).length === 2);
    expect(await row.locator('.tag').allTextContents()).toStrictEqual(['Shop', 'prices/EU']);
    await audit();
  });

  it('the tag filter narrows the list; Pause all and Resume all act on that tag only', async () => {
    await page.locator('#refresh').click();
    await until('the tag options', async () => (await page.locator('#tag-filter option').count()) === 4);
    expect(await page.locator('#tag-filter option').allTextContents()).toStrictEqual([
      'All monitors',
      'news (1)',
      'prices/EU (1)',
      'Shop (1)',
    ]);
    await page.locator('#tag-filter').selectOption('Shop');
    await until('only Shop', async () => JSON.stringify(await visibleNames()) === '["Shop"]');
    await audit();
    await page.locator('#bulk-pause').click();
    await until('Shop paused', async () => (await byName('Shop')).paused);
    expect((await byName('Other')).paused).toBe(false);
    expect((await byName('Plain')).paused).toBe(false);
    await page.locator('#bulk-resume').click();
    await until('Shop resumed', async () => !(await byName('Shop')).paused);
  });

  it('Delete all… asks first: Cancel keeps the monitors, Delete all removes the tagged ones only', async () => {
    await page.locator('#bulk-delete').click();
    await page.locator('#bulk-dialog').waitFor({ state: 'visible' });
    expect(await page.locator('#bulk-title').textContent()).toContain('Shop');
    await audit();
    await page.locator('#bulk-cancel').click();
    await page.locator('#bulk-dialog').waitFor({ state: 'hidden' });
    expect((await monitors()).map((m) => m.name).sort()).toStrictEqual(['Other', 'Plain', 'Shop']);
    await page.locator('#bulk-delete').click();
    await page.locator('#bulk-confirm').click();
    await until('Shop deleted', async () => (await monitors()).length === 2);
    expect((await monitors()).map((m) => m.name).sort()).toStrictEqual(['Other', 'Plain']);
    // The tag is gone: the list shows every monitor again.
    await until('the whole list', async () => (await visibleNames()).length === 2);
    expect(await page.locator('#tag-filter').inputValue()).toBe('');
    await audit();
    expect(problems).toStrictEqual([]);
  });
});
