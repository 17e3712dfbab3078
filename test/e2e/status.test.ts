// The status page in a real browser against the running service: live figures that move with work.
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let svc: TestService;
let browser: Browser;
let page: Page;
const shots = process.env.E2E_SCREENSHOTS; // a folder: screenshots are written there to be looked at

beforeAll(async () => {
  svc = await startTestService();
  browser = await chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

const field = (name: string) => page.locator(`[data-field="${name}"]`);

it('shows the service figures and refreshes them live as renders happen', async () => {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(`${svc.url}/status`);
  await expect.poll(() => page.locator('#overall').textContent(), { timeout: 15_000 }).toBe('All systems working');
  expect(await field('browser.up').textContent()).toBe('Up');
  expect(await field('version').textContent()).toMatch(/^\d+\.\d+\.\d+/);
  expect(await field('render.queueSize').textContent()).toBe('100');
  const before = Number(await field('browser.renders').textContent());

  for (let i = 0; i < 3; i++) {
    const res = await svc.post('/api/image', { html: `<p>${i}</p>`, viewport: { width: 100, height: 100 } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  }
  // No reload: the page's own refresh brings the new count.
  await until(
    'the page to show 3 more renders',
    async () => Number(await field('browser.renders').textContent()) >= before + 3,
    15_000,
  );

  const key = svc.createKey();
  await svc.call('POST', '/api/monitors', key.key, { url: 'http://127.0.0.1:9/', schedule: '0 0 1 1 *' });
  await until('the monitor count', async () => (await field('monitors.active').textContent()) === '1', 15_000);
  expect(await field('monitors.nextRuns').locator('time').count()).toBe(1);
  expect(errors).toEqual([]);
  if (shots) await page.screenshot({ path: `${shots}/status-1280.png`, fullPage: true });
});

it('is usable on a phone and reachable by keyboard', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${svc.url}/status`);
  await expect.poll(() => page.locator('#overall').textContent(), { timeout: 15_000 }).toBe('All systems working');
  // No horizontal scrolling on a phone.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
  if (shots) await page.screenshot({ path: `${shots}/status-390.png`, fullPage: true });
});

it('says so when the service cannot be reached', async () => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${svc.url}/status`);
  await expect.poll(() => page.locator('#overall').textContent(), { timeout: 15_000 }).toBe('All systems working');
  await page.route('**/api/status', (route) => route.abort());
  await until(
    'the unreachable badge',
    async () => (await page.locator('#overall').textContent()) === 'Unreachable',
    15_000,
  );
  expect(await page.locator('#error').isVisible()).toBe(true);
});

it('with auth.publicOperations false: asks for a key, then shows the figures with the key the dashboard saved', async () => {
  const closed = await startTestService({ auth: { publicOperations: false } });
  try {
    await page.unrouteAll(); // the test before cut the page off from /api/status
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${closed.url}/status`);
    await until(
      'the key notice',
      async () => (await page.locator('#overall').textContent()) === 'Needs an API key',
      15_000,
    );
    const notice = page.locator('#error');
    expect(await notice.innerText()).toContain('API key holders only');
    expect(await notice.locator('a').getAttribute('href')).toBe('/monitors');
    // The dashboard keeps the key in localStorage; the status page reads it from there.
    await page.evaluate((key) => localStorage.setItem('pagewatch.apiKey', key), closed.createKey('status').key);
    await until(
      'the figures',
      async () => (await page.locator('#overall').textContent()) === 'All systems working',
      15_000,
    );
    expect(await notice.isVisible()).toBe(false);
    expect(await field('browser.up').textContent()).toBe('Up');
    // Where the figures are public, a stale saved key does not lock the page: it is not sent. (Saved on
    // the public service's own origin: another port is another localStorage.)
    await page.goto(`${svc.url}/status`);
    await page.evaluate(() => localStorage.setItem('pagewatch.apiKey', 'pw_live_stale'));
    await page.reload();
    await until(
      'the public figures',
      async () => (await page.locator('#overall').textContent()) === 'All systems working',
      15_000,
    );
    expect(await page.evaluate(() => localStorage.getItem('pagewatch.apiKey'))).toBe('pw_live_stale');
  } finally {
    await page.evaluate(() => localStorage.removeItem('pagewatch.apiKey')).catch(() => undefined);
    await page.goto(`${closed.url}/status`).catch(() => undefined);
    await page.evaluate(() => localStorage.removeItem('pagewatch.apiKey')).catch(() => undefined);
    await closed.close();
  }
});
