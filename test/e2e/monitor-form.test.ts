// The monitor form with every option, and the monitors list's layout (#14 points 7, 6a, 6b), in a real
// browser against the running service, at laptop and phone width: a monitor made through the API with
// every capture and diff option shows each of them when edited and comes back unchanged from a save;
// set options are never hidden; an ignore region drawn with the mouse on the latest capture is saved in
// image pixels; placeholders read and look like examples; the list fits its box with long names and
// URLs; schedules read in words, in the list and live in the form.
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { VIEWPORTS, violations } from '../helpers/axe.js';
import { captureNow } from '../helpers/capture-now.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let svc: TestService;
let fx: FixtureServer;
let browser: Browser;
const shots = process.env.E2E_SCREENSHOTS; // a folder: screenshots are written there to be looked at

const watchedHtml = `<!doctype html><html><head><meta charset="utf-8"><title>Watched</title>
<style>body { margin: 0; font: 24px sans-serif; background: #fff; } h1 { margin: 40px; }
.box { margin: 40px; width: 600px; height: 300px; background: #1f6feb; }</style></head>
<body><h1>Price: $10</h1><div class="box"></div></body></html>`;

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
    res.end(watchedHtml);
  });
  browser = await chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] });
  if (shots) mkdirSync(shots, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([svc?.close(), fx?.close()]);
});

type Json = Record<string, unknown>;

/** A monitor with every capture and diff option the API takes set away from its default. */
const everyOption = (url: string, hook: string): Json => ({
  name: 'Every option',
  url,
  schedule: '0 9 * * 1-5',
  timezone: 'Europe/Paris',
  paused: true,
  capture: {
    viewport: { width: 1024, height: 700 },
    deviceScaleFactor: 2,
    device: 'iPhone 13',
    userAgent: 'PagewatchTest/1.0',
    locale: 'fr-FR',
    timezoneId: 'Europe/Berlin',
    colorScheme: 'dark',
    reducedMotion: 'no-preference',
    media: 'print',
    javaScriptEnabled: false,
    waitUntil: 'domcontentloaded',
    waitForSelector: '#ready',
    waitForFunction: 'window.done === true',
    delay: 500,
    timeout: 20_000,
    headers: { 'X-Test': 'header-secret', 'X-Other': 'two' },
    headersScope: 'all',
    cookies: [{ name: 'consent', value: 'yes', domain: '127.0.0.1', path: '/', sameSite: 'Lax' }],
    httpCredentials: { username: 'reader', password: 'basic-secret' },
    css: '.clock { display: none }',
    js: 'document.title = "x";',
    hideSelectors: ['.ad', '#chat'],
    blockResources: ['font', 'media'],
    scrollPage: true,
    failOnHttpError: false,
    clip: { x: 0, y: 10, width: 800, height: 600 },
    omitBackground: true,
    animations: 'allow',
    caret: 'initial',
    steps: [
      { action: 'click', selector: '#accept' },
      { action: 'fill', selector: '#pw', value: 'step-secret', secret: true },
    ],
    method: 'POST',
    body: '{"query": "kettle"}',
    bodyContentType: 'application/json',
  },
  diff: {
    mode: 'both',
    textSelector: 'main',
    ignoreText: ['\\d+:\\d+'],
    threshold: 0.2,
    includeAA: true,
    minChangeRatio: 0.01,
    ignoreRegions: [{ x: 1, y: 2, width: 30, height: 40 }],
    ignoreSelectors: ['.price'],
    confirm: false,
    filters: [
      { remove: '.ad' },
      { css: 'main' },
      { xpath: '//table' },
      { extract: '\\d+', flags: 'im' },
      { unique: true },
      { sort: true },
      { dropBlank: true },
      { ignoreCase: true },
      { ignoreWhitespace: true },
    ],
    filterMissingAfter: 7,
    priceSelector: '.price',
    availabilitySelector: '.stock',
  },
  notifyWhen: [{ selector: '.price', numberBelow: 20 }],
  notify: ['failure', 'change'],
  webhookUrl: hook,
  retention: { keep: 7 },
});

describe.each(Object.entries(VIEWPORTS))('at %s width', (name, viewport) => {
  let context: BrowserContext;
  let page: Page;
  let key: string;
  const problems: string[] = [];

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await svc.call(method, path, key, body);
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return (await res.json()) as Json;
  };
  const create = async (body: Json) => (await api('POST', '/api/monitors', body)) as { id: string } & Json;
  const withoutTimes = (m: Json) => {
    const { updatedAt: _u, ...rest } = m;
    return rest;
  };
  /** The page, or one part of it (a phone's whole page is too tall to look at). */
  const shot = async (what: string, part?: string) => {
    const path = `${shots}/form-${what}-${viewport.width}.png`;
    if (shots && part) await page.locator(part).first().screenshot({ path });
    else if (shots) await page.screenshot({ path, fullPage: true });
  };
  const noViolations = async (what: string) => expect(await violations(page), what).toEqual([]);
  const row = (monitorName: string) => page.locator('#monitor-rows tr', { hasText: monitorName });

  /** The dashboard with this width's key, its list loaded. */
  async function openDashboard() {
    await page.goto(`${svc.url}/monitors`);
    await page.locator('#list-section').waitFor();
    await until('the list', async () => (await page.locator('#monitor-rows tr').count()) > 0, 15_000);
  }

  async function edit(monitorName: string) {
    await row(monitorName)
      .getByRole('button', { name: `Edit ${monitorName}` })
      .click();
    await page.locator('#form-section').waitFor();
    await until('the form filled', async () => (await page.locator('#form-submit').textContent()) === 'Save changes');
  }

  async function save() {
    await page.getByRole('button', { name: 'Save changes' }).click();
    await until('the form to close after saving', async () => !(await page.locator('#form-section').isVisible()));
    // The closed form is no longer drawn: no error of it can be left on the page.
    expect(await page.locator('#form-error [class~="alert"]').count()).toBe(0);
  }

  beforeAll(async () => {
    key = svc.createKey(`form-${name}`).key;
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

  it('shows every option of a monitor made through the API, and a save without changes keeps it exactly', async () => {
    const made = await create(everyOption(`${fx.url}/watched`, `${fx.url}/hook`));
    const original = await api('GET', `/api/monitors/${made.id}`);
    await openDashboard();
    await edit('Every option');

    // Set options are in sight: the Advanced part is open and its summary line names them.
    expect(await page.locator('#f-advanced').getAttribute('open')).not.toBeNull();
    const summary = (await page.locator('#f-advanced-summary').textContent()) ?? '';
    for (const words of [
      '1 ignore region',
      'hide 2 elements',
      'wait 500 ms',
      'wait for #ready',
      '2 headers',
      'POST request',
      'a request body',
      'body type application/json',
    ])
      expect(summary).toContain(words);
    const value = (id: string) => page.locator(`#${id}`).inputValue();
    expect(await value('f-a-hide')).toBe('.ad\n#chat');
    expect(await value('f-a-delay')).toBe('500');
    expect(await value('f-a-waitsel')).toBe('#ready');
    expect(await value('f-a-waitfn')).toBe('window.done === true');
    expect(await value('f-a-device')).toBe('iPhone 13');
    expect(await value('f-a-scheme')).toBe('dark');
    expect(await value('f-a-headers')).toBe('X-Test: ••••\nX-Other: ••••');
    expect(await value('f-a-pass')).toBe('••••');
    expect(await value('f-vw')).toBe('1024');
    expect(await page.locator('#f-fullpage').isChecked()).toBe(false);
    expect(await value('f-a-clip-y')).toBe('10');
    expect(await page.locator('#f-a-includeaa').isChecked()).toBe(true);
    expect(await page.locator('#f-a-block-font').isChecked()).toBe(true);
    expect(await page.locator('#f-regions-list input.width').inputValue()).toBe('30');
    // Issue 27's settings: the filters in their order, the request, the product's selectors.
    expect(
      await page
        .locator('#f-filters-list select.kind')
        .evaluateAll((els) => els.map((el) => (el as HTMLSelectElement).value)),
    ).toEqual(['remove', 'css', 'xpath', 'extract', 'unique', 'sort', 'dropBlank', 'ignoreCase', 'ignoreWhitespace']);
    expect(await page.locator('#f-filters-list > li:nth-child(4) input.flags').inputValue()).toBe('im');
    expect(await value('f-filtermissing')).toBe('7');
    expect(await value('f-priceselector')).toBe('.price');
    expect(await value('f-availselector')).toBe('.stock');
    expect(await value('f-a-method')).toBe('POST');
    expect(['{"query": "kettle"}', '••••']).toContain(await value('f-a-body'));
    expect(await value('f-a-ctype')).toBe('application/json');
    await noViolations('the form with every option');
    await shot('every-option');
    await shot('every-option-advanced', '#f-advanced');

    await save();
    expect(withoutTimes(await api('GET', `/api/monitors/${made.id}`))).toEqual(withoutTimes(original));
  });

  it('keeps the Advanced part closed with "None set" for a plain monitor, and opens it once an option is set', async () => {
    const made = await create({ name: 'Plain one', url: `${fx.url}/watched`, schedule: '*/15 * * * *', paused: true });
    await openDashboard();
    await edit('Plain one');
    expect(await page.locator('#f-advanced').getAttribute('open')).toBeNull();
    expect(await page.locator('#f-advanced-summary').textContent()).toBe('None set: the defaults apply.');
    expect(await page.locator('#f-a-delay').isVisible()).toBe(false);

    await page.locator('#f-advanced-toggle').click();
    // A problem the API finds in a closed part opens it and takes the focus there.
    await page.locator('#f-a-delay').fill('20000');
    await page.locator('#f-advanced-toggle').click();
    expect(await page.locator('#f-a-delay').isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await until(
      'the delay error',
      async () => (await page.locator('#f-a-delay').getAttribute('aria-invalid')) === 'true',
    );
    expect(await page.locator('#f-advanced').getAttribute('open')).not.toBeNull();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-a-delay');
    expect(await page.locator('#f-a-delay-error').isVisible()).toBe(true);
    await noViolations('an error in the Advanced part');
    await page.locator('#f-a-delay').fill('300');
    await page.locator('#f-a-hide').fill('.cookie-banner');
    expect(await page.locator('#f-advanced-summary').textContent()).toBe('Set (2): hide 1 element, wait 300 ms.');
    await noViolations('the Advanced part open');
    await save();
    const saved = (await api('GET', `/api/monitors/${made.id}`)) as { capture: Json };
    expect(saved.capture).toMatchObject({ delay: 300, hideSelectors: ['.cookie-banner'] });

    // A fresh page: what shows comes from the monitor, not from the form as it was left.
    await openDashboard();
    await edit('Plain one');
    expect(await page.locator('#f-advanced').getAttribute('open')).not.toBeNull();
    expect(await page.locator('#f-a-delay').inputValue()).toBe('300');
    expect(await page.locator('#f-advanced-summary').textContent()).toBe('Set (2): hide 1 element, wait 300 ms.');
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it('draws an ignore region with the mouse on the latest capture, saved in image pixels; typed ones too', async () => {
    const made = await create({ name: 'Drawn on', url: `${fx.url}/watched`, schedule: '*/15 * * * *', paused: true });
    const capture = await captureNow(svc, key, made.id);
    expect(capture.status).toBe('succeeded');
    await openDashboard();
    await edit('Drawn on');
    await page.getByText('Show every option').click();
    const img = page.locator('#f-regions-img');
    await img.waitFor({ state: 'visible' });
    await until('the capture to draw on', () =>
      img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0),
    );
    expect(await img.evaluate((el: HTMLImageElement) => [el.naturalWidth, el.naturalHeight])).toEqual([
      capture.width,
      capture.height,
    ]);
    await img.scrollIntoViewIfNeeded();
    const box = (await img.boundingBox())!;
    const from = { x: box.x + box.width * 0.2, y: box.y + box.height * 0.1 };
    const to = { x: box.x + box.width * 0.55, y: box.y + box.height * 0.4 };
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 3 });
    await page.mouse.move(to.x, to.y, { steps: 3 });
    await page.mouse.up();

    // The box in the capture's own pixels: the drag's corners scaled from the image as laid out.
    const scale = capture.width! / box.width;
    const expected = {
      x: (from.x - box.x) * scale,
      y: (from.y - box.y) * (capture.height! / box.height),
      width: (to.x - from.x) * scale,
      height: (to.y - from.y) * (capture.height! / box.height),
    };
    const sides = async (i: number) =>
      Object.fromEntries(
        await Promise.all(
          (['x', 'y', 'width', 'height'] as const).map(
            async (side) =>
              [
                side,
                Number(await page.locator(`#f-regions-list li:nth-child(${i}) input.${side}`).inputValue()),
              ] as const,
          ),
        ),
      ) as Record<'x' | 'y' | 'width' | 'height', number>;
    const near = (got: Record<string, number>, want: Record<string, number>) => {
      for (const side of ['x', 'y', 'width', 'height'])
        expect(Math.abs(got[side]! - want[side]!), side).toBeLessThanOrEqual(2);
    };
    near(await sides(1), expected);
    expect(await page.locator('#f-regions-drawing-note').textContent()).toMatch(/^Region 1 added: x \d+, y \d+/);
    // The drawn box is outlined over the image where it was drawn.
    const outline = (await page.locator('#f-regions-canvas .region-box').first().boundingBox())!;
    expect(Math.abs(outline.x - from.x)).toBeLessThanOrEqual(2);
    expect(Math.abs(outline.x + outline.width - to.x)).toBeLessThanOrEqual(2);
    await noViolations('a region drawn');
    await shot('region-drawn', '#f-advanced fieldset');

    // The keyboard way: Add region, then the numbers.
    await page.getByRole('button', { name: 'Add region' }).click();
    expect(await page.evaluate(() => document.activeElement?.id)).toMatch(/^f-region-\d+-x$/);
    await page.keyboard.type('5');
    await page.locator('#f-regions-list li:nth-child(2) input.y').fill('6');
    await page.locator('#f-regions-list li:nth-child(2) input.width').fill('70');
    await page.locator('#f-regions-list li:nth-child(2) input.height').fill('80');
    await save();
    const saved = (await api('GET', `/api/monitors/${made.id}`)) as { diff: { ignoreRegions: Json[] } };
    expect(saved.diff.ignoreRegions).toHaveLength(2);
    near(saved.diff.ignoreRegions[0] as Record<string, number>, expected);
    expect(saved.diff.ignoreRegions[1]).toEqual({ x: 5, y: 6, width: 70, height: 80 });
  });

  it('shows placeholders as examples: "e.g." or "default" in their words, muted and slanted', async () => {
    await openDashboard();
    await page.getByRole('button', { name: 'New monitor' }).click();
    await page.locator('#f-advanced-toggle').click();
    await page.getByRole('button', { name: 'Add step' }).click();
    const looks = await page.locator('#monitor-form').evaluate((form) =>
      [...form.querySelectorAll<HTMLInputElement>('input[placeholder], textarea[placeholder]')].map((el) => {
        const own = getComputedStyle(el);
        const ph = getComputedStyle(el, '::placeholder');
        return { id: el.id, text: el.placeholder, color: ph.color, own: own.color, style: ph.fontStyle };
      }),
    );
    expect(looks.length).toBeGreaterThan(20);
    expect(looks.find((l) => l.id === 'f-ignore')?.text).toBe('e.g. .ad');
    const valueLike = looks.filter(
      (l) => !/^(e\.g\. |default: |optional|no |the |a key|an |milliseconds)/.test(l.text),
    );
    expect(valueLike).toEqual([]);
    for (const l of looks) {
      expect(l.color, l.id).not.toBe(l.own);
      expect(l.style, l.id).toBe('italic');
    }
    await page.getByRole('button', { name: 'Cancel' }).click();
  });
  it('fits the list in its box with long names and URLs: nothing scrolls sideways and Delete is inside', async () => {
    await create({
      name: 'Pricing page of the enterprise plan, EU storefront, logged in as the finance team',
      url: `${fx.url}/watched?campaign=autumn-sale-2026&utm_source=newsletter&utm_medium=email&ref=pagewatch`,
      schedule: '0 9 * * 1-5',
      timezone: 'America/Argentina/Buenos_Aires',
      paused: true,
    });
    // No name: the row is called by its long URL, which has nowhere to break but anywhere.
    await create({
      url: `${fx.url}/watched/a/very/long/path/without/any/spaces/to/break/on/index.html`,
      schedule: '*/5 * * * *',
    });
    await openDashboard();
    await row('Pricing page of the enterprise plan').waitFor();
    await row('/without/any/spaces/').waitFor();
    const fit = await page.evaluate(() => {
      const wrap = document.getElementById('list-wrap')!;
      const box = wrap.getBoundingClientRect();
      const outside = [...document.querySelectorAll('#monitor-rows button[data-action]')]
        .map((b) => [b.textContent, b.getBoundingClientRect()] as const)
        .filter(([, r]) => r.right > box.right + 0.5 || r.left < box.left - 0.5)
        .map(([text]) => text);
      return {
        scroll: wrap.scrollWidth,
        client: wrap.clientWidth,
        page: document.documentElement.scrollWidth,
        outside,
        header: getComputedStyle(document.querySelector('table.monitors thead')!).position,
      };
    });
    expect(fit.scroll).toBeLessThanOrEqual(fit.client);
    expect(fit.page).toBeLessThanOrEqual(viewport.width);
    expect(fit.outside).toEqual([]);
    // At laptop width it is still a table (the phone's cards are another layout, not a way out).
    if (viewport.width >= 1280) expect(fit.header).not.toBe('absolute');
    await noViolations('the list with long names');
    await shot('list');
  });

  it('reads schedules in words: in the list, and in the form as they are typed', async () => {
    const url = `${fx.url}/watched`;
    await create({ name: 'Weekday mornings', url, schedule: '0 9 * * 1-5', timezone: 'Europe/Paris', paused: true });
    await create({ name: 'Quarter hours', url, schedule: '*/15 * * * *', paused: true });
    await create({ name: 'Monthly report', url, schedule: '30 6 1 * *', timezone: 'Asia/Tokyo', paused: true });
    await openDashboard();
    await row('Monthly report').waitFor();
    const words = (n: string) => row(n).locator('.c-schedule .words').textContent();
    expect(await words('Weekday mornings')).toBe('At 09:00, Monday through Friday, Europe/Paris');
    expect(await words('Quarter hours')).toBe('Every 15 minutes, UTC');
    expect(await words('Monthly report')).toBe('At 06:30, on day 1 of the month, Asia/Tokyo');
    expect(await row('Weekday mornings').locator('.c-schedule code').textContent()).toBe('0 9 * * 1-5');

    await page.getByRole('button', { name: 'New monitor' }).click();
    const live = page.locator('#f-schedule-words');
    await page.locator('#f-timezone').fill('Europe/Paris');
    await page.locator('#f-schedule').fill('0 9 * * 1-5');
    expect(await live.textContent()).toBe('Runs: At 09:00, Monday through Friday, Europe/Paris.');
    expect(await live.getAttribute('class')).not.toContain('invalid');
    await page.locator('#f-schedule').fill('61 * * * *');
    expect(await live.textContent()).toBe('Not a valid schedule: the minute must be from 0 to 59.');
    const colours = await page.evaluate(() => ({
      live: getComputedStyle(document.getElementById('f-schedule-words')!).color,
      danger: getComputedStyle(document.getElementById('f-schedule-error')!).color,
    }));
    expect(colours.live).toBe(colours.danger);
    await noViolations('an invalid schedule');
    await shot('schedule-invalid', '#monitor-form .grid');
    await page.locator('#f-schedule').fill('0 9 32 * *');
    expect(await live.textContent()).toBe('Not a valid schedule: the day of the month must be from 1 to 31.');
    await page.locator('#f-schedule').fill('0 9 *');
    expect(await live.textContent()).toBe('A schedule has 5 fields (or 6 with seconds first); this one has 3.');
    await page.locator('#f-schedule').fill('*/30 * * * * *');
    expect(await live.textContent()).toBe('Runs: Every 30 seconds, Europe/Paris.');
    // An example filled in by its button reads at once too.
    await page.locator('button[data-cron="0 * * * *"]').click();
    expect(await live.textContent()).toBe('Runs: Every hour, Europe/Paris.');
    expect(await page.locator('#f-schedule').getAttribute('aria-describedby')).toContain('f-schedule-words');
    await page.getByRole('button', { name: 'Cancel' }).click();
  });
});
