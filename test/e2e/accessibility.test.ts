// Every page audited with axe-core (WCAG 2.0/2.1/2.2 A and AA rules, plus axe's best practices) in a real
// Chromium against the running service, at laptop and phone widths, in the states a user sees: the
// converter before and after a conversion, the status page, the docs, and the dashboard without a key,
// with its list, with the form showing field errors (in its lists of patterns, rules and steps too), and
// with a monitor's history open: its diff, its text changes, its notifyWhen rules and a region outlined.
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { VIEWPORTS, violations } from '../helpers/axe.js';

let svc: TestService;
let fx: FixtureServer;
let browser: Browser;
let key: string;
let version = 1;

beforeAll(async () => {
  [svc, fx] = await Promise.all([
    startTestService({
      jobs: { pollIntervalMs: 100 },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    }),
    startFixtureServer(),
  ]);
  fx.route('/watched', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Watched</title><h1 style="font-size:64px">Version ${version}</h1>`);
  });
  key = svc.createKey('a11y').key;
  // A monitor with a baseline and a changed capture, so the history has a diff, a text change and
  // its rules to show (one rule true, one whose element is missing: an error).
  const res = await svc.call('POST', '/api/monitors', key, {
    url: `${fx.url}/watched`,
    schedule: '0 0 1 1 *',
    name: 'Watched page',
    notifyWhen: [
      { selector: 'h1', textContains: 'Version' },
      { selector: '.missing', textContains: 'x' },
    ],
  });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  for (const v of [1, 2]) {
    version = v;
    expect((await svc.call('POST', `/api/monitors/${id}/run`, key)).status).toBe(202);
    await until(`capture ${v}`, async () => {
      const { items } = (await (await svc.call('GET', `/api/monitors/${id}/captures`, key)).json()) as {
        items: { status: string }[];
      };
      return items.length === v && items.every((c) => c.status === 'succeeded');
    });
  }
  browser = await chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([svc?.close(), fx?.close()]);
});

describe.each(Object.entries(VIEWPORTS))('at %s width', (_name, viewport) => {
  let page: Page;
  beforeAll(async () => {
    // axe is injected by the test; the pages' CSP (tested by the other page tests) would refuse it.
    page = await browser.newPage({ viewport, bypassCSP: true });
    page.setDefaultTimeout(15_000);
  });
  afterAll(async () => {
    await page?.close();
  });

  it('the converter, before and after a conversion', async () => {
    await page.goto(`${svc.url}/`);
    await until('the sample HTML', async () => (await page.inputValue('#html')).includes('Invoice'));
    expect(await violations(page)).toEqual([]);
    await page.click('#convert');
    await until('the result', () => page.isVisible('#result-body'));
    expect(await violations(page)).toEqual([]);
  });

  it('the status page and the docs', async () => {
    await page.goto(`${svc.url}/status`);
    await until(
      'the live figures',
      async () => (await page.locator('#overall').textContent()) === 'All systems working',
    );
    expect(await violations(page)).toEqual([]);
    await page.goto(`${svc.url}/docs`);
    expect(await violations(page)).toEqual([]);
  });

  it('the dashboard: without a key, with the list, the form with field errors, and a history with its diff', async () => {
    await page.goto(`${svc.url}/monitors`);
    expect(await violations(page)).toEqual([]);
    await page.fill('#key-input', key);
    await page.click('#key-save');
    await until('the monitor list', () => page.getByText('Watched page').first().isVisible());
    expect(await violations(page)).toEqual([]);

    await page.click('#new-monitor');
    await page.fill('#f-url', 'http://10.0.0.1/');
    await page.fill('#f-schedule', '61 * * * *');
    await page.locator('#monitor-form [type="submit"]').click();
    await until('the field errors', () => page.isVisible('#f-schedule-error'));
    expect(await violations(page)).toEqual([]);

    // The lists, each row with an error beside a control (from the API), one step secret.
    await page.fill('#f-url', `${fx.url}/watched`);
    await page.fill('#f-schedule', '0 0 1 1 *');
    await page.click('#f-ignoretext-add');
    await page.fill('#f-ignoretext-list input', 'x'.repeat(501));
    await page.click('#f-rules-add');
    await page.fill('#f-rules-list input.selector', '.price');
    await page.selectOption('#f-rules-list select.test', 'numberBelow');
    await page.fill('#f-rules-list input.value', 'cheap');
    await page.click('#f-rules-add');
    await page.selectOption('#f-rules-list li:nth-child(2) select.test', 'appears');
    for (const [action, value] of [
      ['waitForTimeout', 'soon'],
      ['fill', 'secret'],
    ] as const) {
      await page.click('#f-steps-add');
      await page.selectOption('#f-steps-list li:last-child select.action', action);
      await page.fill('#f-steps-list li:last-child input.value', value);
    }
    await page.fill('#f-steps-list li:last-child input.selector', '#password');
    await page.check('#f-steps-list li:last-child input.secret');
    await page.locator('#monitor-form [type="submit"]').click();
    await until(
      'the list errors',
      async () => (await page.locator('#monitor-form [aria-invalid="true"]').count()) >= 4,
    );
    expect(await violations(page)).toEqual([]);

    await page.goto(`${svc.url}/monitors`);
    await page
      .getByRole('button', { name: /^History/ })
      .first()
      .click();
    await until('the capture view', () => page.isVisible('button[data-view="diff"]'));
    await page.click('button[data-view="diff"]');
    await until('the diff image', () =>
      page
        .locator('#single-img')
        .evaluate(
          (img: HTMLImageElement) =>
            img.complete &&
            img.naturalWidth > 0 &&
            (document.getElementById('single-caption')?.textContent ?? '').startsWith('Diff'),
        ),
    );
    expect(await violations(page)).toEqual([]);

    // The text diff (<del>/<ins>), the rules and their error, a region outlined by the focus on its row.
    await until('the text diff', async () => (await page.locator('#text-changes del, #text-changes ins').count()) > 0);
    await until('the rules', () => page.isVisible('#conditions-section'));
    expect(await page.locator('#condition-errors li').count()).toBeGreaterThan(0);
    await page.locator('#regions button').first().focus();
    await until('the outline', () => page.isVisible('#region-outline'));
    expect(await violations(page)).toEqual([]);
  });

  it("the dashboard (issue 27): filters, rules and request rows, the element picker, a capture's compared text", async () => {
    await page.goto(`${svc.url}/monitors`);
    await page.evaluate((k) => localStorage.setItem('pagewatch.apiKey', k), key);
    await page.goto(`${svc.url}/monitors`);
    await until('the monitor list', () => page.getByText('Watched page').first().isVisible());
    await page.getByRole('button', { name: 'Edit Watched page' }).click();
    await until('the form filled', async () => (await page.locator('#form-submit').textContent()) === 'Save changes');
    for (const [kind, value] of [
      ['css', 'h1'],
      ['extract', '('],
      ['unique', ''],
    ] as const) {
      await page.click('#f-filters-add');
      await page.selectOption('#f-filters-list > li:last-child select.kind', kind);
      if (value) await page.fill('#f-filters-list > li:last-child input.value', value);
    }
    await page.selectOption('#f-rules-when', 'any');
    await page.click('#f-rules-add');
    await page.selectOption('#f-rules-list > li:last-child select.test', 'priceOutside');
    await page.fill('#f-rules-list > li:last-child input.value', '10');
    await page.click('#f-rules-add');
    await page.selectOption('#f-rules-list > li:last-child select.test', 'textMatches');
    await page.fill('#f-rules-list > li:last-child input.selector', 'h1');
    await page.fill('#f-rules-list > li:last-child input.value', 'Version \\d');
    await page.check('#f-rules-list > li:last-child input.while');
    await page.click('#f-ignoretext-add');
    await page.fill('#f-ignoretext-list > li:last-child input.pattern', 'Version');
    await page.check('#f-ignoretext-list > li:last-child input.match-case');
    await page.locator('#f-advanced-toggle').click();
    await page.selectOption('#f-a-method', 'POST');
    await page.fill('#f-a-body', 'q=1');
    expect(await violations(page)).toEqual([]);

    // The picker over the latest capture, a block picked with the keyboard and outlined.
    await page.locator('#f-filters-list > li:first-child button.pick').click();
    await until('the picker', () => page.isVisible('#f-pick-list'));
    await page.selectOption('#f-pick-list', '0');
    await page.click('#f-pick-use');
    await until('the outline', () => page.isVisible('#f-pick-box'));
    expect(await violations(page)).toEqual([]);

    // With the problems the page and the API name (an empty rule bound, a broken pattern) beside their rows.
    await page.locator('#monitor-form [type="submit"]').click();
    await until('the errors', async () => (await page.locator('#monitor-form [aria-invalid="true"]').count()) >= 1);
    expect(await violations(page)).toEqual([]);

    await page.goto(`${svc.url}/monitors`);
    await page.getByRole('button', { name: 'History of Watched page' }).click();
    await until('the compared text', async () => (await page.locator('#compared-blocks li').count()) > 0);
    expect(await violations(page)).toEqual([]);
  });
});
