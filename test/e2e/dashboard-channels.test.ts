// Channels in the dashboard (issue 28), in a real browser against the running service, at the laptop and
// the phone width: the Channels view is reached from the dashboard's navigation; an email channel made
// with the form shows in the list (type, recipients, pace) as the API has it; a monitor made with the
// form picks it (ids sent), and "None" and the key's defaults are [] and absent; "Send test" follows the
// test delivery until it settles and shows what the delivery log says, and the channel's recent
// deliveries list it; a template that does not parse is refused with its line shown at the field;
// write-only fields read "••••" and are kept; Delete asks first. A capture's alert to the channel shows
// in the monitor's delivery log with the channel's name, and the capture link an alert carries opens
// that capture. Every state is audited with axe, and nothing scrolls sideways.
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { VIEWPORTS, violations } from '../helpers/axe.js';
import { captureNow } from '../helpers/capture-now.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const shots = process.env.E2E_SCREENSHOTS; // a folder: screenshots are written there to be looked at
const YEARLY = '0 0 1 1 *';

interface Channel {
  id: string;
  name: string;
  type: string;
  to?: string[];
  url?: string;
  token?: string;
  templates: { subject?: string; body?: string };
  digest: string;
  digestAt: string;
  quietHours?: { start: string; end: string };
  default: boolean;
}
interface Delivery {
  id: string;
  status: string;
  attempts: number;
  lastError?: string | null;
  lastResponseStatus?: number | null;
  eventType: string;
  channelId?: string;
  channelType?: string;
  monitorId?: string;
}

let svc: TestService;
let fx: FixtureServer;
let browser: Browser;
/** The service checks templates (the messages work is in): a bad one is a 400. */
let templatesChecked = false;

beforeAll(async () => {
  [svc, fx, browser] = await Promise.all([
    startTestService({
      jobs: { pollIntervalMs: 100 },
      // No retries: a test message that cannot be sent settles as failed at once.
      webhooks: { retryScheduleMs: [] },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    }),
    startFixtureServer(),
    chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] }),
  ]);
  fx.route('/watched', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Watched</title><h1>Price: $10</h1>');
  });
  const probe = await svc.call('POST', '/api/channels', svc.createKey('probe').key, {
    name: 'probe',
    type: 'email',
    to: ['probe@example.test'],
    templates: { body: 'ok\n{% if %}' },
  });
  templatesChecked = probe.status === 400;
  if (shots) mkdirSync(shots, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([svc?.close(), fx?.close()]);
});

describe.each(Object.entries(VIEWPORTS))('at the %s width', (width, viewport) => {
  let page: Page;
  /** A key per width: each starts with no channels. */
  let owner: { key: string };
  async function apiJson<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await svc.call(method, path, owner.key, body);
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${await res.text()}`);
    return (res.status === 204 ? undefined : await res.json()) as T;
  }
  const problems: string[] = [];
  let channelId: string;
  let monitorId: string;
  const channelName = `Inbox ${width}`;
  const shot = async (name: string, selector: string) => {
    if (shots) await page.locator(selector).screenshot({ path: `${shots}/channels-${name}-${viewport.width}.png` });
  };
  const noSideways = async () =>
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
  const row = (id: string) => page.locator(`#channel-rows li[data-id="${id}"]`);
  const audit = async () => {
    await noSideways();
    expect(await violations(page)).toEqual([]);
  };

  beforeAll(async () => {
    owner = svc.createKey(`dashboard-channels-${width}`);
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

  it('the navigation leads to Channels; with none yet, the view says how to start', async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Channels' }).click();
    await page.locator('#channels-section').waitFor({ state: 'visible' });
    expect(page.url()).toMatch(/#\/channels$/);
    expect(await page.title()).toBe('Channels · Pagewatch');
    expect(await page.locator('#nav-channels').getAttribute('aria-current')).toBe('page');
    expect(await page.locator('#list-section').isVisible()).toBe(false);
    await until('the empty state', () => page.locator('#channels-empty').isVisible());
    await audit();
    await shot('empty', '#channels-section');
  });

  it('an email channel made with the form shows in the list as the API has it', async () => {
    await page.getByRole('button', { name: 'New channel' }).click();
    await page.locator('#channel-form').waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('channel-form-title');
    // The variables the templates may use are listed beside them.
    const vars = (await page.locator('#c-vars').innerText()).replace(/\s+/g, ' ');
    for (const name of ['monitor', 'capture', 'summary', 'changes', 'price', 'conditions', 'links'])
      expect(vars).toContain(name);
    // Nothing filled in: the form names what is missing at its fields, without asking the service.
    await page.getByRole('button', { name: 'Create channel' }).click();
    await until('the name problem', async () => (await page.locator('#c-name-error').innerText()) !== '');
    expect(await page.locator('#c-to-error').innerText()).toContain('at least one email address');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('c-name');
    expect(await page.locator('#c-name').getAttribute('aria-invalid')).toBe('true');
    await audit();
    await shot('form-problems', '#channel-form-section');

    await page.fill('#c-name', channelName);
    await page.fill('#c-to', `me-${width}@example.test, team-${width}@example.test`);
    await page.selectOption('#c-digest', 'daily');
    await page.fill('#c-digestat', '08:30');
    await page.getByRole('button', { name: 'Create channel' }).click();
    await until('the channel in the list', () => page.locator('#channel-rows li').count());

    const { channels } = await apiJson<{ channels: Channel[] }>('GET', '/api/channels');
    const made = channels.find((c) => c.name === channelName)!;
    expect(made).toMatchObject({
      type: 'email',
      to: [`me-${width}@example.test`, `team-${width}@example.test`],
      digest: 'daily',
      digestAt: '08:30',
      default: false,
    });
    channelId = made.id;
    const text = (await row(channelId).innerText()).replace(/\s+/g, ' ');
    expect(text).toContain(channelName);
    expect(text).toContain('Email');
    expect(text).toContain(`me-${width}@example.test, team-${width}@example.test`);
    expect(text).toContain('Daily digest at 08:30');
    expect(text).not.toContain('default');
    // The focus lands on the new channel's Send test: the next step.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-action'))).toBe('test');
    await audit();
    await shot('list', '#channels-section');
  });

  it('Send test follows the test delivery until it settles and shows what the delivery log says', async () => {
    await row(channelId)
      .getByRole('button', { name: /^Send test/ })
      .click();
    await until(
      'the test to settle',
      async () => (await row(channelId).locator('.ch-test').getAttribute('data-test-status')) === 'settled',
    );
    const { items } = await apiJson<{ items: Delivery[] }>('GET', `/api/webhook-deliveries?channelId=${channelId}`);
    expect(items).toHaveLength(1);
    const d = items[0]!;
    expect(d).toMatchObject({ eventType: 'channel.test', channelId, channelType: 'email' });
    expect(d.status).not.toBe('pending');
    const shown = await row(channelId).locator('.ch-test').innerText();
    if (d.status === 'succeeded') expect(shown).toContain(`Test message to “${channelName}” delivered`);
    else expect(shown).toBe(`Test message to “${channelName}” not delivered: ${d.lastError}.`);
    // Said to screen readers too.
    expect(await page.locator('#channels-status').innerText()).toBe(shown);
    // The channel's recent deliveries list it, as the log has it.
    await row(channelId).locator('summary').click();
    const listed = row(channelId).locator(`.ch-deliveries li[data-delivery="${d.id}"]`);
    await listed.waitFor();
    expect(await listed.getAttribute('data-status')).toBe(d.status);
    expect(await listed.innerText()).toContain('channel.test');
    if (d.lastError) expect(await listed.innerText()).toContain(d.lastError);
    await audit();
    await shot('tested', `#channel-rows li[data-id="${channelId}"]`);
  });

  it('a template that does not parse is refused with its line at the field', async (ctx) => {
    if (!templatesChecked) ctx.skip(); // the service in this branch does not check templates yet
    await row(channelId).getByRole('button', { name: /^Edit/ }).click();
    await page.locator('#channel-form').waitFor();
    await page.fill('#c-subject', '{{ monitor.name }} changed');
    await page.fill('#c-body', '{{ summary }}\n{{ links.capture }}\n{% if monitor.name %}unclosed');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await until('the template problem', async () => (await page.locator('#c-body-error').innerText()) !== '');
    expect(await page.locator('#c-body-error').innerText()).toMatch(/line 3\b/i);
    expect(await page.locator('#c-body').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#c-body').getAttribute('aria-describedby')).toContain('c-body-error');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('c-body');
    // The caret is on the line named.
    expect(
      await page.evaluate(() => {
        const t = document.getElementById('c-body') as HTMLTextAreaElement;
        return t.value.slice(0, t.selectionStart).split('\n').length;
      }),
    ).toBe(3);
    expect(await page.locator('#channel-form-error').innerText()).toContain('1 field needs fixing');
    await audit();
    await shot('template-error', '#channel-form-section');
    // Fixed, it is saved.
    await page.fill(
      '#c-body',
      '{{ summary }}\n{{ links.capture }}\n{% if monitor.name %}{{ monitor.name }}{% endif %}',
    );
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('#channel-form').waitFor({ state: 'detached' });
    const saved = await apiJson<Channel>('GET', `/api/channels/${channelId}`);
    expect(saved.templates).toEqual({
      subject: '{{ monitor.name }} changed',
      body: '{{ summary }}\n{{ links.capture }}\n{% if monitor.name %}{{ monitor.name }}{% endif %}',
    });
  });

  it('write-only fields read "••••" and are kept unless replaced', async () => {
    const ntfy = await apiJson<Channel>('POST', '/api/channels', {
      name: `Phone ${width}`,
      type: 'ntfy',
      url: `${fx.url}/ntfy-${width}`,
      token: 'tk_secret_token',
    });
    await page.click('#channels-refresh');
    await row(ntfy.id).waitFor();
    expect(await row(ntfy.id).innerText()).not.toContain('tk_secret_token');
    expect(await row(ntfy.id).innerText()).not.toContain(`ntfy-${width}`);
    await row(ntfy.id).getByRole('button', { name: /^Edit/ }).click();
    await page.locator('#channel-form').waitFor();
    expect(await page.inputValue('#c-token')).toBe('••••');
    expect(await page.inputValue('#c-url')).toBe(ntfy.url);
    expect(await page.locator('#c-type').isDisabled()).toBe(true);
    // Only the name changes: the sealed URL and token are not sent, so they are kept.
    const sent = page.waitForRequest((r) => r.method() === 'PATCH' && r.url().endsWith(`/api/channels/${ntfy.id}`));
    await page.fill('#c-name', `Phone ${width} renamed`);
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect((await sent).postDataJSON()).toEqual({ name: `Phone ${width} renamed`, digest: 'off', default: false });
    await page.locator('#channel-form').waitFor({ state: 'detached' });
    const after = await apiJson<Channel>('GET', `/api/channels/${ntfy.id}`);
    expect(after).toMatchObject({ name: `Phone ${width} renamed`, url: ntfy.url, token: '••••' });
    await audit();
    await apiJson('DELETE', `/api/channels/${ntfy.id}`);
  });

  it('a monitor made with the form picks the channel; None is [] and the defaults are absent', async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Monitors' }).click();
    await page.locator('#list-section').waitFor({ state: 'visible' });
    await page.getByRole('button', { name: 'New monitor' }).click();
    await page.locator('#f-channels-group').waitFor();
    expect(await page.locator('#f-channels-default').isChecked()).toBe(true);
    await page.fill('#f-url', `${fx.url}/watched`);
    await page.fill('#f-name', `Watched ${width}`);
    await page.fill('#f-schedule', YEARLY);
    await page.check('#f-notify-capture');
    await page.check('#f-channels-chosen');
    // Chosen but none ticked: named at the picker before asking.
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await until('the picker problem', async () => (await page.locator('#f-channels-error').innerText()) !== '');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-channels-chosen');
    await page.locator('#f-channels-chosen').scrollIntoViewIfNeeded();
    await audit();
    await shot('picker', '#f-channels-group');
    await page.check(`#f-channels-group input[data-channel="${channelId}"]`);
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await page.locator('#monitor-form').waitFor({ state: 'detached' });
    const { items } = await apiJson<{ items: { id: string; name: string; channels?: string[] }[] }>(
      'GET',
      '/api/monitors?limit=100',
    );
    monitorId = items.find((m) => m.name === `Watched ${width}`)!.id;
    expect((await apiJson<{ channels?: string[] }>('GET', `/api/monitors/${monitorId}`)).channels).toEqual([channelId]);

    const editTo = async (choice: 'none' | 'default') => {
      await page.locator(`#monitor-rows button[data-action="edit"][data-id="${monitorId}"]`).click();
      await page.locator('#f-channels-group').waitFor();
      await page.check(`#f-channels-${choice}`);
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.locator('#monitor-form').waitFor({ state: 'detached' });
      return apiJson<{ channels?: string[] | null }>('GET', `/api/monitors/${monitorId}`);
    };
    // Opened again, the picker shows the channel ticked.
    await page.locator(`#monitor-rows button[data-action="edit"][data-id="${monitorId}"]`).click();
    await page.locator('#f-channels-group').waitFor();
    expect(await page.locator('#f-channels-chosen').isChecked()).toBe(true);
    expect(await page.locator(`#f-channels-group input[data-channel="${channelId}"]`).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect((await editTo('none')).channels).toEqual([]);
    expect((await editTo('default')).channels ?? null).toBeNull();
    // Back to the channel, for the delivery log below.
    await apiJson('PATCH', `/api/monitors/${monitorId}`, { channels: [channelId] });
  });

  it("a capture's alert to the channel shows in the monitor's delivery log with the channel's name", async () => {
    const capture = await captureNow(svc, owner.key, monitorId);
    await until('the channel delivery', async () => {
      const { items } = await apiJson<{ items: Delivery[] }>(
        'GET',
        `/api/webhook-deliveries?monitorId=${monitorId}&channelId=${channelId}`,
      );
      return items.length > 0;
    });
    await page.click('#refresh'); // the list as it is now (the monitor's channels were set through the API)
    await page.locator(`#monitor-rows button[data-action="history"][data-id="${monitorId}"]`).click();
    await page.locator('#deliveries').waitFor({ state: 'visible' });
    const channelRow = page.locator(`#deliveries-list li.delivery:has(.dl-channel[data-channel="${channelId}"])`);
    await channelRow.first().waitFor();
    expect(await channelRow.first().locator('.dl-channel').innerText()).toBe(`to “${channelName}” (Email)`);
    await until('the history to name the channel', async () =>
      (await page.locator('#deliveries-channels').count())
        ? (await page.locator('#deliveries-channels').innerText()).includes(channelName)
        : false,
    );
    expect(await page.locator('#deliveries-target').innerText()).toContain('its alerts go to its channels only');
    await audit();
    await shot('delivery-log', '#deliveries');
    await page.getByRole('button', { name: 'Close history' }).click();

    // The link an alert carries opens the monitor's history on that capture.
    await page.goto(`${svc.url}/monitors#/monitors/${monitorId}/captures/${capture.id}`);
    await page.locator('#history-section').waitFor({ state: 'visible' });
    await until('the linked capture to be selected', async () =>
      (await page.locator(`button.capture[data-capture="${capture.id}"]`).count())
        ? (await page.locator(`button.capture[data-capture="${capture.id}"]`).getAttribute('aria-pressed')) === 'true'
        : false,
    );
    await page.getByRole('button', { name: 'Close history' }).click();
  });

  it('Delete asks first; Cancel keeps the channel, Delete removes it from the monitor too', async () => {
    await page.goto(`${svc.url}/monitors#/channels`);
    await row(channelId).waitFor();
    await row(channelId)
      .getByRole('button', { name: /^Delete/ })
      .click();
    const dialog = page.locator('#channel-delete-dialog');
    await dialog.waitFor({ state: 'visible' });
    expect(await dialog.innerText()).toContain(`Delete the channel “${channelName}”?`);
    await audit();
    await page.click('#channel-delete-cancel');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-action'))).toBe('delete');
    expect((await svc.call('GET', `/api/channels/${channelId}`, owner.key)).status).toBe(200);

    await row(channelId)
      .getByRole('button', { name: /^Delete/ })
      .click();
    await page.click('#channel-delete-confirm');
    await row(channelId).waitFor({ state: 'detached' });
    expect((await svc.call('GET', `/api/channels/${channelId}`, owner.key)).status).toBe(404);
    expect((await apiJson<{ channels?: string[] }>('GET', `/api/monitors/${monitorId}`)).channels ?? []).toEqual([]);
    expect(await page.locator('#notice').innerText()).toContain(`“${channelName}” was deleted`);
    await audit();
    expect(problems).toEqual([]);
  });
});
