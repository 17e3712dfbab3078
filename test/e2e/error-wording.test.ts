// Errors as a person meets them, in a real Chromium at laptop and phone widths: the converter shows the
// service's one sentence for a failed load ("Connection refused: …") with the raw code in small print, a
// field's refusal next to the field under the form's own name for it, and the body limit with the way
// out (an API key: 8 MiB); the dashboard shows a failed capture's reason and the API's field sentence.
// Every state is audited with axe. Screenshots go to E2E_SCREENSHOTS when it is set.
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { VIEWPORTS, violations } from '../helpers/axe.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const shots = process.env.E2E_SCREENSHOTS;
let svc: TestService;
let browser: Browser;
let key: string;
let closedPort: number; // nothing listens here

beforeAll(async () => {
  if (shots) mkdirSync(shots, { recursive: true });
  const closed = net.createServer().listen(0, '127.0.0.1');
  await new Promise((done) => closed.once('listening', done));
  closedPort = (closed.address() as net.AddressInfo).port;
  await new Promise((done) => closed.close(done));
  [svc, browser] = await Promise.all([
    startTestService({ jobs: { pollIntervalMs: 100 } }),
    chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] }),
  ]);
  key = svc.createKey('error-wording').key;
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe.each(Object.entries(VIEWPORTS))('at %s width', (name, viewport) => {
  let page: Page;
  const problems: string[] = [];
  beforeAll(async () => {
    // axe is injected by the test; the pages' CSP (tested by the other page tests) would refuse it.
    page = await browser.newPage({ viewport, bypassCSP: true });
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (err) => problems.push(err.message));
    // The dashboard has the key; the converter is used as a visitor without one (the anonymous limits).
    await page.addInitScript((k) => {
      if (location.pathname === '/monitors') localStorage.setItem('pagewatch.apiKey', k);
      else localStorage.removeItem('pagewatch.apiKey');
    }, key);
  });
  afterAll(async () => {
    await page?.close();
    expect(problems).toEqual([]);
  });

  const shot = async (what: string) => {
    if (shots) await page.screenshot({ path: `${shots}/errors-${what}-${viewport.width}.png`, fullPage: true });
  };

  async function openConverter(): Promise<void> {
    await page.goto(`${svc.url}/`);
    await until('the sample HTML', async () => (await page.inputValue('#html')).includes('Invoice'));
  }

  /** Clicks Convert and returns the error alert's text once it shows (a 1 MiB page takes a while to lay out). */
  async function convert(): Promise<string> {
    await page.click('#convert');
    const alert = page.locator('#error .alert');
    return until('the error alert', async () => (await alert.count()) > 0 && alert.innerText(), 60_000);
  }

  it('a closed port reads "Connection refused", once, with the raw code in small print', async () => {
    await openConverter();
    await page.click('label[for="src-url"]');
    await page.fill('#url', `http://127.0.0.1:${closedPort}/`);
    const words = await convert();
    expect(words).toContain('The page could not be rendered');
    expect(words).toContain('422 render_failed');
    const sentence = `Connection refused: nothing is listening at 127.0.0.1:${closedPort}; check the URL's host and port, and that the site is running.`;
    expect(await page.locator('#error .alert > p').nth(1).innerText()).toBe(sentence);
    expect(words.split(sentence)).toHaveLength(2); // said once
    expect(await page.locator('#error .error-raw').innerText()).toBe(
      'Technical detail: net::ERR_HTTP_RESPONSE_CODE_FAILURE (egress proxy: ECONNREFUSED)',
    );
    // The raw code is not mistaken for a field's problem.
    expect(await page.getAttribute('#url', 'aria-invalid')).toBeNull();
    // Small print, but inside the page: nothing runs off the side at phone width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    expect(await violations(page)).toEqual([]);
    await shot('refused');
  });

  it("a field over its limit: the API's sentence next to the field, under the form's name, once", async () => {
    await openConverter();
    await page.click('label[for="out-png"]');
    await page.fill('#vw', '5000');
    const words = await convert();
    const sentence = 'Viewport width can be at most 3,840 px: give a smaller number.';
    expect(await page.innerText('#vw-error')).toBe(sentence);
    expect(await page.getAttribute('#vw', 'aria-invalid')).toBe('true');
    expect(await page.locator('#error .alert li').allInnerTexts()).toEqual([sentence]);
    expect(words).toContain('Fix the highlighted field:');
    expect(words).not.toMatch(/Too big|<=|expected number/);
    expect(await violations(page)).toEqual([]);
    await shot('field');
  });

  it('HTML over the 1 MiB anonymous limit: the limit in MiB and that an API key raises it to 8 MiB', async () => {
    await openConverter();
    await page.locator('#html').evaluate((el: HTMLTextAreaElement) => {
      el.value = `<p>${'x'.repeat(1024 * 1024)}</p>`;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const words = await convert();
    expect(words).toContain('413 payload_too_large');
    expect(words).toContain(
      'The request body is larger than the limit of 1 MiB; send less, or use an API key, which raises the limit to 8 MiB.',
    );
    expect(words).not.toMatch(/bytes/);
    expect(await violations(page)).toEqual([]);
    await shot('too-large');
  });

  it("the dashboard: a failed capture's reason in words, and a field's API sentence", async () => {
    const monitorName = `Closed port ${name}`;
    const created = await svc.call('POST', '/api/monitors', key, {
      name: monitorName,
      url: `http://127.0.0.1:${closedPort}/`,
      schedule: '0 0 1 1 *',
    });
    expect(created.status).toBe(201);
    await page.goto(`${svc.url}/monitors`);
    const row = page.locator('#monitor-rows tr', { hasText: monitorName });
    await row.waitFor();
    await row.locator('button[data-action="run"]').click();
    const notice = page.locator('#notice .alert');
    await until('the failed capture notice', async () => (await notice.innerText().catch(() => '')).includes('failed'));
    expect(await notice.innerText()).toBe(
      `The capture of “${monitorName}” failed: Connection refused: nothing is listening at 127.0.0.1:${closedPort}; ` +
        "check the URL's host and port, and that the site is running " +
        '(net::ERR_HTTP_RESPONSE_CODE_FAILURE (egress proxy: ECONNREFUSED)).',
    );
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    expect(await violations(page)).toEqual([]);
    await shot('capture-failed');

    await page.getByRole('button', { name: 'New monitor' }).click();
    await page.locator('#f-url').fill(`http://127.0.0.1:${closedPort}/`);
    await page.locator('#f-schedule').fill('0 0 1 1 *');
    await page.locator('#f-threshold').fill('7');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await until(
      'the threshold error',
      async () => (await page.getAttribute('#f-threshold', 'aria-invalid')) === 'true',
    );
    // The API's sentence ("diff.threshold can be at most 1: …") under the form's name for the field.
    expect(await page.innerText('#f-threshold-error')).toBe(
      'Colour threshold can be at most 1: give a smaller number.',
    );
    expect(await violations(page)).toEqual([]);
    await shot('monitor-field');
  });
});
