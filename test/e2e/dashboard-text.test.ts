// The dashboard's issue-11 parts in a real browser against the running service: the monitor form's
// change mode, text selector, ignoreText patterns, notifyWhen rules and capture steps (created through the
// form and read back through the API, a stored secret kept behind "••••", the API's field errors beside the
// row and control they name), and a capture's view of real captures of a fixture page: its text diff
// (<del>/<ins>, word-level), the elements of each region outlining the region on hover and focus, and the
// notifyWhen conditions. The tests run in order and share one page, one service and one fixture site.
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { captureNow } from '../helpers/capture-now.js';
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

/** The shop page: version 2 drops the price, replaces a sentence and adds a paragraph; a colour swatch far below changes too (a second region, no text). */
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
</main><div class="swatch" style="position: absolute; top: 640px; left: 600px; width: 120px; height: 60px; background: ${v === 1 ? '#1f6feb' : '#e5534b'}"></div></body></html>`;

const NAME = 'Teapot page';

beforeAll(async () => {
  [svc, fx] = await Promise.all([
    startTestService({
      jobs: { pollIntervalMs: 100 },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    }),
    startFixtureServer(),
  ]);
  fx.route('/shop', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(shopHtml(version));
  });
  // 60 lines that all change between versions (captured full page: they do not fit the viewport): more text changes than a capture keeps (50).
  fx.route('/list', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><meta charset="utf-8"><title>List</title><ul>${Array.from({ length: 60 }, (_, i) => `<li>Line ${i + 1} reads ${version === 1 ? 'alpha' : 'omega'}</li>`).join('')}</ul>`,
    );
  });
  key = svc.createKey('dashboard-text').key;
  browser = await chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(15_000);
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push(m.text());
  });
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

interface Step {
  action: string;
  selector?: string;
  value?: string;
  secret?: boolean;
}
interface Monitor {
  id: string;
  name: string;
  notifyWhen: Record<string, unknown>[];
  diff: { mode: string; textSelector?: string; ignoreText: string[] };
  capture: { steps: Step[] };
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
const settled = () =>
  page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );

/** The rows of one of the form's lists, and the controls of row `i` by their labels. */
const rows = (list: 'ignoretext' | 'rules' | 'steps' | 'filters') => page.locator(`#f-${list}-list > li`);
const ruleRow = (i: number) => rows('rules').nth(i);
const stepRow = (i: number) => rows('steps').nth(i);

/** The page at phone width (375 px) and back: never wider than the phone; screenshots of both when asked for. */
async function atLaptopAndPhone(name: string, locator = '#main') {
  if (shots) await page.locator(locator).screenshot({ path: `${shots}/dashboard-text-${name}-1280.png` });
  await page.setViewportSize({ width: 375, height: 812 });
  await settled();
  // No sideways scroll; when there is, the elements that stick out are named so the failure says where.
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  const wide =
    width <= 375
      ? []
      : await page.evaluate(() =>
          [...document.querySelectorAll('body *')]
            .filter((el) => el.getBoundingClientRect().right > 375.5)
            .map(
              (el) =>
                `${el.tagName.toLowerCase()}#${el.id}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`,
            )
            .slice(0, 12),
        );
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
  expect(m!.diff).toMatchObject({
    mode: 'both',
    textSelector: 'main',
    ignoreText: ['\\d{1,2}:\\d{2}', 'Sale ends \\w+'],
  });
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

it('edits them: the stored secret shows "••••" and is kept when sent back with the steps unchanged; removed rows go', async () => {
  const [before] = await monitors();
  const sealedSteps = () =>
    (
      JSON.parse(svc.db.prepare('SELECT capture FROM monitors WHERE id = ?').pluck().get(before!.id) as string) as {
        steps: Step[];
      }
    ).steps;
  const sealedSecret = sealedSteps()[1]!.value;
  expect(sealedSecret).not.toBe('hunter2');

  await row()
    .getByRole('button', { name: `Edit ${NAME}` })
    .click();
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
  // The steps stay as they are: "••••" keeps a stored secret only while every step is unchanged.
  await page.getByRole('button', { name: 'Remove pattern 1' }).click();
  await page.getByLabel('What counts as a change').selectOption('text');
  await page.getByLabel(/^Compare the text of/).fill('');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await until('the form to close', async () => !(await page.locator('#form-section').isVisible()), 10_000);

  const [after] = await monitors();
  expect(after!.diff.mode).toBe('text');
  expect(after!.diff.textSelector).toBeUndefined();
  expect(after!.diff.ignoreText).toEqual(['Sale ends \\w+']);
  expect(after!.notifyWhen).toEqual([
    { selector: '.price', numberBelow: 20.5 },
    { selector: '.note', disappears: true },
  ]);
  expect(after!.capture.steps).toEqual([
    { action: 'fill', selector: '#user', value: 'ada' },
    { action: 'fill', selector: '#password', value: '••••', secret: true },
    { action: 'press', value: 'Enter' },
    { action: 'waitForTimeout', value: '250' },
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
    await rows('ignoretext').last().locator('input.pattern').fill(pattern);
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
  await expectError(rows('ignoretext').nth(2).locator('input.pattern'), /500/); // diff.ignoreText.2
  await expectError(ruleRow(1).getByLabel('Value'), /number/); // notifyWhen.1.numberAbove
  await expectError(stepRow(0).getByLabel('Value'), /milliseconds/i); // capture.steps.0.value
  await expectError(stepRow(1).getByLabel('Element (selector)'), /needs a selector/); // capture.steps.1.selector
  // Nothing else is marked: the valid rows and controls are not.
  expect(await page.locator('#monitor-form [aria-invalid="true"]').count()).toBe(4);
  expect(await text('#form-error .alert')).toContain('4 fields need fixing');
  // The first of them in the form's order has the focus.
  expect(await activeId()).toBe(await rows('ignoretext').nth(2).locator('input.pattern').getAttribute('id'));
  expect(await monitors()).toHaveLength(1);
  await atLaptopAndPhone('form-list-errors', '#form-section');

  // Fixed, the marks go; an empty rule value is named by the page before asking.
  await rows('ignoretext').nth(2).locator('input.pattern').fill('c');
  await ruleRow(1).getByLabel('Value').fill('');
  await stepRow(0).getByLabel('Value').fill('100');
  await stepRow(1).getByLabel('Element (selector)').fill('#go');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await until(
    'the local error',
    async () => (await ruleRow(1).getByLabel('Value').getAttribute('aria-invalid')) === 'true',
    10_000,
  );
  expect(await page.locator('#monitor-form [aria-invalid="true"]').count()).toBe(1);
  expect(await text(`#${await ruleRow(1).locator('input.value').getAttribute('id')}-error`)).toBe(
    'Enter the number to compare with.',
  );
  expect(await monitors()).toHaveLength(1);

  // 20 of each list is the API's limit: the Add button stops there, and starts again below it.
  for (const [list, noun] of [
    ['ignoretext', 'pattern'],
    ['rules', 'rule'],
    ['steps', 'step'],
    ['filters', 'filter'],
  ] as const) {
    const add = page.getByRole('button', { name: `Add ${noun}` });
    while ((await rows(list).count()) < 19) await add.click();
    expect(await add.isDisabled(), `${noun} 19`).toBe(false);
    await add.click();
    expect(await rows(list).count()).toBe(20);
    expect(await add.isDisabled(), `${noun} 20`).toBe(true);
    await page.getByRole('button', { name: `Remove ${noun} 20` }).click();
    expect(await add.isDisabled(), `${noun} back to 19`).toBe(false);
  }
  await page.getByRole('button', { name: 'Cancel' }).click();
  expect(problems).toEqual([]);
});

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface TextChange {
  kind: string;
  before: string | null;
  after: string | null;
  selector: string | null;
  box: Box | null;
  words?: { value: string; added?: true; removed?: true }[];
}
interface CaptureView {
  id: string;
  status: string;
  changed: boolean;
  regions: (Box & { elements?: { selector: string; tag: string; before: string | null; after: string | null }[] })[];
  textChanges: TextChange[];
  textChangesTotal: number;
  summary: string | null;
  conditions: { index: number; selector: string; test: string; met: boolean; value: string | number | null }[];
  conditionErrors: string[];
  conditionsMet: boolean | null;
}

/** The second capture of the "Teapot view" monitor, which the view tests look at. */
let teapotView: CaptureView | undefined;

/** A monitor made through the API, captured at version 1 then 2 (real captures of the fixture page): the second, as the API shows it. */
async function capturedTwice(body: Record<string, unknown>): Promise<{ id: string; capture: CaptureView }> {
  version = 1;
  const res = await svc.call('POST', '/api/monitors', key, { schedule: '0 0 1 1 *', ...body });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  const first = await captureNow(svc, key, id);
  expect(first.status).toBe('succeeded');
  version = 2;
  const second = await captureNow(svc, key, id, first.id);
  expect(second.status).toBe('succeeded');
  const capture = (await (await svc.call('GET', `/api/captures/${second.id}`, key)).json()) as CaptureView;
  return { id, capture };
}

async function openHistoryOf(name: string, captureId: string) {
  await page.locator('#refresh').click();
  const r = page.locator('#monitor-rows tr', { hasText: name });
  await r.waitFor();
  await r.getByRole('button', { name: `History of ${name}` }).click();
  await until(
    'the capture selected',
    async () =>
      (await page.locator(`#captures button[data-capture="${captureId}"]`).getAttribute('aria-pressed')) === 'true',
    15_000,
  );
  await until(
    'its image',
    () => page.locator('#single-img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
    15_000,
  );
}

/** Where the outline is, in the capture's pixels (its inner edge: the border is drawn outside the box). */
const outlineBox = () =>
  page.evaluate(() => {
    const outline = document.getElementById('region-outline');
    if (!outline || outline.hidden) return null;
    const img = document.getElementById('single-img') as HTMLImageElement;
    const o = outline.getBoundingClientRect();
    const i = img.getBoundingClientRect();
    const scale = img.naturalWidth / i.width;
    const border = outline.clientLeft;
    return {
      x: (o.x + border - i.x) * scale,
      y: (o.y + border - i.y) * scale,
      width: (o.width - 2 * border) * scale,
      height: (o.height - 2 * border) * scale,
    };
  });

function expectNear(actual: Box | null, expected: Box, slack: number) {
  expect(actual).not.toBeNull();
  for (const k of ['x', 'y', 'width', 'height'] as const)
    expect(Math.abs(actual![k] - expected[k]), `${k}: ${actual![k]} vs ${expected[k]}`).toBeLessThanOrEqual(slack);
}

it("shows a capture's text diff beside the image, struck through and underlined, word by word", async () => {
  const { capture } = await capturedTwice({
    name: 'Teapot view',
    url: `${fx.url}/shop`,
    notifyWhen: [
      { selector: '.price', numberBelow: 20 },
      { selector: '.stock', textContains: 'in stock' },
      { selector: '.coupon', textContains: 'SAVE' },
    ],
  });
  teapotView = capture;
  expect(capture.changed).toBe(true);
  const kinds = capture.textChanges.map((t) => t.kind);
  expect(kinds).toEqual(expect.arrayContaining(['changed', 'removed', 'added']));
  await openHistoryOf('Teapot view', capture.id);
  // The capture's one-line summary heads its facts.
  expect(capture.summary).toMatch(/→/);
  expect(await page.locator('#viewer-meta').textContent()).toContain(`Text changed${capture.summary}`);

  const items = page.locator('#text-changes > li');
  expect(await items.count()).toBe(capture.textChanges.length);
  expect(await page.locator('#text-changes-none').isVisible()).toBe(false);
  expect(await page.locator('#text-changes-more').isVisible()).toBe(false);
  // Each row says the API's change: without the <ins> parts it reads the text before, without the <del> parts the text after.
  const shown = await items.evaluateAll((lis) =>
    lis.map((li) => {
      const text = li.querySelector('.tc-text')!;
      const without = (tag: string) =>
        [...text.childNodes]
          .filter((n) => n.nodeName !== tag)
          .map((n) => n.textContent)
          .join('');
      return {
        kind: li.querySelector('.tc-kind')!.textContent,
        before: without('INS'),
        after: without('DEL'),
        dels: [...text.querySelectorAll('del')].map((d) => d.textContent),
        inses: [...text.querySelectorAll('ins')].map((d) => d.textContent),
      };
    }),
  );
  capture.textChanges.forEach((change, i) => {
    const row = shown[i]!;
    expect(row.kind.toLowerCase()).toBe(change.kind);
    if (change.kind === 'added') expect(row).toMatchObject({ before: '', after: change.after, dels: [] });
    if (change.kind === 'removed') expect(row).toMatchObject({ before: change.before, after: '', inses: [] });
    if (change.kind === 'changed') {
      expect(row.before.replace(/\s+/g, ' ').trim()).toBe(change.before!.replace(/\s+/g, ' ').trim());
      expect(row.after.replace(/\s+/g, ' ').trim()).toBe(change.after!.replace(/\s+/g, ' ').trim());
    }
  });
  // The price: only its changed word is struck through / added, the rest of the line is plain.
  const price = shown.find((row) => row.before.includes('24.99'))!;
  expect(price).toMatchObject({ kind: 'Changed' });
  expect(price.after).toContain('19.99');
  expect(price.dels.join('')).toContain('24');
  expect(price.dels.join('')).not.toContain('Price');
  expect(price.inses.join('')).toContain('19');
  expect(shown.find((row) => row.before === 'Sale ends Friday')).toMatchObject({
    kind: 'Removed',
    after: '',
    dels: ['Sale ends Friday'],
  });
  expect(shown.find((row) => row.after === 'Now with a matching lid')).toMatchObject({
    kind: 'Added',
    before: '',
    inses: ['Now with a matching lid'],
  });

  // Removed struck through in red, added underlined in green (and said to screen readers: CSS generated text).
  const look = (tag: string) =>
    page
      .locator(`#text-changes ${tag}`)
      .first()
      .evaluate((el) => {
        const style = getComputedStyle(el);
        return { line: style.textDecorationLine, color: style.color, said: getComputedStyle(el, '::before').content };
      });
  const del = await look('del');
  const ins = await look('ins');
  expect(del.line).toContain('line-through');
  expect(del.said).toContain('removed');
  expect(ins.line).toContain('underline');
  expect(ins.said).toContain('added');
  const rgb = (css: string) => css.match(/\d+/g)!.map(Number);
  const [dr, dg] = rgb(del.color);
  const [ir, ig] = rgb(ins.color);
  expect(dr!).toBeGreaterThan(dg! * 2); // red
  expect(ig!).toBeGreaterThan(ir! * 2); // green

  // Beside the image at laptop width; below it on a phone, with no sideways scroll.
  const [stage, pane] = await Promise.all([
    page.locator('#single').boundingBox(),
    page.locator('.text-changes').boundingBox(),
  ]);
  expect(pane!.x).toBeGreaterThanOrEqual(stage!.x + stage!.width);
  expect(pane!.y).toBeLessThan(stage!.y + stage!.height);
  await atLaptopAndPhone('capture-view', '#history-section');
});

it('lists the elements of each region and outlines the region on the image on hover and on focus', async () => {
  const capture = teapotView;
  expect(capture!.regions.length).toBeGreaterThan(1);
  const regions = page.locator('#regions > li');
  expect(await regions.count()).toBe(capture!.regions.length);
  // Each region's rows are its elements, as the API lists them: selector, tag, text before and after.
  for (const [i, region] of capture!.regions.entries()) {
    expect(await regions.nth(i).locator('button').textContent()).toContain(
      `x ${region.x}, y ${region.y}, ${region.width} × ${region.height} px`,
    );
    const elements = region.elements ?? [];
    expect(await regions.nth(i).locator('.element code').allTextContents()).toEqual(elements.map((e) => e.selector));
    for (const [j, el] of elements.entries()) {
      const dd = await regions.nth(i).locator('.element').nth(j).locator('dd').allTextContents();
      expect(dd).toEqual([el.before ?? 'not there', el.after ?? 'not there'].map((t) => (t === '' ? 'no text' : t)));
    }
  }
  const priceRegion = capture!.regions.findIndex((r) => r.elements?.some((e) => e.after?.includes('19.99')));
  expect(priceRegion).toBeGreaterThanOrEqual(0);
  const priceEl = capture!.regions[priceRegion]!.elements!.find((e) => e.after?.includes('19.99'))!;
  expect(priceEl.before).toContain('24.99');

  // No outline until a row is pointed at; pointing at each outlines its own region, leaving takes it away.
  // (The pointer is moved off first: the last test left it where the region list may now lie.)
  await page.mouse.move(0, 0);
  await page.locator('#viewer-title').focus();
  expect(await outlineBox()).toBeNull();
  for (const [i, region] of capture!.regions.entries()) {
    await regions.nth(i).locator('.elements, button').first().hover();
    expectNear(await outlineBox(), region, 2);
  }
  await page.locator('#viewer-title').hover();
  expect(await outlineBox()).toBeNull();

  // The keyboard: focus on a region's button outlines it; Tab to the next moves the outline; leaving hides it.
  await regions.nth(0).locator('button').focus();
  expectNear(await outlineBox(), capture!.regions[0]!, 2);
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.closest('li.region')?.getAttribute('data-index'))).toBe('1');
  expectNear(await outlineBox(), capture!.regions[1]!, 2);
  // At actual size (one image pixel per CSS pixel) the outline still sits on the region.
  await page.getByRole('button', { name: 'Actual size' }).click();
  // Pressed from the keyboard with the pointer out of the list: the button scrolls the image, and a
  // pointer left resting on the list would then be over another row and outline that one instead.
  await page.mouse.move(0, 0);
  await regions.nth(priceRegion).locator('button').focus();
  await page.keyboard.press('Enter');
  expectNear(await outlineBox(), capture!.regions[priceRegion]!, 1);
  if (shots) await page.locator('#viewer').screenshot({ path: `${shots}/dashboard-text-region-outline-1280.png` });
  await page.getByRole('button', { name: 'Actual size' }).click();
  // The click leaves the pointer where the list may now lie after the image shrinks back, and a row
  // under a resting pointer is outlined: move it off before leaving the list.
  await page.mouse.move(0, 0);
  await page.locator('#history-close').focus();
  expect(await outlineBox()).toBeNull();
});

it('shows the notifyWhen rules of a capture, which were true, and the errors', async () => {
  const capture = teapotView;
  // The fixture's truth: $19.99 is below 20, "in stock" is there, no .coupon on the page (false, and an error).
  expect(capture!.conditions.map((r) => [r.selector, r.met])).toEqual([
    ['.price', true],
    ['.stock', true],
    ['.coupon', false],
  ]);
  expect(capture!.conditionsMet).toBe(false);
  expect(capture!.conditionErrors.length).toBeGreaterThan(0);

  expect(await page.locator('#conditions-section').isVisible()).toBe(true);
  const rules = page.locator('#conditions > li');
  expect(await rules.evaluateAll((lis) => lis.map((li) => (li as HTMLElement).dataset.met))).toEqual([
    'true',
    'true',
    'false',
  ]);
  expect(await rules.nth(0).textContent()).toMatch(/^true\s*Rule 1: \.price number is below 20 · read 19\.99$/);
  expect(await rules.nth(2).textContent()).toContain('Rule 3: .coupon text contains “SAVE”');
  expect(await page.locator('#conditions-met [data-met]').getAttribute('data-met')).toBe('false');
  expect(await page.locator('#condition-errors li').allTextContents()).toEqual(capture!.conditionErrors);
  expect(problems).toEqual([]);
});

it('says how many more text changes there are than the capture keeps', async () => {
  const { capture } = await capturedTwice({ name: 'Long list', url: `${fx.url}/list`, capture: { fullPage: true } });
  expect(capture.textChanges).toHaveLength(50);
  expect(capture.textChangesTotal).toBe(60);
  await openHistoryOf('Long list', capture.id);
  expect(await page.locator('#text-changes > li').count()).toBe(50);
  expect(await page.locator('#text-changes-more').textContent()).toBe('…and 10 more (a capture keeps the first 50).');
  expect(await page.locator('#captures button[aria-pressed="true"]').textContent()).toContain('60 text changes');
  expect(problems).toEqual([]);
});
