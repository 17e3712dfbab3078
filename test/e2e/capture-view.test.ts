// A capture's verdict and its changes, seen in a real browser against the running service (issue #14,
// points 1, 2, the History part of 6, and 9e), at a laptop's and a phone's size: a difference below the
// monitor's threshold says so with the real numbers, in the viewer and in the history list; a changed capture
// opens with region 1 selected and its before / after crops in the first viewport; selecting region 2 redraws
// the crops from the two captures' images and moves the slider and the actual-size view onto it; a paused
// monitor still shows its last result. Every state is audited with axe.
// The monitors and their captures are made once (real captures of fixture pages); each size opens its own page.
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { VIEWPORTS, violations } from '../helpers/axe.js';
import { captureNow } from '../helpers/capture-now.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decodePng } from '../helpers/png.js';
import { bytesOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let svc: TestService;
let fx: FixtureServer;
let browser: Browser;
let key: string;
const shots = process.env.E2E_SCREENSHOTS; // a folder: screenshots are written there to be looked at

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface Capture {
  id: string;
  status: string;
  changed: boolean;
  baselineId: string | null;
  diffPixels: number;
  diffRatio: number;
  regions: Box[];
  textChanges: { box: Box | null; before: string | null; after: string | null }[];
  conditions: { selector: string; met: boolean }[];
}

/** The watched pages switch from version 1 to 2 between the two captures. */
let version = 1;
const BLUE = '#1f6feb';
const RED = '#e5534b';
const GREEN = '#2da44e';
const ORANGE = '#fb8500';
/** Two changes far apart: a box near the top left, and a price (text) with a swatch further down right. */
const twoChangesHtml = (v: number) => `<!doctype html><html><head><meta charset="utf-8"><title>Two</title>
<style>body { margin: 0; font: 28px sans-serif; background: #fff; color: #111; }
.a { position: absolute; left: 60px; top: 60px; width: 240px; height: 120px; background: ${v === 1 ? BLUE : RED}; }
.price { position: absolute; left: 760px; top: 480px; margin: 0; }
.b { position: absolute; left: 760px; top: 540px; width: 200px; height: 90px; background: ${v === 1 ? GREEN : ORANGE}; }</style></head>
<body><div class="a"></div><p class="price">Price: ${v === 1 ? '$24.99' : '$19.99'}</p><div class="b"></div></body></html>`;
/** A small change: one digit of a price. */
const smallChangeHtml = (v: number) => `<!doctype html><html><head><meta charset="utf-8"><title>Small</title>
<style>body { margin: 0; font: 24px sans-serif; background: #fff; color: #111; } p { margin: 60px; }</style></head>
<body><p>Price: ${v === 1 ? '$24.99' : '$24.98'}</p></body></html>`;

const BELOW = 'Small change page';
const TWO = 'Two changes page';
let below: { id: string; capture: Capture };
let two: { id: string; capture: Capture };
const FAILING = 'Broken page';
let failed: Capture & { error: { code: string; message: string } };
let twoImages: { before: ReturnType<typeof decodePng>; after: ReturnType<typeof decodePng> };

async function capturedTwice(body: Record<string, unknown>): Promise<{ id: string; capture: Capture }> {
  version = 1;
  const res = await svc.call('POST', '/api/monitors', key, { schedule: '0 0 1 1 *', ...body });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  const first = await captureNow(svc, key, id);
  expect(first.status).toBe('succeeded');
  version = 2;
  const second = await captureNow(svc, key, id, first.id);
  expect(second.status).toBe('succeeded');
  const capture = (await (await svc.call('GET', `/api/captures/${second.id}`, key)).json()) as Capture;
  return { id, capture };
}

beforeAll(async () => {
  [svc, fx] = await Promise.all([
    startTestService({
      jobs: { pollIntervalMs: 100 },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    }),
    startFixtureServer(),
  ]);
  for (const [path, html] of [
    ['/two', twoChangesHtml],
    ['/small', smallChangeHtml],
  ] as const) {
    fx.route(path, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html(version));
    });
  }
  fx.route('/broken', (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Down</title><p>Down for maintenance');
  });
  key = svc.createKey('capture-view').key;
  browser = await chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] });
  if (shots) mkdirSync(shots, { recursive: true });
  below = await capturedTwice({
    name: BELOW,
    url: `${fx.url}/small`,
    diff: { minChangeRatio: 0.01, confirm: false, ignoreSelectors: ['.ad'] },
  });
  two = await capturedTwice({
    name: TWO,
    url: `${fx.url}/two`,
    diff: { confirm: false },
    notifyWhen: [{ selector: '.price', numberBelow: 20 }],
  });
  // A page that answers 500: its capture fails (failOnHttpError is on for a URL).
  const res = await svc.call('POST', '/api/monitors', key, {
    name: FAILING,
    url: `${fx.url}/broken`,
    schedule: '0 0 1 1 *',
  });
  expect(res.status).toBe(201);
  const failingId = ((await res.json()) as { id: string }).id;
  failed = (await captureNow(svc, key, failingId)) as unknown as Capture & { error: { code: string; message: string } };
  const png = async (id: string) => decodePng(await bytesOf(await svc.call('GET', `/api/captures/${id}/image`, key)));
  twoImages = { before: await png(two.capture.baselineId!), after: await png(two.capture.id) };
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([svc?.close(), fx?.close()]);
});

it('made the captures the tests look at', () => {
  // Below the threshold: a real difference (a region) that did not count, because of minChangeRatio.
  expect(below.capture).toMatchObject({ status: 'succeeded', changed: false });
  expect(below.capture.regions.length).toBeGreaterThan(0);
  expect(below.capture.diffRatio).toBeLessThan(0.01);
  // Two regions, top to bottom: the box, then the price and the swatch under it.
  expect(two.capture).toMatchObject({ status: 'succeeded', changed: true });
  expect(two.capture.regions).toHaveLength(2);
  expect(two.capture.regions[0]!.y).toBeLessThan(two.capture.regions[1]!.y);
});

for (const [size, viewport] of Object.entries(VIEWPORTS)) {
  describe(`at ${viewport.width}×${viewport.height}`, () => {
    let context: BrowserContext;
    let page: Page;
    const problems: string[] = [];

    beforeAll(async () => {
      // bypassCSP: the axe audit injects its script (the page's CSP rightly refuses it otherwise).
      context = await browser.newContext({ viewport, bypassCSP: true });
      page = await context.newPage();
      page.setDefaultTimeout(15_000);
      page.on('console', (m) => {
        if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push(m.text());
      });
      page.on('pageerror', (err) => problems.push(String(err)));
      await page.goto(`${svc.url}/monitors`);
      await page.getByRole('textbox', { name: 'API key' }).fill(key);
      await page.getByRole('button', { name: 'Save key' }).click();
      await page.locator('#monitor-rows tr', { hasText: TWO }).waitFor();
    });
    afterAll(() => context?.close());

    const shot = async (name: string) => {
      if (shots) await page.screenshot({ path: `${shots}/capture-view-${name}-${size}.png` });
    };
    const row = (name: string) => page.locator('#monitor-rows tr', { hasText: name });

    /** Opens a monitor's history from its row, as a person does, and waits for its newest capture's verdict. */
    async function openHistory(name: string, captureId: string) {
      await page.evaluate(() => window.scrollTo(0, 0));
      await row(name)
        .getByRole('button', { name: `History of ${name}` })
        .click();
      await until(
        'the capture selected with its verdict',
        async () =>
          (await page.locator(`#captures button[data-capture="${captureId}"]`).getAttribute('aria-pressed')) ===
            'true' && (await page.locator('#verdict[data-kind]').count()) === 1,
        15_000,
      );
    }

    /** The element's box lies wholly inside the viewport as it is now (no scrolling needed to see it). */
    async function inFirstViewport(selector: string) {
      const box = await page.locator(selector).boundingBox();
      expect(box, selector).not.toBeNull();
      expect(box!.width, selector).toBeGreaterThan(0);
      expect(box!.y, selector).toBeGreaterThanOrEqual(0);
      expect(box!.y + box!.height, selector).toBeLessThanOrEqual(viewport.height);
      expect(box!.x + box!.width, selector).toBeLessThanOrEqual(viewport.width);
    }

    /** What a crop canvas holds: its crop (capture pixels, from its data-*) and the colour at a point of the capture. */
    const cropAt = (side: 'before' | 'after', x: number, y: number) =>
      page.locator(`#crop-${side}`).evaluate(
        (canvas: HTMLCanvasElement, [px, py]) => {
          const crop = { x: +canvas.dataset.x!, y: +canvas.dataset.y!, width: canvas.width, height: canvas.height };
          const [r, g, b] = canvas.getContext('2d')!.getImageData(px! - crop.x, py! - crop.y, 1, 1).data;
          return { crop, rgb: [r, g, b] };
        },
        [x, y],
      );
    const hex = (c: string) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
    const centre = (r: Box) => [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)] as const;

    it('says why a difference below the threshold was not reported, with the real numbers, in the viewer and the list', async () => {
      const c = below.capture;
      await openHistory(BELOW, c.id);
      const verdict = page.locator('#verdict');
      expect(await verdict.getAttribute('data-kind')).toBe('below-threshold');
      // The numbers are the capture's and the monitor's: 1 % of the compared pixels (diffPixels / diffRatio).
      // A 1280×800 capture with nothing ignored: 1 % is 10,240 px.
      expect(Math.round(c.diffPixels / c.diffRatio)).toBe(1280 * 800);
      const minimum = '10,240';
      const text = (await verdict.textContent())!.replace(/\s+/g, ' ');
      expect(text).toContain(`${c.diffPixels.toLocaleString('en')} px`);
      expect(text).toContain(`differ in ${c.regions.length} region`);
      expect(text).toContain(
        `below this monitor’s threshold (${minimum} px / 1.0 %, the min change ratio): not reported`,
      );
      expect(text).toContain('Change it in Edit');
      // The ignored elements are named: what is left out of the comparison is part of why.
      expect(text).toContain('Left out of the comparison: the elements matching .ad');
      expect(await verdict.locator('[data-status]').textContent()).toBe('below threshold');
      // Edit is one click away and opens this monitor's form with the setting that decided it.
      expect(await page.locator('#verdict-edit').isVisible()).toBe(true);

      // The history list marks it below threshold: not the look of "no difference at all".
      const item = page.locator(`#captures button[data-capture="${c.id}"]`);
      expect(await item.locator('[data-status]').getAttribute('data-status')).toBe('below-threshold');
      expect(await item.textContent()).toContain('under the threshold');
      const look = (selector: string) =>
        page.locator(selector).evaluate((el) => {
          const s = getComputedStyle(el);
          return `${s.color} ${s.borderStyle} ${s.backgroundColor}`;
        });
      const baselineItem = page.locator('#captures button.capture').nth(1);
      expect(await baselineItem.locator('[data-status]').getAttribute('data-status')).toBe('baseline');
      expect(await look(`#captures button[data-capture="${c.id}"] [data-status]`)).not.toBe(
        await page.evaluate(() => {
          // An "unchanged" badge, as the list draws one, for comparison.
          const probe = document.createElement('span');
          probe.className = 'badge ok';
          document.body.append(probe);
          const s = getComputedStyle(probe);
          const out = `${s.color} ${s.borderStyle} ${s.backgroundColor}`;
          probe.remove();
          return out;
        }),
      );
      // The baseline before it says what it is.
      await baselineItem.click();
      await until('the baseline verdict', async () => (await verdict.getAttribute('data-kind')) === 'baseline', 10_000);
      expect(await verdict.textContent()).toContain('nothing to compare it with');
      expect(await violations(page)).toEqual([]);
      await item.click();
      await until('the verdict back', async () => (await verdict.getAttribute('data-kind')) === 'below-threshold');
      await shot('below-threshold');
      expect(await violations(page)).toEqual([]);

      await page.locator('#verdict-edit').click();
      await until('the edit form', async () => (await page.locator('#f-minratio').inputValue()) === '0.01', 10_000);
      await page.getByRole('button', { name: 'Cancel' }).click();
      expect(problems).toEqual([]);
    });

    it('opens a changed capture with region 1 selected, its before / after crops in the first viewport', async () => {
      const c = two.capture;
      await openHistory(TWO, c.id);
      expect(await page.locator('#verdict').getAttribute('data-kind')).toBe('changed');
      expect(await page.locator('#verdict').textContent()).toContain(`differ in 2 regions`);
      const rows = page.locator('#regions > li');
      expect(await rows.count()).toBe(2);
      expect(await rows.nth(0).locator('button').getAttribute('aria-pressed')).toBe('true');
      expect(await rows.nth(1).locator('button').getAttribute('aria-pressed')).toBe('false');
      await until(
        'the crops of region 1',
        async () => (await page.locator(`#crops[data-capture="${c.id}"][data-region="0"]`).count()) === 1,
      );

      // The crops are the region with a margin, cut from the two captures' own pixels.
      const r1 = c.regions[0]!;
      const [x1, y1] = centre(r1);
      const before = await cropAt('before', x1, y1);
      const after = await cropAt('after', x1, y1);
      expect(before.crop).toEqual(after.crop);
      expect(before.crop.x).toBeLessThan(r1.x);
      expect(before.crop.y).toBeLessThan(r1.y);
      expect(before.crop.x + before.crop.width).toBeGreaterThan(r1.x + r1.width);
      expect(before.crop.y + before.crop.height).toBeGreaterThan(r1.y + r1.height);
      expect(before.rgb).toEqual(hex(BLUE));
      expect(after.rgb).toEqual(hex(RED));
      const p = twoImages.before.pixel(x1, y1);
      expect(before.rgb).toEqual([p.r, p.g, p.b]);

      // Without scrolling: the verdict and both crops lie in the first viewport, and are big enough to see.
      for (const selector of ['#verdict', '#crop-before', '#crop-after']) await inFirstViewport(selector);
      const shown = (await page.locator('#crop-after').boundingBox())!;
      expect(shown.width).toBeGreaterThan(120);
      await shot('changed-region-1');
      expect(await violations(page)).toEqual([]);
      expect(problems).toEqual([]);
    });

    it('selecting region 2 redraws the crops, shows its text change and rule, and moves the slider and the actual-size view', async () => {
      const c = two.capture;
      const r2 = c.regions[1]!;
      const rows = page.locator('#regions > li');
      // The row of region 2 holds the text change and the rule that lie in it.
      expect(await rows.nth(1).locator('.region-texts').textContent()).toContain('19.99');
      expect(await rows.nth(1).locator('.region-rules').textContent()).toContain('.price');
      expect(await rows.nth(0).locator('.region-texts').count()).toBe(0);

      // With the keyboard: focus the row's button and press Enter.
      await rows.nth(1).locator('button').focus();
      await page.keyboard.press('Enter');
      await until(
        'the crops of region 2',
        async () => (await page.locator(`#crops[data-capture="${c.id}"][data-region="1"]`).count()) === 1,
      );
      expect(await rows.nth(1).locator('button').getAttribute('aria-pressed')).toBe('true');
      expect(await rows.nth(0).locator('button').getAttribute('aria-pressed')).toBe('false');
      // The swatch under the price, green before and orange after, from the two captures.
      const swatch = [860, 600] as const;
      const before = await cropAt('before', ...swatch);
      const after = await cropAt('after', ...swatch);
      expect(before.crop.y).toBeLessThan(r2.y);
      expect(before.crop.y + before.crop.height).toBeGreaterThan(r2.y + r2.height);
      expect(before.rgb).toEqual(hex(GREEN));
      expect(after.rgb).toEqual(hex(ORANGE));
      const q = twoImages.after.pixel(...swatch);
      expect(after.rgb).toEqual([q.r, q.g, q.b]);
      await shot('changed-region-2');
      expect(await violations(page)).toEqual([]);

      // The slider's edge sits on the middle of region 2.
      await page.getByRole('button', { name: 'Slider compare' }).click();
      await until(
        'both slider images',
        () =>
          page.evaluate(() =>
            ['compare-prev', 'compare-cur'].every(
              (id) => (document.getElementById(id) as HTMLImageElement).naturalWidth,
            ),
          ),
        15_000,
      );
      const [cx] = centre(r2);
      const expected = Math.round((cx / 1280) * 100);
      await until(
        'the slider on region 2',
        async () => (await page.locator('#compare-range').inputValue()) === String(expected),
      );
      const boxOf = async (sel: string) => (await page.locator(sel).boundingBox())!;
      const [compareBox, reveal] = [await boxOf('#compare-box'), await boxOf('#compare-reveal')];
      expect(reveal.width).toBeCloseTo((compareBox.width * expected) / 100, -1);
      // Region 1 again: the slider follows.
      await rows.nth(0).locator('button').click();
      const expected1 = Math.round((centre(c.regions[0]!)[0] / 1280) * 100);
      await until(
        'the slider on region 1',
        async () => (await page.locator('#compare-range').inputValue()) === String(expected1),
      );
      expect(await violations(page)).toEqual([]);

      // Actual size: the frame scrolls so region 2 is inside it.
      await page.getByRole('button', { name: 'Current', exact: true }).click();
      await page.getByRole('button', { name: 'Actual size' }).click();
      await rows.nth(1).locator('button').click();
      const frame = () =>
        page.locator('#single').evaluate((el) => ({
          left: el.scrollLeft,
          top: el.scrollTop,
          width: el.clientWidth,
          height: el.clientHeight,
        }));
      const [x2, y2] = centre(r2);
      let seen = {};
      await until(
        () => `region 2 in the actual-size frame (${JSON.stringify(seen)})`,
        async () => {
          const f = (seen = await frame());
          return f.left <= x2 && x2 <= f.left + f.width && f.top <= y2 && y2 <= f.top + f.height && f.left > 0;
        },
      );
      // ...and back to region 1, at the top left.
      await rows.nth(0).locator('button').click();
      const [x1, y1] = centre(c.regions[0]!);
      await until('region 1 in the actual-size frame', async () => {
        const f = await frame();
        return f.left <= x1 && x1 <= f.left + f.width && f.top <= y1 && y1 <= f.top + f.height;
      });
      await page.getByRole('button', { name: 'Actual size' }).click();
      expect(problems).toEqual([]);
    });

    it('a failed capture says so with its error, in the viewer and in the list', async () => {
      expect(failed.status).toBe('failed');
      await page.getByRole('button', { name: 'Close history' }).click();
      await openHistory(FAILING, failed.id);
      const verdict = page.locator('#verdict');
      expect(await verdict.getAttribute('data-kind')).toBe('failed');
      const text = (await verdict.textContent())!.replace(/\s+/g, ' ');
      expect(text).toContain(`The capture failed (${failed.error.code}): ${failed.error.message}`);
      expect(await page.locator('#region-zoom').isVisible()).toBe(false);
      expect(
        await page.locator(`#captures button[data-capture="${failed.id}"] [data-status]`).getAttribute('data-status'),
      ).toBe('failed');
      await inFirstViewport('#verdict');
      expect(await violations(page)).toEqual([]);
      await shot('failed');
    });

    it('a paused monitor shows its last result next to "paused"', async () => {
      await page.getByRole('button', { name: 'Close history' }).click();
      await row(TWO)
        .getByRole('button', { name: `Pause ${TWO}` })
        .click();
      await until(
        'the paused badge',
        async () => (await row(TWO).locator('[data-status]').getAttribute('data-status')) === 'paused',
        10_000,
      );
      const last = row(TWO).locator('[data-last]');
      expect(await last.getAttribute('data-last')).toBe('changed');
      expect(await last.textContent()).toBe('last: changed');
      expect(await last.isVisible()).toBe(true);
      // A monitor that is not paused shows one badge, its last result.
      expect(await row(BELOW).locator('[data-last]').count()).toBe(0);
      expect(await row(BELOW).locator('[data-status]').getAttribute('data-status')).toBe('unchanged');
      await row(TWO).scrollIntoViewIfNeeded();
      await shot('paused');
      expect(await violations(page)).toEqual([]);
      await row(TWO)
        .getByRole('button', { name: `Resume ${TWO}` })
        .click();
      await until('resumed', async () => (await row(TWO).locator('[data-last]').count()) === 0, 10_000);
      expect(problems).toEqual([]);
    });
  });
}
