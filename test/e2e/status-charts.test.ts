// The status page's last hour in a real browser, at a laptop's and a phone's width, after render requests
// that really ended each way (ok, failed, blocked, timed out, rate-limited, queue full), a failing monitor
// and a kept job result: the counts, the percentiles and their tables agree with what happened and with
// /api/status; times are written in UTC; each chart has its table; the page passes axe.
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { VIEWPORTS, violations } from '../helpers/axe.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { EXPECTED_OUTCOMES, makeEachOutcome, OUTCOME_SERVICE } from '../helpers/status-outcomes.js';
import { until } from '../helpers/until.js';

let svc: TestService;
let browser: Browser;
let key: string;
/** X-Render-Ms of the scenario's successful synchronous renders. */
let syncRenderMs: number[];
const shots = process.env.E2E_SCREENSHOTS;

/** The scenario, plus a monitor whose page refuses connections (failed) and one capture and one job that succeed. */
const EXPECTED = {
  ...EXPECTED_OUTCOMES,
  ok: EXPECTED_OUTCOMES.ok + 2,
  failed: EXPECTED_OUTCOMES.failed + 1,
  total: EXPECTED_OUTCOMES.total + 3,
};
const LABELS: Record<string, string> = {
  ok: 'OK',
  failed: 'Failed',
  blocked: 'Blocked',
  timedOut: 'Timed out',
  rateLimited: 'Rate-limited',
  queueFull: 'Queue full',
  canceled: 'Canceled',
};

interface Percentiles {
  count: number;
  p50: number;
  p95: number;
  max: number;
}
interface StatusBody {
  lastHour: { renders: Record<string, number>; renderMs: Percentiles; queueWaitMs: Percentiles };
  monitors: { failing: number };
  storage: { captureBytes: number; resultBytes: number };
}
const status = async () => (await (await fetch(`${svc.url}/api/status`)).json()) as StatusBody;

async function monitor(body: object): Promise<string> {
  const res = await svc.call('POST', '/api/monitors', key, { schedule: '0 0 1 1 *', ...body });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  expect((await svc.call('POST', `/api/monitors/${id}/run`, key)).status).toBe(202);
  return id;
}

beforeAll(async () => {
  svc = await startTestService({ ...OUTCOME_SERVICE, jobs: { pollIntervalMs: 100 } });
  browser = await chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] });
  key = svc.createKey('status').key;
  syncRenderMs = await makeEachOutcome(svc, key);
  await monitor({ name: 'Refused page', url: 'http://127.0.0.1:9/' });
  await monitor({ name: 'Docs page', url: `${svc.url}/docs` });
  const job = await svc.call('POST', '/api/image', key, { html: '<h1>kept</h1>', async: true });
  expect(job.status).toBe(202);
  await until(
    () => 'every render of the scenario to be counted',
    async () => {
      const s = await status();
      return s.lastHour.renders.total === EXPECTED.total && s.monitors.failing === 1 && s.storage.resultBytes > 0;
    },
    60_000,
    200,
  );
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** "850 ms", "1.4 s", "2 min 5 s" back to ms, and how far off the rounding may be. */
function parseDuration(text: string): { ms: number; within: number } {
  let m = /^(\d+) ms$/.exec(text);
  if (m) return { ms: Number(m[1]), within: 0.5 };
  m = /^([\d.]+) s$/.exec(text);
  if (m) return { ms: Number(m[1]) * 1000, within: m[1]!.includes('.') ? 50 : 500 };
  m = /^(\d+) min (\d+) s$/.exec(text);
  if (m) return { ms: (Number(m[1]) * 60 + Number(m[2])) * 1000, within: 500 };
  throw new Error(`not a duration: ${text}`);
}

async function text(page: Page, selector: string): Promise<string> {
  return ((await page.locator(selector).first().textContent()) ?? '').trim();
}

describe.each(Object.entries(VIEWPORTS))('the last hour at %s width', (name, viewport) => {
  let page: Page;
  beforeAll(async () => {
    // bypassCSP only so axe can be injected; the page itself runs under its CSP elsewhere (status.test.ts).
    page = await browser.newPage({ viewport, bypassCSP: true });
    await page.addInitScript((k) => localStorage.setItem('pagewatch.apiKey', k), key);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${svc.url}/status`);
    await until('the last hour to be drawn', async () => (await text(page, '#renders-total')) !== '', 15_000);
    expect(errors).toEqual([]);
  });
  afterAll(() => page?.close());

  it('counts the renders of each outcome, in the legend and in the table behind the chart', async () => {
    await until(
      () => 'the legend to show every outcome',
      async () => (await text(page, '#renders-total')) === `${EXPECTED.total} in all`,
      15_000,
    );
    for (const [outcome, n] of Object.entries(EXPECTED)) {
      if (outcome === 'total') continue;
      const item = page.locator(`#renders-legend li[data-outcome="${outcome}"]`);
      expect(await item.innerText(), outcome).toBe(`${LABELS[outcome]} ${n}`);
    }
    // The table is behind a <details>: closed, it is not shown; opened, it names each outcome's count.
    const table = page.locator('#renders-table table');
    expect(await table.isVisible()).toBe(false);
    await page.locator('#renders-table').locator('xpath=ancestor::details/summary').click();
    expect(await table.isVisible()).toBe(true);
    expect(await table.locator('caption').innerText()).toContain('Renders per minute by outcome');
    const head = await table.locator('thead th').allInnerTexts();
    expect(head).toEqual(['Minute', ...Object.values(LABELS), 'Total']);
    const whole = await table.locator('tbody tr').last().locator('th, td').allInnerTexts();
    expect(whole).toEqual(['Whole hour', ...Object.keys(LABELS).map((o) => String(EXPECTED[o as 'ok'])), '12']);
    // Each minute row is "HH:MM UTC", and the minutes add up to the hour.
    const minutes = await table
      .locator('tbody tr')
      .evaluateAll((rows) =>
        rows.slice(0, -1).map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent ?? '')),
      );
    expect(minutes.length).toBeGreaterThan(0);
    for (const row of minutes) expect(row[0]).toMatch(/^\d\d:\d\d UTC$/);
    expect(minutes.reduce((n, row) => n + Number(row.at(-1)), 0)).toBe(EXPECTED.total);

    // The chart draws the same counts: its scale is the busiest minute's total, and it has a column part
    // per outcome and minute (the tallest column reaches the top).
    const busiest = Math.max(...minutes.map((row) => Number(row.at(-1))));
    expect(await text(page, '#renders-plot .scale')).toBe(`${busiest} a minute`);
    const parts = await page.locator('#renders-plot svg rect').count();
    const nonZero = minutes.reduce((n, row) => n + row.slice(1, -1).filter((c) => c !== '0').length, 0);
    expect(parts).toBe(nonZero);
    expect(await page.locator('#renders-plot svg').getAttribute('aria-hidden')).toBe('true');
  });

  it('shows p50 and p95 render time consistent with the renders made, /api/status and its table', async () => {
    const api = (await status()).lastHour.renderMs;
    const p50 = parseDuration(await text(page, '[data-hour="renderMs.p50"]'));
    const p95 = parseDuration(await text(page, '[data-hour="renderMs.p95"]'));
    const longest = parseDuration(await text(page, '[data-hour="renderMs.max"]'));
    expect(Math.abs(p50.ms - api.p50)).toBeLessThanOrEqual(p50.within);
    expect(Math.abs(p95.ms - api.p95)).toBeLessThanOrEqual(p95.within);
    expect(api.count).toBe(EXPECTED.ok);
    // Plausible: ordered, and the longest is the slowest render a caller saw (the 2.5 s one, at least).
    expect(api.p50).toBeLessThanOrEqual(api.p95);
    expect(api.p95).toBeLessThanOrEqual(api.max);
    expect(api.max).toBeGreaterThanOrEqual(Math.max(...syncRenderMs));
    expect(Math.max(...syncRenderMs)).toBeGreaterThanOrEqual(2500);
    expect(Math.abs(longest.ms - api.max)).toBeLessThanOrEqual(longest.within);
    // Its table's "Whole hour" row says the same.
    await page.locator('#renderMs-table').locator('xpath=ancestor::details/summary').click();
    const whole = await page.locator('#renderMs-table tbody tr').last().locator('th, td').allInnerTexts();
    expect(whole).toEqual([
      'Whole hour',
      String(EXPECTED.ok),
      await text(page, '[data-hour="renderMs.p50"]'),
      await text(page, '[data-hour="renderMs.p95"]'),
      await text(page, '[data-hour="renderMs.max"]'),
    ]);
  });

  it('shows the queue wait: the render that waited behind the slow one', async () => {
    const api = (await status()).lastHour.queueWaitMs;
    const longest = parseDuration(await text(page, '[data-hour="queueWaitMs.max"]'));
    expect(api.max).toBeGreaterThan(1000);
    expect(Math.abs(longest.ms - api.max)).toBeLessThanOrEqual(longest.within);
    await page.locator('#queueWaitMs-table').locator('xpath=ancestor::details/summary').click();
    const table = page.locator('#queueWaitMs-table table');
    expect(await table.isVisible()).toBe(true);
    expect(await table.locator('caption').innerText()).toContain('Queue waits per minute');
  });

  it('writes its times in UTC, with the zone', async () => {
    await until('the update time', async () => /^\d\d:\d\d:\d\d UTC$/.test(await text(page, '#updated')), 15_000);
    expect(await text(page, '[data-field="startedAt"]')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(await text(page, '#hour-scope')).toMatch(/^\d\d:\d\d UTC to \d\d:\d\d UTC, per minute/);
    const now = new Date();
    const hhmm = `${String(now.getUTCHours()).padStart(2, '0')}:`;
    expect(await text(page, '#updated')).toContain(hhmm.slice(0, 2)); // the UTC hour, whatever the browser's zone
  });

  it('names the failing monitor (for the key saved in this browser), the webhook and disk figures', async () => {
    expect(await text(page, '[data-field="monitors.failing"]')).toBe('1');
    // Marked as wanting attention (in the danger colour), unlike a zero.
    expect(await page.locator('[data-field="monitors.failing"]').getAttribute('class')).toContain('attention');
    expect((await page.locator('[data-field="webhookDeliveries.retrying"]').getAttribute('class')) ?? '').toBe('');
    const list = page.locator('#failing-list ul');
    await until('the failing monitor named', async () => (await list.count()) === 1, 15_000);
    expect(await list.locator('li').count()).toBe(1);
    expect(await list.locator('li a').innerText()).toBe('Refused page');
    expect(await list.locator('li').innerText()).toMatch(/last run \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    // Disk: the job's result (and the docs page capture) are counted; the bar is drawn in proportion.
    const s = await status();
    expect(s.storage.resultBytes).toBeGreaterThan(0);
    expect(await text(page, '[data-field="storage.resultBytes"]')).toMatch(/^\d+(\.\d)? (B|KiB|MiB)$/);
    const bar = page.locator('#disk-bar');
    expect(await bar.isVisible()).toBe(true);
    const widths = await bar.evaluate((b) =>
      [...b.children].map((c) => (c as HTMLElement).getBoundingClientRect().width / b.getBoundingClientRect().width),
    );
    const total = s.storage.captureBytes + s.storage.resultBytes;
    expect(widths[0]).toBeCloseTo(s.storage.captureBytes / total, 1);
    expect(widths[1]).toBeCloseTo(s.storage.resultBytes / total, 1);
    expect(await text(page, '[data-field="webhookDeliveries.oldest"]')).toBe('none waiting');
  });

  it('without a valid saved key: says where to see which monitors fail, and passes axe', async () => {
    for (const [saved, words] of [
      [undefined, 'Which ones: save your API key on Monitors'],
      ['pw_live_stale', 'Which ones: the key saved in this browser was refused; save a valid one on Monitors'],
    ] as const) {
      const bare = await browser.newPage({ viewport, bypassCSP: true });
      try {
        if (saved) await bare.addInitScript((k) => localStorage.setItem('pagewatch.apiKey', k), saved);
        await bare.goto(`${svc.url}/status`);
        const hint = bare.locator('#failing-list p');
        await until(`the hint (${saved ?? 'no key'})`, async () => (await hint.count()) === 1, 15_000);
        expect(await hint.innerText()).toBe(words);
        expect(await hint.locator('a').getAttribute('href')).toBe('/monitors');
        expect(await bare.locator('#failing-list ul').count()).toBe(0);
        expect(await violations(bare)).toEqual([]);
      } finally {
        await bare.close();
      }
    }
  });

  it('fits the width and passes axe with its tables open', async () => {
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    for (const summary of await page.locator('.chart details:not([open]) summary').all()) await summary.click();
    expect(await page.locator('.chart details[open]').count()).toBe(3);
    if (shots) {
      await page.screenshot({ path: `${shots}/status-charts-${name}.png`, fullPage: true });
      await page.locator('.hour').screenshot({ path: `${shots}/status-charts-hour-${name}.png` });
    }
    expect(await violations(page)).toEqual([]);
  });
});
