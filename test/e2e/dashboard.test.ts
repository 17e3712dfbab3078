// The monitor dashboard (/monitors) in a real browser against the running service: a key pasted, a
// monitor created through the form, field errors from the API, Run now with the history showing the real
// capture images (blob: URLs fetched with the key, compared byte for byte with the API's PNGs), a change
// of the watched page seen as a diff and in the slider, pause/resume, delete, and a refused key.
// The tests run in order and share one page, one service and one fixture site.
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { SyncKeys } from '../helpers/sync-keys.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decodePng, isPng } from '../helpers/png.js';
import { bytesOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let svc: TestService;
let fx: FixtureServer;
let browser: Browser;
let page: Page;
let key: string;
const problems: string[] = [];
const shots = process.env.E2E_SCREENSHOTS; // a folder: screenshots are written there to be looked at

/** The watched page: the test switches it from version 1 to 2 to make a change. */
let version = 1;
const watchedHtml = (v: number) => `<!doctype html><html><head><meta charset="utf-8"><title>Watched</title>
<style>body { margin: 0; font: 24px sans-serif; background: #fff; } h1 { margin: 40px; }
.box { margin: 40px; width: 600px; height: 300px; background: ${v === 1 ? '#1f6feb' : '#e5534b'}; }</style></head>
<body><h1>Price: ${v === 1 ? '$10' : '$99 — sale ends soon'}</h1><div class="box"></div></body></html>`;

const NAME = 'Fixture pricing page';

beforeAll(async () => {
  [svc, fx] = await Promise.all([
    startTestService({
      jobs: { pollIntervalMs: 100 },
      // The page polls while a capture runs; the test reads the API too.
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    }),
    startFixtureServer(),
  ]);
  fx.route('/watched', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(watchedHtml(version));
  });
  key = svc.createKey('dashboard').key;
  browser = await chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(15_000);
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (err) => problems.push(String(err)));
  if (shots) mkdirSync(shots, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([svc?.close(), fx?.close()]);
});

interface Monitor {
  id: string;
  name: string;
  url: string;
  schedule: string;
  timezone: string;
  paused: boolean;
  nextRunAt?: string;
  diff: Record<string, unknown>;
  capture: { headers?: Record<string, string> };
}
interface Capture {
  id: string;
  status: string;
  changed: boolean;
  baselineId: string | null;
  diffUrl?: string;
  width: number;
  height: number;
}

async function monitors(): Promise<Monitor[]> {
  const res = await svc.call('GET', '/api/monitors', key);
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Monitor[] }).items;
}

async function captures(id: string): Promise<Capture[]> {
  return ((await (await svc.call('GET', `/api/monitors/${id}/captures`, key)).json()) as { items: Capture[] }).items;
}

const row = () => page.locator('#monitor-rows tr', { hasText: NAME });
const text = async (selector: string) => (await page.locator(selector).textContent()) ?? '';
const attr = (selector: string, name: string) => page.locator(selector).getAttribute(name);
const activeId = () => page.evaluate(() => document.activeElement?.id ?? '');

/**
 * What an <img> shows: its blob: URL (fetched by the page with the key) drawn on a canvas, with the pixels
 * at a grid of points read back. (The page's CSP refuses fetch() of a blob:, so the pixels are read instead.)
 */
async function shownImage(
  selector: string,
): Promise<{ width: number; height: number; samples: [number, number, number[]][] }> {
  expect(await attr(selector, 'src')).toMatch(/^blob:/);
  return page.locator(selector).evaluate((img: HTMLImageElement) => {
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const ctx = canvas.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    const samples: [number, number, number[]][] = [];
    for (let y = 5; y < canvas.height; y += 37) {
      for (let x = 5; x < canvas.width; x += 41) samples.push([x, y, Array.from(ctx.getImageData(x, y, 1, 1).data)]);
    }
    return { width: canvas.width, height: canvas.height, samples };
  });
}

/** The image shown is this PNG of the API, pixel for pixel at the sampled points. */
async function expectShows(selector: string, png: Buffer) {
  expect(isPng(png)).toBe(true);
  const decoded = decodePng(png);
  const shown = await shownImage(selector);
  expect({ width: shown.width, height: shown.height }).toEqual({ width: decoded.width, height: decoded.height });
  const off = shown.samples.filter(([x, y, [r, g, b]]) => {
    const p = decoded.pixel(x, y);
    return Math.abs(p.r - r!) > 2 || Math.abs(p.g - g!) > 2 || Math.abs(p.b - b!) > 2;
  });
  expect(off).toEqual([]);
  return decoded;
}

const apiPng = async (path: string) => bytesOf(await svc.call('GET', path, key));
const rendered = (selector: string) =>
  page.locator(selector).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0);

/** The page as it is, at phone width too: never wider than the phone; screenshots of both when asked for. */
async function atLaptopAndPhone(name: string) {
  if (shots) await page.screenshot({ path: `${shots}/dashboard-${name}-1280.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await settled();
  expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(390); // no sideways scroll
  if (shots) await page.screenshot({ path: `${shots}/dashboard-${name}-390.png`, fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await settled();
}

/** Two frames: the page has laid out and painted at its new size. */
const settled = () =>
  page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );

it('takes a pasted key, shows the empty state, and creates a monitor through the form', async () => {
  await page.goto(`${svc.url}/monitors`);
  expect(await text('#key-error')).toContain('Paste an API key');
  expect(await page.locator('#list-section').isVisible()).toBe(false);

  await page.getByRole('textbox', { name: 'API key' }).fill(key);
  await page.getByRole('button', { name: 'Save key' }).click();
  await page.locator('#list-empty').waitFor({ state: 'visible' });
  expect(await text('#list-empty')).toContain('No monitors yet');
  expect(await page.evaluate(() => localStorage.getItem('pagewatch.apiKey'))).toBe(key);

  await page.getByRole('button', { name: 'New monitor' }).click();
  expect(await activeId()).toBe('form-title');
  await page.locator('#f-name').fill(NAME);
  await page.locator('#f-url').fill(`${fx.url}/watched`);
  await page.locator('#f-schedule').fill('0 0 1 1 *');
  await page.locator('#f-timezone').fill('Europe/Paris');
  await page.locator('#f-ignore').fill('.ad\n  \n time ');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await row().waitFor();
  expect(await page.locator('#form-section').isVisible()).toBe(false);
  expect(await row().locator('a.name').getAttribute('href')).toBe(`${fx.url}/watched`);
  expect(await row().locator('.c-schedule').textContent()).toContain('0 0 1 1 *');
  expect(await row().locator('[data-status]').getAttribute('data-status')).toBe('none');

  const list = await monitors();
  expect(await row().locator('.c-next time').getAttribute('datetime')).toBe(list[0]!.nextRunAt);
  expect(list).toHaveLength(1);
  expect(list[0]).toMatchObject({
    name: NAME,
    url: `${fx.url}/watched`,
    schedule: '0 0 1 1 *',
    timezone: 'Europe/Paris',
    paused: false,
  });
  expect(list[0]!.diff).toMatchObject({ ignoreSelectors: ['.ad', 'time'], threshold: 0.1, confirm: true });
});

it('shows the API field errors next to their fields and creates nothing', async () => {
  await page.getByRole('button', { name: 'New monitor' }).click();
  await page.locator('#f-name').fill('Bad one');
  await page.locator('#f-url').fill(`${fx.url}/watched`);
  await page.locator('#f-schedule').fill('61 * * * *');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await until('the schedule error', async () => (await attr('#f-schedule', 'aria-invalid')) === 'true', 10_000);
  expect(await text('#f-schedule-error')).toMatch(/minute field "61" is not valid/);
  expect(await page.locator('#f-schedule-error').isVisible()).toBe(true);
  expect(await attr('#f-schedule', 'aria-describedby')).toContain('f-schedule-error');
  expect(await activeId()).toBe('f-schedule');
  expect(await text('#form-error [class~="alert"]')).toContain('1 field needs fixing');
  expect(await attr('#f-url', 'aria-invalid')).toBeNull();
  expect(await monitors()).toHaveLength(1);

  // Two at once: the first invalid field in the form takes the focus.
  await page.locator('#f-threshold').fill('7');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await until('the threshold error', async () => (await attr('#f-threshold', 'aria-invalid')) === 'true', 10_000);
  expect(await attr('#f-schedule', 'aria-invalid')).toBe('true');
  expect(await activeId()).toBe('f-schedule');
  expect(await page.locator('#f-threshold-error').isVisible()).toBe(true);
  await atLaptopAndPhone('form-errors');

  await page.locator('#f-threshold').fill('');
  await page.locator('#f-schedule').fill('*/15 * * * *');
  await page.locator('#f-url').fill('http://10.0.0.1/');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await until('the blocked URL error', async () => (await attr('#f-url', 'aria-invalid')) === 'true', 10_000);
  expect(await text('#f-url-error')).toMatch(/^The URL is not allowed by the egress policy: /); // the API's sentence, once
  expect(await attr('#f-schedule', 'aria-invalid')).toBeNull();
  expect(await activeId()).toBe('f-url');
  expect(await monitors()).toHaveLength(1);
  await atLaptopAndPhone('form-blocked');

  await page.getByRole('button', { name: 'Cancel' }).click();
  expect(await page.locator('#form-section').isVisible()).toBe(false);
  expect(await activeId()).toBe('new-monitor');
});

it('runs a capture, shows its image, then shows a change as a diff and in the slider', async () => {
  const [monitor] = await monitors();
  await row()
    .getByRole('button', { name: `History of ${NAME}` })
    .click();
  await page.locator('#history-section').waitFor();
  // The title takes the focus in an effect, which runs just after the section is first painted.
  await until('the focus on the title', async () => (await activeId()) === 'history-title', 5_000);
  expect(await page.locator('#captures-empty').isVisible()).toBe(true);

  await page.locator('#history-run').click();
  await until(
    'the first capture to show',
    async () => (await page.locator('#captures button.capture').count()) === 1 && rendered('#single-img'),
    45_000,
  );
  const [first] = await captures(monitor!.id);
  expect(first).toMatchObject({ status: 'succeeded', changed: false, baselineId: null });
  // The image shown is the capture itself: the API's PNG, 1280×800, the box blue.
  const firstPng = await apiPng(`/api/captures/${first!.id}/image`);
  const shown = await expectShows('#single-img', firstPng);
  expect(shown).toMatchObject({ width: 1280, height: 800 });
  expect(shown.pixel(300, 300)).toEqual({ r: 0x1f, g: 0x6f, b: 0xeb, a: 255 });
  expect(await page.locator('#captures [data-status]').first().getAttribute('data-status')).toBe('baseline');
  expect(await page.locator('button[data-view="diff"]').isDisabled()).toBe(true);
  expect(await page.locator('button[data-view="slider"]').isDisabled()).toBe(true);
  await until(
    'the list to show the run',
    async () => (await row().locator('[data-status]').getAttribute('data-status')) === 'baseline',
    15_000,
  );

  version = 2;
  await page.locator('#history-run').click();
  await until(
    'the second capture to show',
    async () => (await page.locator('#captures button.capture').count()) === 2,
    45_000,
  );
  const [second] = await captures(monitor!.id);
  expect(second).toMatchObject({ status: 'succeeded', changed: true, baselineId: first!.id });
  const newest = page.locator('#captures button.capture').first();
  expect(await newest.getAttribute('aria-pressed')).toBe('true');
  expect(await newest.locator('[data-status]').getAttribute('data-status')).toBe('changed');
  expect(await newest.textContent()).toMatch(/\d % of pixels differ/);
  expect(await text('#notice')).toContain('changed');
  expect(await page.locator('#regions li').count()).toBeGreaterThan(0);
  expect(await text('#regions')).toMatch(/x \d+, y \d+, \d+ × \d+ px/);

  // Current → Diff: the diff image, fetched with the key, is the API's diff PNG.
  await page.getByRole('button', { name: 'Diff', exact: true }).click();
  expect(await attr('button[data-view="diff"]', 'aria-pressed')).toBe('true');
  expect(await attr('button[data-view="current"]', 'aria-pressed')).toBe('false');
  await until(
    'the diff image',
    async () => (await text('#single-caption')).startsWith('Diff') && rendered('#single-img'),
    15_000,
  );
  const diff = await expectShows('#single-img', await apiPng(`/api/captures/${second!.id}/diff`));
  expect(diff.pixel(300, 300)).toMatchObject({ r: 255, g: 0, b: 0 }); // the changed box, in red
  await page.evaluate(() => window.scrollTo(0, 0));
  await atLaptopAndPhone('history-diff');

  // Actual size: one image pixel per CSS pixel, the frame scrolling sideways; and back to fitted.
  const fit = async () =>
    page.evaluate(() => {
      const img = document.getElementById('single-img') as HTMLImageElement;
      const stage = document.getElementById('single')!;
      return {
        shown: img.getBoundingClientRect().width,
        natural: img.naturalWidth,
        frame: stage.clientWidth,
        scroll: stage.scrollWidth,
      };
    });
  const fitted = await fit();
  expect(fitted.shown).toBeLessThan(fitted.natural); // the viewer is narrower than a 1280 px capture
  await page.getByRole('button', { name: 'Actual size' }).click();
  expect(await attr('#zoom', 'aria-pressed')).toBe('true');
  const actual = await fit();
  expect(actual.shown).toBe(actual.natural);
  expect(actual.scroll).toBeGreaterThan(actual.frame);
  await page.getByRole('button', { name: 'Actual size' }).click();
  expect(await attr('#zoom', 'aria-pressed')).toBe('false');
  expect((await fit()).shown).toBe(fitted.shown);

  await page.getByRole('button', { name: 'Previous', exact: true }).click();
  await until(
    'the previous image',
    async () => (await text('#single-caption')).startsWith('Previous') && rendered('#single-img'),
    15_000,
  );
  await expectShows('#single-img', firstPng);

  // Slider: the previous capture under the current one, the range input revealing more or less of it.
  await page.getByRole('button', { name: 'Slider compare' }).click();
  await until('both slider images', async () => (await rendered('#compare-prev')) && rendered('#compare-cur'), 15_000);
  const box = (await page.locator('#compare-box').boundingBox())!;
  const revealed = async () => (await page.locator('#compare-reveal').boundingBox())!.width;
  await page.getByLabel('Reveal the current capture').fill('20');
  const at20 = await revealed();
  await page.getByLabel('Reveal the current capture').fill('80');
  const at80 = await revealed();
  expect(at80).toBeGreaterThan(at20);
  expect(at20).toBeCloseTo(box.width * 0.2, -1);
  expect(at80).toBeCloseTo(box.width * 0.8, -1);
  expect(await attr('#compare-range', 'aria-valuetext')).toContain('80 %');
  // The slider's current image is the new capture, the one under it the baseline.
  await expectShows('#compare-prev', firstPng);
  const current = await expectShows('#compare-cur', await apiPng(`/api/captures/${second!.id}/image`));
  expect(current.pixel(300, 300)).toEqual({ r: 0xe5, g: 0x53, b: 0x4b, a: 255 });
  if (shots) await page.locator('#history-section').screenshot({ path: `${shots}/dashboard-history-slider-1280.png` });

  await until(
    'the list to show the change',
    async () => (await row().locator('[data-status]').getAttribute('data-status')) === 'changed',
    15_000,
  );
  expect(await row().locator('.c-change time').count()).toBe(1);
  await page.evaluate(() => window.scrollTo(0, 0));
  await atLaptopAndPhone('list');
});

it('pauses and resumes a monitor', async () => {
  await row()
    .getByRole('button', { name: `Pause ${NAME}` })
    .click();
  await until(
    'the paused badge',
    async () => (await row().locator('[data-status]').getAttribute('data-status')) === 'paused',
    10_000,
  );
  expect(await row().locator('[data-status]').textContent()).toBe('paused');
  expect((await monitors())[0]).toMatchObject({ paused: true });
  expect((await monitors())[0]!.nextRunAt).toBeUndefined();

  await row()
    .getByRole('button', { name: `Resume ${NAME}` })
    .click();
  await until(
    'the badge back',
    async () => (await row().locator('[data-status]').getAttribute('data-status')) === 'changed',
    10_000,
  );
  expect(
    await row()
      .getByRole('button', { name: `Pause ${NAME}` })
      .count(),
  ).toBe(1);
  const [resumed] = await monitors();
  expect(resumed).toMatchObject({ paused: false });
  expect(resumed!.nextRunAt).toBeDefined();
});

it('edits a monitor with a PATCH of the form fields', async () => {
  // The form does not show capture secrets; saving it must keep them (the same sealed values).
  const [watched] = await monitors();
  const withSecrets = await svc.call('PATCH', `/api/monitors/${watched!.id}`, key, {
    capture: { headers: { 'X-Api-Token': 'dashboard-secret' } },
  });
  expect(withSecrets.status).toBe(200);
  const sealedCapture = () =>
    JSON.parse(svc.db.prepare('SELECT capture FROM monitors WHERE id = ?').pluck().get(watched!.id) as string) as {
      headers: Record<string, string>;
    };
  const sealedBefore = sealedCapture().headers;
  expect(sealedBefore['X-Api-Token']).toMatch(/^enc:v1:/);
  await row()
    .getByRole('button', { name: `Edit ${NAME}` })
    .click();
  await page.locator('#form-section').waitFor();
  expect(await text('#form-title')).toBe(`Edit “${NAME}”`);
  expect(await page.locator('#f-url').inputValue()).toBe(`${fx.url}/watched`);
  expect(await page.locator('#f-ignore').inputValue()).toBe('.ad\ntime');
  await page.locator('#f-schedule').fill('0 12 * * 1-5');
  await page.locator('#f-keep').fill('5');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await until(
    'the new schedule in the list',
    async () => (await row().locator('.c-schedule code').textContent()) === '0 12 * * 1-5',
    10_000,
  );
  const [edited] = await monitors();
  expect(edited).toMatchObject({ schedule: '0 12 * * 1-5', timezone: 'Europe/Paris', retention: { keep: 5 } });
  expect(edited!.capture.headers).toEqual({ 'X-Api-Token': '••••' });
  expect(sealedCapture().headers).toEqual(sealedBefore);
});

it('pages a long history: 20 captures, then Load more shows the rest, newest first, none twice', async () => {
  const res = await svc.call('POST', '/api/monitors', key, {
    url: `${fx.url}/watched`,
    schedule: '0 0 1 1 *',
    name: 'Long history',
  });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  try {
    const all = async () =>
      ((await (await svc.call('GET', `/api/monitors/${id}/captures?limit=100`, key)).json()) as { items: Capture[] })
        .items;
    for (let n = 1; n <= 23; n++) {
      expect((await svc.call('POST', `/api/monitors/${id}/run`, key)).status).toBe(202);
      await until(
        `capture ${n}`,
        async () => {
          const items = await all();
          return items.length === n && items.every((c) => c.status === 'succeeded');
        },
        30_000,
        50,
      );
    }
    const expected = (await all()).map((c) => c.id);
    expect(expected).toHaveLength(23);

    await page.locator('#refresh').click();
    const longRow = page.locator('#monitor-rows tr', { hasText: 'Long history' });
    await longRow.waitFor();
    await longRow.getByRole('button', { name: /^History/ }).click();
    const shown = () =>
      page
        .locator('#captures button.capture')
        .evaluateAll((buttons) => buttons.map((b) => (b as HTMLElement).dataset.capture));
    await until('the first page of captures', async () => (await shown()).length === 20, 15_000);
    expect(await shown()).toEqual(expected.slice(0, 20));
    expect(await page.locator('#captures-more').isVisible()).toBe(true);
    await page.locator('#captures-more').click();
    await until('the rest of the captures', async () => (await shown()).length === 23, 15_000);
    expect(await shown()).toEqual(expected);
    expect(await page.locator('#captures-more').isVisible()).toBe(false);
  } finally {
    await page
      .getByRole('button', { name: 'Close history' })
      .click()
      .catch(() => undefined);
    await svc.call('DELETE', `/api/monitors/${id}`, key);
    await page.locator('#refresh').click();
  }
});

it('deletes a monitor after a confirmation', async () => {
  const [monitor] = await monitors();
  await row()
    .getByRole('button', { name: `Delete ${NAME}` })
    .click();
  await page.locator('#delete-dialog').waitFor();
  expect(await text('#delete-title')).toContain(NAME);
  await page.locator('#delete-cancel').click(); // cancelling keeps it
  expect(await row().count()).toBe(1);

  await row()
    .getByRole('button', { name: `Delete ${NAME}` })
    .click();
  await page.locator('#delete-confirm').click();
  await until('the row to go', async () => (await row().count()) === 0, 10_000);
  expect(await page.locator('#list-empty').isVisible()).toBe(true);
  expect(await page.locator('#history-section').isVisible()).toBe(false);
  expect(await monitors()).toHaveLength(0);
  expect((await svc.call('GET', `/api/monitors/${monitor!.id}`, key)).status).toBe(404);
});

it('refreshes the list on its own while the page is visible', async () => {
  expect(await page.evaluate(() => document.visibilityState)).toBe('visible');
  const made = await svc.call('POST', '/api/monitors', key, {
    name: 'Made elsewhere',
    url: `${fx.url}/watched`,
    schedule: '*/5 * * * *',
  });
  expect(made.status).toBe(201);
  // No click and no reload: the 10 s refresh brings it.
  await until(
    'the new monitor to show',
    async () => (await page.locator('#monitor-rows tr', { hasText: 'Made elsewhere' }).count()) === 1,
    25_000,
    200,
  );
  expect(await page.locator('#list-empty').isVisible()).toBe(false);
});

it('a key typed before the page script runs never reaches a URL (the forms submit no key field)', async () => {
  // With scripts off the forms fall back to a plain GET submission: everything named would be in the URL.
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    const bare = await context.newPage();
    for (const [path, input] of [
      ['/monitors', '#key-input'],
      ['/', '#key'],
    ] as const) {
      await bare.goto(`${svc.url}${path}`);
      // The dashboard is drawn by its script: without scripts it has no field a key could be typed in.
      if (path === '/monitors') {
        expect(await bare.locator('input').count()).toBe(0);
        continue;
      }
      await bare.locator('#advanced summary').click();
      await bare.fill(input, 'pw_live_typed_too_early');
      await Promise.all([bare.waitForEvent('framenavigated'), bare.press(input, 'Enter')]);
      expect(bare.url(), path).not.toContain('pw_live_typed_too_early');
    }
  } finally {
    await context.close();
  }
});

it('says so when the key is wrong or revoked', async () => {
  await page.getByRole('button', { name: 'Forget key' }).click();
  expect(await page.evaluate(() => localStorage.getItem('pagewatch.apiKey'))).toBeNull();
  await page.getByRole('textbox', { name: 'API key' }).fill('pw_live_not-a-real-key');
  await page.getByRole('button', { name: 'Save key' }).click();
  await until(
    'the unauthorized message',
    async () => (await text('#key-error')).includes('the key is unknown or revoked'),
    10_000,
  );
  expect(await page.locator('#list-section').isVisible()).toBe(false);
  expect(await page.evaluate(() => localStorage.getItem('pagewatch.apiKey'))).toBeNull();

  // A saved key that is revoked later: the page says so on its next load.
  const other = svc.createKey('revoked-later');
  await page.getByRole('textbox', { name: 'API key' }).fill(other.key);
  await page.getByRole('button', { name: 'Save key' }).click();
  await page.locator('#list-empty').waitFor({ state: 'visible' });
  new SyncKeys(svc.db).revoke(other.id);
  await page.reload();
  await until(
    'the revoked message',
    async () => (await text('#key-error')).includes('the key is unknown or revoked'),
    10_000,
  );
  expect(await page.locator('#list-section').isVisible()).toBe(false);
  if (shots) await page.screenshot({ path: `${shots}/dashboard-unauthorized-1280.png` });
  expect(problems).toEqual([]);
});
