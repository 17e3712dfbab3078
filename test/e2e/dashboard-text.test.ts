// The dashboard's issue-11 parts in a real browser against the running service: the monitor form's
// change mode, text selector, ignoreText patterns, notifyWhen rules and capture steps (created through the
// form and read back through the API, a stored secret kept behind "••••", the API's field errors beside the
// row and control they name), and a capture's view of real captures of a fixture page: its text diff
// (<del>/<ins>, word-level), the elements of each region outlining the region on hover and focus, and the
// notifyWhen conditions. The tests run in order and share one page, one service and one fixture site.
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findChromium } from '../../src/render/chromium-path.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let svc: TestService;
let fx: FixtureServer;
let browser: Browser;
let page: Page;
let key: string;
const problems: string[] = [];
const shots = process.env.E2E_SCREENSHOTS; // a folder: screenshots are written there to be looked at

/** The shop page: version 2 drops the price, replaces a sentence and adds a paragraph. */
let version = 1;
const shopHtml = (v: number) => `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>
<style>body { margin: 0; font: 20px/1.4 sans-serif; background: #fff; color: #111; } main { padding: 24px 40px; width: 700px; }</style></head>
<body><main>
<h1>Blue teapot</h1>
<p class="price">Price: ${v === 1 ? '$24.99' : '$19.99'}</p>
<p class="stock">${v === 1 ? 'Only a few left in stock' : 'Plenty left in stock, ships today'}</p>
${v === 1 ? '<p class="note">Sale ends Friday</p>' : ''}
<p class="about">A teapot for four cups, glazed by hand.</p>
${v === 2 ? '<p class="new">Now with a matching lid</p>' : ''}
</main></body></html>`;

const NAME = 'Teapot page';

beforeAll(async () => {
  [svc, fx] = await Promise.all([
    startTestService({ jobs: { pollIntervalMs: 100 }, rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 } }),
    startFixtureServer(),
  ]);
  fx.route('/shop', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(shopHtml(version));
  });
  key = svc.createKey('dashboard-text').key;
  browser = await chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(15_000);
  page.on('console', (m) => { if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push(m.text()); });
  page.on('pageerror', (err) => problems.push(String(err)));
  if (shots) mkdirSync(shots, { recursive: true });
  await page.goto(`${svc.url}/monitors`);
  await page.getByRole('textbox', { name: 'API key' }).fill(key);
  await page.getByRole('button', { name: 'Save key' }).click();
  await page.locator('#list-empty').waitFor({ state: 'visible' });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([svc?.close(), fx?.close()]);
});

interface Step { action: string; selector?: string; value?: string; secret?: boolean }
interface Monitor {
  id: string; name: string; notifyWhen: Record<string, unknown>[];
  diff: { mode: string; textSelector?: string; ignoreText: string[] }; capture: { steps: Step[] };
}

async function monitors(): Promise<Monitor[]> {
  const res = await svc.call('GET', '/api/monitors', key);
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Monitor[] }).items;
}

const row = () => page.locator('#monitor-rows tr', { hasText: NAME });
const text = async (selector: string) => (await page.locator(selector).first().textContent()) ?? '';
const attr = (selector: string, name: string) => page.locator(selector).first().getAttribute(name);
const activeId = () => page.evaluate(() => document.activeElement?.id ?? '');
const settled = () => page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));

/** The rows of one of the form's lists, and the controls of row `i` by their labels. */
const rows = (list: 'ignoretext' | 'rules' | 'steps') => page.locator(`#f-${list}-list > li`);
const ruleRow = (i: number) => rows('rules').nth(i);
const stepRow = (i: number) => rows('steps').nth(i);

/** The page at phone width (375 px) and back: never wider than the phone; screenshots of both when asked for. */
async function atLaptopAndPhone(name: string, locator = '#main') {
  if (shots) await page.locator(locator).screenshot({ path: `${shots}/dashboard-text-${name}-1280.png` });
  await page.setViewportSize({ width: 375, height: 812 });
  await settled();
  // No sideways scroll; when there is, the elements that stick out are named so the failure says where.
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  const wide = width <= 375 ? [] : await page.evaluate(() => [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > 375.5)
    .map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`).slice(0, 12));
  expect(width > 375 ? [`scrollWidth ${width}`, ...wide] : [], name).toEqual([]);
  if (shots) await page.locator(locator).screenshot({ path: `${shots}/dashboard-text-${name}-375.png` });
  await page.setViewportSize({ width: 1280, height: 800 });
  await settled();
}

async function addRule(selector: string, test: string, value?: string) {
  await page.getByRole('button', { name: 'Add rule' }).click();
  const r = rows('rules').last();
  // The new row's first control has the focus: the keyboard carries on from the Add button.
  expect(await activeId()).toBe(await r.locator('input.selector').getAttribute('id'));
  await r.getByLabel('Element (CSS selector)').fill(selector);
  await r.getByLabel('Test').selectOption(test);
  if (value !== undefined) await r.getByLabel('Value').fill(value);
}

async function addStep(action: string, selector?: string, value?: string, secret = false) {
  await page.getByRole('button', { name: 'Add step' }).click();
  const r = rows('steps').last();
  await r.getByLabel('Action').selectOption(action);
  if (selector !== undefined) await r.getByLabel('Element (selector)').fill(selector);
  if (secret) await r.getByLabel('Secret').check();
  if (value !== undefined) await r.getByLabel('Value').fill(value);
}

it('creates a monitor with a mode, a text selector, ignoreText, notifyWhen rules and steps through the form', async () => {
  await page.getByRole('button', { name: 'New monitor' }).click();
  await page.locator('#f-name').fill(NAME);
  await page.locator('#f-url').fill(`${fx.url}/shop`);
  await page.locator('#f-schedule').fill('0 0 1 1 *');
  await page.getByLabel('What counts as a change').selectOption('both');
  await page.getByLabel(/^Compare the text of/).fill('main');

  await page.getByRole('button', { name: 'Add pattern' }).click();
  await page.getByLabel('Pattern 1', { exact: true }).fill('\\d{1,2}:\\d{2}');
  await page.getByRole('button', { name: 'Add pattern' }).click();
  await page.getByLabel('Pattern 2', { exact: true }).fill('Sale ends \\w+');

  await addRule('.price', 'numberBelow', '20,5'); // a decimal comma is read as a decimal point
  await addRule('.stock', 'textContains', 'in stock');
  await addRule('.note', 'disappears');
  expect(await ruleRow(2).getByLabel('Value').isDisabled()).toBe(true); // disappears takes no value

  await addStep('fill', '#user', 'ada');
  await addStep('fill', '#password', 'hunter2', true);
  expect(await stepRow(1).getByLabel('Value').getAttribute('type')).toBe('password');
  await addStep('press', undefined, 'Enter');
  await addStep('waitForTimeout', undefined, '250');
  expect(await stepRow(3).getByLabel('Element (selector)').isDisabled()).toBe(true); // waitForTimeout takes no selector
  expect(await stepRow(0).getByLabel('Secret').isDisabled()).toBe(false);
  expect(await stepRow(2).getByLabel('Secret').isDisabled()).toBe(true); // only a fill can be secret
  await atLaptopAndPhone('form-new-fields', '#form-section');

  await page.getByRole('button', { name: 'Create monitor' }).click();
  await row().waitFor();
  const [m] = await monitors();
  expect(m!.diff).toMatchObject({ mode: 'both', textSelector: 'main', ignoreText: ['\\d{1,2}:\\d{2}', 'Sale ends \\w+'] });
  expect(m!.notifyWhen).toEqual([
    { selector: '.price', numberBelow: 20.5 },
    { selector: '.stock', textContains: 'in stock' },
    { selector: '.note', disappears: true },
  ]);
  expect(m!.capture.steps).toEqual([
    { action: 'fill', selector: '#user', value: 'ada' },
    { action: 'fill', selector: '#password', value: '••••', secret: true },
    { action: 'press', value: 'Enter' },
    { action: 'waitForTimeout', value: '250' },
  ]);
});

it('edits them: the stored secret shows "••••" and is kept when sent back; removed rows go', async () => {
  const [before] = await monitors();
  const sealedSteps = () => (JSON.parse(svc.db.prepare('SELECT capture FROM monitors WHERE id = ?').pluck().get(before!.id) as string) as { steps: Step[] }).steps;
  const sealedSecret = sealedSteps()[1]!.value;
  expect(sealedSecret).not.toBe('hunter2');

  await row().getByRole('button', { name: `Edit ${NAME}` }).click();
  await page.locator('#form-section').waitFor();
  expect(await page.getByLabel('What counts as a change').inputValue()).toBe('both');
  expect(await page.getByLabel(/^Compare the text of/).inputValue()).toBe('main');
  expect(await page.getByLabel('Pattern 2', { exact: true }).inputValue()).toBe('Sale ends \\w+');
  expect(await rows('rules').count()).toBe(3);
  expect(await ruleRow(0).getByLabel('Test').inputValue()).toBe('numberBelow');
  expect(await ruleRow(0).getByLabel('Value').inputValue()).toBe('20.5');
  expect(await ruleRow(2).getByLabel('Test').inputValue()).toBe('disappears');
  expect(await stepRow(1).getByLabel('Value').inputValue()).toBe('••••');
  expect(await stepRow(1).getByLabel('Secret').isChecked()).toBe(true);
  expect(await stepRow(1).getByLabel('Value').getAttribute('type')).toBe('password');

  // Remove rule 2 with the keyboard: the focus moves to the rule that took its place.
  await ruleRow(1).getByRole('button', { name: 'Remove rule 2' }).focus();
  await page.keyboard.press('Enter');
  expect(await rows('rules').count()).toBe(2);
  expect(await activeId()).toBe(await ruleRow(1).locator('input.selector').getAttribute('id'));
  expect(await ruleRow(1).locator('legend').textContent()).toBe('Rule 2');
  await stepRow(3).getByRole('button', { name: 'Remove step 4' }).click();
  await page.getByRole('button', { name: 'Remove pattern 1' }).click();
  await page.getByLabel('What counts as a change').selectOption('text');
  await page.getByLabel(/^Compare the text of/).fill('');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await until('the form to close', async () => !(await page.locator('#form-section').isVisible()), 10_000);

  const [after] = await monitors();
  expect(after!.diff.mode).toBe('text');
  expect(after!.diff.textSelector).toBeUndefined();
  expect(after!.diff.ignoreText).toEqual(['Sale ends \\w+']);
  expect(after!.notifyWhen).toEqual([{ selector: '.price', numberBelow: 20.5 }, { selector: '.note', disappears: true }]);
  expect(after!.capture.steps).toEqual([
    { action: 'fill', selector: '#user', value: 'ada' },
    { action: 'fill', selector: '#password', value: '••••', secret: true },
    { action: 'press', value: 'Enter' },
  ]);
  // "••••" sent back kept the stored secret: the same sealed value, not a sealed "••••".
  expect(sealedSteps()[1]!.value).toBe(sealedSecret);
});

it('shows the API field errors beside the list rows and controls they name', async () => {
  await page.getByRole('button', { name: 'New monitor' }).click();
  await page.locator('#f-name').fill('Bad lists');
  await page.locator('#f-url').fill(`${fx.url}/shop`);
  await page.locator('#f-schedule').fill('0 0 1 1 *');
  for (const pattern of ['a', 'b', 'x'.repeat(501)]) {
    await page.getByRole('button', { name: 'Add pattern' }).click();
    await rows('ignoretext').last().locator('input').fill(pattern);
  }
  await addRule('.price', 'numberBelow', '5');
  await addRule('.price', 'numberAbove', 'cheap');
  await addStep('waitForTimeout', undefined, 'soon');
  await addStep('click');
  await page.getByRole('button', { name: 'Create monitor' }).click();

  await until('the errors', async () => (await attr('#form-error .alert', 'class')) !== null, 10_000);
  // Each error is beside the control its path names, the control invalid and described by it.
  const expectError = async (control: ReturnType<Page['locator']>, pattern: RegExp) => {
    const id = (await control.getAttribute('id'))!;
    expect(await control.getAttribute('aria-invalid'), id).toBe('true');
    expect(await control.getAttribute('aria-describedby'), id).toContain(`${id}-error`);
    expect(await page.locator(`#${id}-error`).isVisible(), id).toBe(true);
    expect(await page.locator(`#${id}-error`).textContent(), id).toMatch(pattern);
  };
  await expectError(rows('ignoretext').nth(2).locator('input'), /500/); // diff.ignoreText.2
  await expectError(ruleRow(1).getByLabel('Value'), /number/); // notifyWhen.1.numberAbove
  await expectError(stepRow(0).getByLabel('Value'), /milliseconds/); // capture.steps.0.value
  await expectError(stepRow(1).getByLabel('Element (selector)'), /needs a selector/); // capture.steps.1.selector
  // Nothing else is marked: the valid rows and controls are not.
  expect(await page.locator('#monitor-form [aria-invalid="true"]').count()).toBe(4);
  expect(await text('#form-error .alert')).toContain('4 fields need fixing');
  // The first of them in the form's order has the focus.
  expect(await activeId()).toBe(await rows('ignoretext').nth(2).locator('input').getAttribute('id'));
  expect(await monitors()).toHaveLength(1);
  await atLaptopAndPhone('form-list-errors', '#form-section');

  // Fixed, the marks go; an empty rule value is named by the page before asking.
  await rows('ignoretext').nth(2).locator('input').fill('c');
  await ruleRow(1).getByLabel('Value').fill('');
  await stepRow(0).getByLabel('Value').fill('100');
  await stepRow(1).getByLabel('Element (selector)').fill('#go');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await until('the local error', async () => (await ruleRow(1).getByLabel('Value').getAttribute('aria-invalid')) === 'true', 10_000);
  expect(await page.locator('#monitor-form [aria-invalid="true"]').count()).toBe(1);
  expect(await text(`#${await ruleRow(1).locator('input.value').getAttribute('id')}-error`)).toBe('Enter the number to compare with.');
  expect(await monitors()).toHaveLength(1);

  // 20 rules is the limit: the Add button stops there.
  while ((await rows('rules').count()) < 20) await page.getByRole('button', { name: 'Add rule' }).click();
  expect(await page.getByRole('button', { name: 'Add rule' }).isDisabled()).toBe(true);
  await page.getByRole('button', { name: 'Remove rule 20' }).click();
  expect(await page.getByRole('button', { name: 'Add rule' }).isDisabled()).toBe(false);
  await page.getByRole('button', { name: 'Cancel' }).click();
  expect(problems).toEqual([]);
});
