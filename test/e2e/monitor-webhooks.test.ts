// Webhooks in the dashboard (issue #14, point 3), in a real browser against the running service, at the
// laptop and the phone width: the monitor form says how deliveries are signed, where the secret comes from
// (keys create) and how to rotate it (keys rotate-secret), with a link to /docs#verifying; a monitor's
// history lists its deliveries; "Send test event" makes a signed monitor.test event reach a real receiver
// and shows it succeeded; Redeliver sends it again (the receiver sees 2, same webhook-id); a receiver that
// answers 500 shows as pending with its answer, error and next retry; a monitor without a webhook URL
// says so. Every state is audited with axe.
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { VIEWPORTS, violations } from '../helpers/axe.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const shots = process.env.E2E_SCREENSHOTS; // a folder: screenshots are written there to be looked at
const YEARLY = '0 0 1 1 *';

let svc: TestService;
let fx: FixtureServer;
let browser: Browser;
let owner: { key: string; webhookSecret: string };
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  [svc, fx, browser] = await Promise.all([
    startTestService({
      jobs: { pollIntervalMs: 100 },
      // One retry a minute away: a failing delivery stays pending, with a next retry to show.
      webhooks: { retryScheduleMs: [60_000] },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    }),
    startFixtureServer(),
    chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] }),
  ]);
  owner = svc.createKey('dashboard-webhooks');
  if (shots) mkdirSync(shots, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([svc?.close(), fx?.close(), ...receivers.map((r) => r.close())]);
});

async function receiver(status = 204): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver((res) => {
    res.writeHead(status).end();
  });
  receivers.push(r);
  return r;
}

async function createMonitor(name: string, webhookUrl?: string): Promise<string> {
  const res = await svc.call('POST', '/api/monitors', owner.key, {
    name,
    url: `${fx.url}/watched-${name.replace(/\W+/g, '-')}`,
    schedule: YEARLY,
    ...(webhookUrl && { webhookUrl }),
  });
  if (res.status !== 201) throw new Error(`POST /api/monitors → ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

describe.each(Object.entries(VIEWPORTS))('at the %s width', (width, viewport) => {
  let page: Page;
  const problems: string[] = [];
  let hooks: WebhookReceiver;
  let failing: WebhookReceiver;
  let monitorId: string;
  let failingId: string;
  let bareId: string;
  /** The part of the page the test is about, to be looked at (the whole page is mostly the monitor list). */
  const shot = async (name: string, selector: string) => {
    if (shots) await page.locator(selector).screenshot({ path: `${shots}/webhooks-${name}-${viewport.width}.png` });
  };
  const delivery = () => page.locator('#deliveries-list li.delivery').first();
  const noSideways = async () =>
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);

  beforeAll(async () => {
    [hooks, failing] = await Promise.all([receiver(), receiver(500)]);
    monitorId = await createMonitor(`Hooked ${width}`, hooks.url);
    failingId = await createMonitor(`Failing hook ${width}`, failing.url);
    bareId = await createMonitor(`No hook ${width}`);
    const context = await browser.newContext({ viewport, bypassCSP: true }); // bypass: axe is injected
    await context.addInitScript((key) => localStorage.setItem('pagewatch.apiKey', key), owner.key);
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => problems.push(String(err)));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push(m.text());
    });
    await page.goto(`${svc.url}/monitors`);
    await page.locator(`#monitor-rows tr[data-id="${monitorId}"]`).waitFor();
  });
  afterAll(async () => {
    await page?.context().close();
  });

  async function openHistoryOf(id: string) {
    await page.locator(`#monitor-rows button[data-action="history"][data-id="${id}"]`).click();
    await page.locator('#deliveries').waitFor({ state: 'visible' });
    await until(
      'the deliveries to load',
      async () =>
        (await page.locator('#deliveries-empty').isVisible()) ||
        (await page.locator('#deliveries-list li').count()) > 0,
    );
  }

  it('the form explains signing: Standard Webhooks headers, the secret from keys create, keys rotate-secret, and links to verifying', async () => {
    await page.getByRole('button', { name: 'New monitor' }).click();
    const help = page.locator('#f-webhook-help');
    await help.waitFor({ state: 'visible' });
    const words = (await help.innerText()).replace(/\s+/g, ' ');
    expect(words).toContain('Standard Webhooks');
    for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) expect(words).toContain(header);
    expect(words).toContain('whsec_');
    expect(words).toContain('npx pagewatch keys create');
    expect(words).toContain('npx pagewatch keys rotate-secret <key id>');
    // It is the field's description, so a screen reader reads it with the field.
    expect(await page.locator('#f-webhook').getAttribute('aria-describedby')).toContain('f-webhook-help');
    // The link leads to the verifying section of /docs, which exists and holds a Node snippet.
    const href = await help.getByRole('link', { name: 'How to verify a delivery' }).getAttribute('href');
    expect(href).toBe('/docs#verifying');
    const docs = await (await fetch(`${svc.url}/docs`)).text();
    expect(docs).toMatch(/id="verifying"/);
    await page.locator('#f-webhook').scrollIntoViewIfNeeded();
    await noSideways();
    expect(await violations(page)).toEqual([]);
    await shot('form-help', '#f-notify-group');
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it('"Send test event" delivers a signed monitor.test event and the log shows it succeeded', async () => {
    await openHistoryOf(monitorId);
    expect(await page.locator('#deliveries-empty').isVisible()).toBe(true);
    expect(await page.locator('#deliveries-target').innerText()).toContain(hooks.url);
    await page.getByRole('button', { name: 'Send test event' }).click();

    const [hit] = await hooks.waitForHits(1);
    const event = verifyHit(owner.webhookSecret, hit!);
    expect(event.type).toBe('monitor.test');
    expect(event.data).toMatchObject({ monitorId, test: true });

    await until(
      'the test delivery to show as succeeded',
      async () => (await delivery().getAttribute('data-status')) === 'succeeded',
    );
    const row = (await delivery().innerText()).replace(/\s+/g, ' ');
    expect(row).toContain('monitor.test');
    expect(row).toContain('succeeded');
    expect(row).toMatch(/Attempts 1\b/);
    expect(row).toContain('HTTP 204');
    expect(row).toMatch(/Next retry none\b/);
    expect(await page.locator('#deliveries-status').innerText()).toContain(
      'Test event delivered: the receiver answered HTTP 204.',
    );
    // What the page shows is what the API says.
    const api = (await (await svc.call('GET', `/api/webhook-deliveries?monitorId=${monitorId}`, owner.key)).json()) as {
      items: { id: string; status: string; webhookId: string }[];
    };
    expect(api.items).toHaveLength(1);
    expect(api.items[0]).toMatchObject({ status: 'succeeded', webhookId: hit!.headers['webhook-id'] });
    expect(await delivery().getAttribute('data-delivery')).toBe(api.items[0]!.id);
    await noSideways();
    expect(await violations(page)).toEqual([]);
    await shot('test-delivered', '#deliveries');
  });

  it('Redeliver sends the same event again (the receiver sees 2, same webhook-id), and keeps the focus', async () => {
    const button = delivery().getByRole('button', { name: /^Redeliver/ });
    await button.focus();
    await page.keyboard.press('Enter');
    const [first, second] = await hooks.waitForHits(2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(verifyHit(owner.webhookSecret, second!).type).toBe('monitor.test');
    await until(
      'the log to show the second attempt',
      async () =>
        /Attempts 2\b/.test((await delivery().innerText()).replace(/\s+/g, ' ')) &&
        (await delivery().getAttribute('data-status')) === 'succeeded',
    );
    expect(await page.locator('#deliveries-list li.delivery').count()).toBe(1);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-redeliver'))).toBe(
      await delivery().getAttribute('data-delivery'),
    );
    expect(hooks.hits).toHaveLength(2);
    expect(await violations(page)).toEqual([]);
  });

  it('a receiver answering 500: pending, with its answer, the error and the next retry in words', async () => {
    await openHistoryOf(failingId);
    await page.getByRole('button', { name: 'Send test event' }).click();
    await failing.waitForHits(1);
    await until('the failed attempt to show', async () => /HTTP 500/.test(await delivery().innerText()));
    const row = (await delivery().innerText()).replace(/\s+/g, ' ');
    expect(await delivery().getAttribute('data-status')).toBe('pending');
    expect(row).toContain('pending');
    expect(row).toMatch(/Attempts 1\b/);
    expect(row).toContain('the receiver answered HTTP 500');
    expect(row).toMatch(/Next retry in (\d+ seconds|1 minute)/);
    expect(await page.locator('#deliveries-status').innerText()).toMatch(
      /^Test event not delivered yet: the receiver answered HTTP 500\. It is tried again in (\d+ seconds|1 minute)\.$/,
    );
    await noSideways();
    expect(await violations(page)).toEqual([]);
    await shot('test-retrying', '#deliveries');
  });

  it('a monitor without a webhook URL says so and offers no test event', async () => {
    await openHistoryOf(bareId);
    expect(await page.locator('#deliveries-target').innerText()).toContain('This monitor has no webhook URL');
    expect(await page.getByRole('button', { name: 'Send test event' }).count()).toBe(0);
    expect(await page.locator('#deliveries-empty').isVisible()).toBe(true);
    expect(await violations(page)).toEqual([]);
    await shot('no-webhook', '#deliveries');
    expect(problems).toEqual([]);
  });
});
