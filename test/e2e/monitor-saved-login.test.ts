// Saved logins in the dashboard, in a real browser against the running service, at laptop and phone width:
// the monitor form's "Keep me logged in" and its signed-in sign (a refusal shown at the sign's field), a
// capture that saves the login, the history showing when it was saved and until when it is kept, and its
// "Forget login" button — with the axe audit on each state.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { VIEWPORTS, violations } from '../helpers/axe.js';
import { captureNow } from '../helpers/capture-now.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { addLoginSite, loginSteps, type LoginSite } from '../helpers/login-site.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let svc: TestService;
let fx: FixtureServer;
let site: LoginSite;
let browser: Browser;

beforeAll(async () => {
  [svc, fx] = await Promise.all([
    startTestService({
      egress: { allowHosts: ['127.0.0.1', '127.0.0.3'] },
      jobs: { pollIntervalMs: 100 },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    }),
    startFixtureServer({ host: '127.0.0.3' }),
  ]);
  site = addLoginSite(fx);
  browser = await chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([svc?.close(), fx?.close()]);
});

type Json = Record<string, unknown>;

describe.each(Object.entries(VIEWPORTS))('at %s width', (name, viewport) => {
  let context: BrowserContext;
  let page: Page;
  let key: string;
  const problems: string[] = [];
  const NAME = `Account ${name}`;

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await svc.call(method, path, key, body);
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return (await res.json()) as Json;
  };
  const noViolations = async (what: string) => expect(await violations(page), what).toEqual([]);
  const row = () => page.locator('#monitor-rows tr', { hasText: NAME });

  async function openDashboard() {
    await page.goto(`${svc.url}/monitors`);
    await page.locator('#list-section').waitFor();
    await until('the list', async () => (await row().count()) > 0, 15_000);
  }

  beforeAll(async () => {
    key = svc.createKey(`login-${name}`).key;
    context = await browser.newContext({ viewport, bypassCSP: true });
    await context.addInitScript((k) => localStorage.setItem('pagewatch.apiKey', k), key);
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => problems.push(String(err)));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push(m.text());
    });
  });
  afterAll(async () => {
    await context?.close();
    expect(problems).toEqual([]);
  });

  it('"Keep me logged in" with its sign is saved; a capture keeps the login; "Forget login" forgets it', async () => {
    const { id } = (await api('POST', '/api/monitors', {
      name: NAME,
      url: `${fx.url}/account`,
      schedule: '0 0 1 1 *',
      paused: true,
      capture: { viewport: { width: 400, height: 300 }, steps: loginSteps(site.password) },
    })) as { id: string };
    await openDashboard();
    await row()
      .getByRole('button', { name: `Edit ${NAME}` })
      .click();
    await page.locator('#form-section').waitFor();
    await until('the form filled', async () => (await page.locator('#form-submit').textContent()) === 'Save changes');

    const keep = page.getByRole('checkbox', { name: 'Keep me logged in' });
    expect(await keep.isChecked()).toBe(false);
    expect(await page.locator('#f-loggedin').count()).toBe(0); // the sign is asked for once the box is ticked
    await keep.check();
    // Saved without its sign: the service's refusal is shown at the sign's field.
    await page.getByRole('button', { name: 'Save changes' }).click();
    await until('the refusal at the sign', async () => (await page.locator('#f-loggedin-error').isVisible()) === true);
    expect(await page.locator('#f-loggedin-error').textContent()).toMatch(/^SaveLogin needs loggedInWhen/);
    expect(await page.locator('#f-loggedin').getAttribute('aria-invalid')).toBe('true');
    await noViolations('the form with the refused sign');

    await page.getByLabel('Signed in when the page shows').selectOption('text');
    await page.getByLabel('Sign of being signed in').fill('Signed in as');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await until('the form to close after saving', async () => !(await page.locator('#form-section').isVisible()));
    const saved = (await api('GET', `/api/monitors/${id}`)) as { capture: Json; login?: unknown };
    expect(saved.capture).toMatchObject({ saveLogin: true, loggedInWhen: { text: 'Signed in as' } });
    expect(saved.login).toBeUndefined();

    // A capture signs in and keeps the login: the history says since when and until when.
    const capture = await captureNow(svc, key, id);
    expect(capture.status).toBe('succeeded');
    const { login } = (await api('GET', `/api/monitors/${id}`)) as { login: { expiresAt: string } };
    await openDashboard();
    await row()
      .getByRole('button', { name: `History of ${NAME}` })
      .click();
    await page.locator('#history-login').waitFor();
    const said = (await page.locator('#history-login').textContent()) ?? '';
    expect(said).toContain('Saved login: signed in');
    expect(said).toContain(String(new Date(login.expiresAt).getFullYear()));
    await until('the capture listed', async () => (await page.locator('#captures button.capture').count()) === 1);
    expect(await page.locator('#captures button.capture').textContent()).toContain('login saved');
    await noViolations('the history with a saved login');

    await page.getByRole('button', { name: 'Forget login' }).click();
    await until('the saved login gone', async () => (await page.locator('#history-login').count()) === 0);
    expect(((await api('GET', `/api/monitors/${id}`)) as { login?: unknown }).login).toBeUndefined();
    await noViolations('the history after forgetting the login');

    // Edited again, the form shows the box ticked and the sign as saved.
    await row()
      .getByRole('button', { name: `Edit ${NAME}` })
      .click();
    await until('the form filled', async () => (await page.locator('#form-submit').textContent()) === 'Save changes');
    expect(await page.getByRole('checkbox', { name: 'Keep me logged in' }).isChecked()).toBe(true);
    expect(await page.getByLabel('Sign of being signed in').inputValue()).toBe('Signed in as');
    await noViolations('the form of a monitor that keeps its login');
  });
});
