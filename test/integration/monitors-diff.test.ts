// Monitors: the quality of change detection, end to end — the real service (real Chromium, real SQLite,
// the diff worker thread running dist/ code) watching fixture pages the test changes between captures.
// Captures are driven by POST /api/monitors/{id}/run and read back from the captures list; images and diff
// images are decoded and checked pixel by pixel. See docs/monitors.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import {
  at,
  differingBounds,
  doc,
  isRed,
  isReddish,
  overlaps,
  pixelsIn,
  samePixel,
  switchablePage,
  within,
  type Box,
} from '../helpers/monitors-diff-fixtures.js';
import { decodePng, isPng, type DecodedPng, type Rgba } from '../helpers/png.js';
import { bytesOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 255 };
const RED: Rgba = { r: 255, g: 0, b: 0, a: 255 };
const BLUE: Rgba = { r: 0, g: 0, b: 255, a: 255 };
/** The default capture: a 1280×800 viewport. */
const VIEWPORT_PIXELS = 1280 * 800;

interface Capture {
  id: string;
  monitorId: string;
  status: 'succeeded' | 'failed';
  reason: string;
  takenAt: string;
  width: number | null;
  height: number | null;
  changed: boolean;
  confirmed: boolean;
  diffPixels: number;
  diffRatio: number;
  regions: (Box & { pixels?: number })[];
  baselineId: string | null;
  imageUrl?: string;
  diffUrl?: string;
  truncated?: boolean;
  error?: { code: string; message: string };
}
interface Monitor {
  id: string;
  name: string;
  lastStatus?: string;
  diff: Record<string, unknown>;
}

let svc: TestService;
let fx: FixtureServer;
let key: string;

beforeAll(async () => {
  [svc, fx] = await Promise.all([
    startTestService({
      jobs: { pollIntervalMs: 100 },
      // The polling below makes many keyed requests a minute.
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    }),
    startFixtureServer(),
  ]);
  key = svc.createKey('monitors-diff').key;
});
afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close()]);
});

async function json<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/** A paused monitor (captures only when the test asks) with a schedule that never comes round in a test. */
async function createMonitor(
  name: string,
  url: string,
  options: { capture?: object; diff?: object } = {},
): Promise<Monitor> {
  return json<Monitor>(
    await svc.call('POST', '/api/monitors', key, { name, url, schedule: '0 0 1 1 *', paused: true, ...options }),
    201,
  );
}

async function latestCapture(monitorId: string): Promise<Capture | undefined> {
  const page = await json<{ items: Capture[] }>(
    await svc.call('GET', `/api/monitors/${monitorId}/captures?limit=1`, key),
    200,
  );
  return page.items[0];
}

/** Capture now and wait for the new capture to be listed; it must have succeeded. */
async function capture(monitor: Monitor): Promise<Capture> {
  const before = await latestCapture(monitor.id);
  const run = await json<{ monitorId: string; alreadyPending: boolean }>(
    await svc.call('POST', `/api/monitors/${monitor.id}/run`, key),
    202,
  );
  expect(run).toMatchObject({ monitorId: monitor.id, alreadyPending: false });
  const made = await until(
    `a new capture of ${monitor.name}`,
    async () => {
      const latest = await latestCapture(monitor.id);
      return latest && latest.id !== before?.id ? latest : undefined;
    },
    45_000,
    100,
  );
  if (made.status !== 'succeeded') throw new Error(`capture of ${monitor.name} failed: ${JSON.stringify(made.error)}`);
  expect(made.reason).toBe('manual');
  return made;
}

async function imageBytes(c: Capture): Promise<Buffer> {
  expect(c.imageUrl).toBe(`${svc.url}/api/captures/${c.id}/image`);
  const res = await svc.call('GET', `/api/captures/${c.id}/image`, key);
  expect(res.status).toBe(200);
  const bytes = await bytesOf(res);
  expect(isPng(bytes)).toBe(true);
  return bytes;
}
const image = async (c: Capture): Promise<DecodedPng> => decodePng(await imageBytes(c));

async function diffImage(c: Capture): Promise<{ bytes: Buffer; png: DecodedPng }> {
  expect(c.diffUrl).toBe(`${svc.url}/api/captures/${c.id}/diff`);
  const res = await svc.call('GET', new URL(c.diffUrl!).pathname, key);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/png');
  const bytes = await bytesOf(res);
  return { bytes, png: decodePng(bytes) };
}

/** Asserts a capture found nothing to report against `baseline`: no change, nothing counted, no diff image. */
async function expectUnchanged(c: Capture, baseline: Capture): Promise<void> {
  expect(c).toMatchObject({ changed: false, diffPixels: 0, diffRatio: 0, regions: [], baselineId: baseline.id });
  expect(c.diffUrl).toBeUndefined();
  expect((await svc.call('GET', `/api/captures/${c.id}/diff`, key)).status).toBe(404);
}

/** Renders through POST /api/image (anonymous): used to show a fixture really does what a test relies on. */
async function renderNow(body: Record<string, unknown>): Promise<DecodedPng> {
  const res = await svc.post('/api/image', body);
  const bytes = await bytesOf(res);
  if (res.status !== 200) throw new Error(`render: ${res.status} ${bytes.toString('utf8').slice(0, 300)}`);
  return decodePng(bytes);
}

const countIn = (png: DecodedPng, box: Box, test: (p: Rgba) => boolean) => {
  let n = 0;
  for (const { p } of pixelsIn(png, box)) if (test(p)) n++;
  return n;
};

// ---------------------------------------------------------------------------------------------------------

describe('baseline and an unchanged page', () => {
  it('the first capture is the baseline; an unchanged page is a byte-identical, unchanged capture', async () => {
    const page = switchablePage(
      fx,
      '/same',
      doc(
        `<h1 style="${at({ x: 100, y: 100, width: 600, height: 60 }, 'font:40px sans-serif')}">Nothing moves here</h1>` +
          `<div style="${at({ x: 100, y: 300, width: 200, height: 100 }, 'background:#0a0')}"></div>`,
      ),
    );
    const monitor = await createMonitor('unchanged', page.url);

    const first = await capture(monitor);
    expect(first).toMatchObject({
      baselineId: null,
      changed: false,
      confirmed: false,
      diffPixels: 0,
      diffRatio: 0,
      regions: [],
      width: 1280,
      height: 800,
    });
    expect(first.diffUrl).toBeUndefined();
    expect((await svc.call('GET', `/api/captures/${first.id}/diff`, key)).status).toBe(404);
    expect((await json<Monitor>(await svc.call('GET', `/api/monitors/${monitor.id}`, key), 200)).lastStatus).toBe(
      'baseline',
    );

    const second = await capture(monitor);
    await expectUnchanged(second, first);
    expect(second.confirmed).toBe(false); // nothing to confirm
    // The byte-identical path: the two stored PNGs are the same bytes.
    expect((await imageBytes(second)).equals(await imageBytes(first))).toBe(true);
    expect((await json<Monitor>(await svc.call('GET', `/api/monitors/${monitor.id}`, key), 200)).lastStatus).toBe(
      'unchanged',
    );
  });
});

describe('a changed paragraph', () => {
  const MSG: Box = { x: 100, y: 300, width: 400, height: 60 };
  const FAR = { x: 1200, y: 750 };
  const textPage = (text: string) =>
    doc(
      `<h1 style="${at({ x: 100, y: 100, width: 600, height: 60 }, 'font:40px sans-serif')}">Status board</h1>` +
        `<p id="msg" style="${at(MSG, 'overflow:hidden;font:40px/60px sans-serif;color:#000')}">${text}</p>` +
        `<div style="${at({ x: 900, y: 600, width: 200, height: 100 }, 'background:#036')}"></div>`,
    );

  it('is a confirmed change with one region on the paragraph and a diff image that shows it in red', async () => {
    const page = switchablePage(fx, '/text', textPage('All systems go'));
    const monitor = await createMonitor('text change', page.url);
    const baseline = await capture(monitor);

    page.set(textPage('Outage: 3 down'));
    const hitsBefore = page.hits();
    const changed = await capture(monitor);
    expect(changed).toMatchObject({
      changed: true,
      confirmed: true,
      baselineId: baseline.id,
      width: 1280,
      height: 800,
    });
    expect(page.hits() - hitsBefore).toBe(2); // captured, then captured again to confirm
    expect(changed.diffPixels).toBeGreaterThan(200);
    expect(changed.diffRatio).toBeCloseTo(changed.diffPixels / VIEWPORT_PIXELS, 10);
    expect((await json<Monitor>(await svc.call('GET', `/api/monitors/${monitor.id}`, key), 200)).lastStatus).toBe(
      'changed',
    );

    // Where the pixels really differ: inside the paragraph's box, nowhere else.
    const [before, after] = await Promise.all([image(baseline), image(changed)]);
    const whole: Box = { x: 0, y: 0, width: 1280, height: 800 };
    const differs = differingBounds(before, after, whole);
    expect(differs && within(differs, MSG)).toBe(true);

    // One region, on the paragraph: inside its box (a pixel of slack for anti-aliasing) and spanning the text that changed.
    expect(changed.regions).toHaveLength(1);
    const region = changed.regions[0]!;
    expect(within(region, MSG, 1)).toBe(true);
    expect(within(region, differs!)).toBe(true);
    expect(region.width).toBeGreaterThanOrEqual(differs!.width * 0.8);
    expect(region.height).toBeGreaterThanOrEqual(differs!.height * 0.6);

    const { bytes, png: diff } = await diffImage(changed);
    expect([diff.width, diff.height]).toEqual([after.width, after.height]);
    // Every counted pixel is painted red, all of them inside the region; a pixel far away is not red.
    expect(countIn(diff, whole, isRed)).toBe(changed.diffPixels);
    expect(countIn(diff, region, isRed)).toBe(changed.diffPixels);
    // A pixel that went from page white to text black is reddish in the diff.
    const inked = [...pixelsIn(after, region)].find(({ x, y, p }) => p.r < 60 && samePixel(before.pixel(x, y), WHITE));
    expect(inked).toBeDefined();
    expect(isReddish(diff.pixel(inked!.x, inked!.y))).toBe(true);
    expect(isReddish(diff.pixel(FAR.x, FAR.y))).toBe(false);
    expect(isReddish(diff.pixel(1000, 650))).toBe(false); // the unchanged dark box: faded, not red

    if (process.env.MONITORS_DIFF_SAVE) {
      mkdirSync(process.env.MONITORS_DIFF_SAVE, { recursive: true });
      writeFileSync(join(process.env.MONITORS_DIFF_SAVE, 'text-change-diff.png'), bytes);
      writeFileSync(join(process.env.MONITORS_DIFF_SAVE, 'text-change-capture.png'), await imageBytes(changed));
    }
  });
});

describe('ignoreRegions', () => {
  const AD: Box = { x: 700, y: 200, width: 300, height: 100 };
  const NEWS: Box = { x: 100, y: 500, width: 400, height: 60 };
  // A changed headline also changes its background: a change well above minChangeRatio (0.001 = 1024 px).
  const NEWS_BG: Record<string, string> = { 'Headline two': '#ff0' };
  const regionPage = (ad: { text: string; colour: string }, news: string) =>
    doc(
      `<div id="ad" style="${at(AD, `background:${ad.colour};color:#fff;font:32px sans-serif`)}">${ad.text}</div>` +
        `<p style="${at(NEWS, `font:40px/60px sans-serif;background:${NEWS_BG[news] ?? '#fff'}`)}">${news}</p>`,
    );

  it('a change inside an ignored region is no change, though the stored image shows it', async () => {
    const page = switchablePage(fx, '/ignore-region', regionPage({ text: 'Buy now', colour: '#c00' }, 'Headline one'));
    const monitor = await createMonitor('ignore region', page.url, { diff: { ignoreRegions: [AD] } });
    const baseline = await capture(monitor);

    page.set(regionPage({ text: 'Sale ends', colour: '#00c' }, 'Headline one'));
    const next = await capture(monitor);
    await expectUnchanged(next, baseline);
    const [before, after] = await Promise.all([image(baseline), image(next)]);
    // (The bottom-right corner of the box: clear of its text.)
    expect(before.pixel(AD.x + AD.width - 5, AD.y + AD.height - 5)).toEqual({ r: 0xcc, g: 0, b: 0, a: 255 });
    expect(after.pixel(AD.x + AD.width - 5, AD.y + AD.height - 5)).toEqual({ r: 0, g: 0, b: 0xcc, a: 255 });

    // Only that box is ignored: a change outside it is counted, and its region is outside the ignored box.
    page.set(regionPage({ text: 'Sale ends', colour: '#00c' }, 'Headline two'));
    const outside = await capture(monitor);
    expect(outside).toMatchObject({ changed: true, baselineId: next.id });
    expect(outside.regions.length).toBeGreaterThan(0);
    for (const r of outside.regions) {
      expect(within(r, NEWS, 1)).toBe(true);
      expect(overlaps(r, AD)).toBe(false);
    }
  });
});

describe('ignoreSelectors', () => {
  const NEWS: Box = { x: 100, y: 500, width: 400, height: 60 };
  const NEWS_BG: Record<string, string> = { 'Headline two': '#ff0' }; // as above: a change above minChangeRatio
  const adBox = (height: number): Box => ({ x: 700, y: 200, width: 300, height });
  const selectorPage = (ad: { text: string; colour: string; height: number }, news: string) =>
    doc(
      `<p style="${at({ x: 100, y: 100, width: 500, height: 60 }, 'font:40px/60px sans-serif')}">Daily digest</p>` +
        `<div class="ad" style="${at(adBox(ad.height), `background:${ad.colour};color:#fff;font:24px sans-serif`)}">${ad.text}</div>` +
        `<p style="${at(NEWS, `font:40px/60px sans-serif;background:${NEWS_BG[news] ?? '#fff'}`)}">${news}</p>` +
        // Below the ad, even grown: it must not move, and stays compared.
        `<div style="${at({ x: 700, y: 300, width: 300, height: 40 }, 'background:#080')}"></div>`,
    );

  it('changes of an ignored element — its colour and text, then its size — are no change', async () => {
    const page = switchablePage(
      fx,
      '/ignore-selector',
      selectorPage({ text: 'Buy now', colour: '#c00', height: 50 }, 'Headline one'),
    );
    const monitor = await createMonitor('ignore selector', page.url, { diff: { ignoreSelectors: ['.ad'] } });
    const baseline = await capture(monitor);

    page.set(selectorPage({ text: 'Sale ends', colour: '#00c', height: 50 }, 'Headline one'));
    const recoloured = await capture(monitor);
    await expectUnchanged(recoloured, baseline);
    const [before, after] = await Promise.all([image(baseline), image(recoloured)]);
    // (The bottom-right corner of the ad: clear of its text.)
    expect(before.pixel(995, 245)).toEqual({ r: 0xcc, g: 0, b: 0, a: 255 });
    expect(after.pixel(995, 245)).toEqual({ r: 0, g: 0, b: 0xcc, a: 255 }); // stored images are not altered

    // The ad grows from 50 to 80 px; it is absolutely positioned, so nothing else moves.
    page.set(selectorPage({ text: 'Sale ends', colour: '#00c', height: 80 }, 'Headline one'));
    const grown = await capture(monitor);
    await expectUnchanged(grown, recoloured);
    const tall = await image(grown);
    expect(tall.pixel(995, 275)).toEqual({ r: 0, g: 0, b: 0xcc, a: 255 }); // the ad now covers y 250..280
    expect(after.pixel(995, 275)).toEqual(WHITE);

    // Only the matched element is left out: a change elsewhere still counts, and its region avoids the ad.
    page.set(selectorPage({ text: 'Sale ends', colour: '#00c', height: 80 }, 'Headline two'));
    const outside = await capture(monitor);
    expect(outside).toMatchObject({ changed: true, baselineId: grown.id });
    expect(outside.regions.length).toBeGreaterThan(0);
    for (const r of outside.regions) {
      expect(within(r, NEWS, 1)).toBe(true);
      expect(overlaps(r, adBox(80))).toBe(false);
    }
  });
});

describe('motion that is not a change', () => {
  it('a blinking caret in an autofocused input: two captures, unchanged', async () => {
    const INPUT: Box = { x: 100, y: 100, width: 400, height: 60 };
    const html = doc(
      `<input autofocus value="" style="${at(INPUT, 'font:40px sans-serif;padding:0 10px;border:2px solid #000;outline:none;caret-color:#f00')}">`,
    );
    // The fixture really does show a (red) caret when a render does not hide it: blinking, so look a few times.
    await until(
      'the input\'s caret to be visible in a render with caret "initial"',
      async () => {
        const shot = await renderNow({ html, caret: 'initial' });
        return countIn(shot, INPUT, isReddish) > 10;
      },
      30_000,
      0,
    );

    const page = switchablePage(fx, '/caret', html);
    const monitor = await createMonitor('caret', page.url);
    const baseline = await capture(monitor);
    const [second, third] = [await capture(monitor), await capture(monitor)];
    await expectUnchanged(second, baseline);
    await expectUnchanged(third, second);
    expect(countIn(await image(third), INPUT, isReddish)).toBe(0);
  });

  it('an infinite CSS animation: three captures, unchanged, at the un-animated state', async () => {
    const BOX: Box = { x: 100, y: 100, width: 100, height: 100 };
    const html = doc(
      `<div id="box" style="${at(BOX, 'background:#00f;animation:slide 0.5s linear infinite')}"></div>`,
      '@keyframes slide{from{transform:translateX(0);background:#f00}to{transform:translateX(600px);background:#0f0}}',
    );
    // The fixture really animates: a quarter period apart the box is somewhere else (period 0.5 s, no alternate).
    const [early, late] = [
      await renderNow({ html, animations: 'allow' }),
      await renderNow({ html, animations: 'allow', delay: 250 }),
    ];
    expect(differingBounds(early, late, { x: 0, y: 0, width: 1280, height: 800 })).toBeDefined();

    const page = switchablePage(fx, '/animation', html);
    const monitor = await createMonitor('animation', page.url);
    const first = await capture(monitor);
    const second = await capture(monitor);
    const third = await capture(monitor);
    await expectUnchanged(second, first);
    await expectUnchanged(third, second);
    const shot = await image(third);
    expect(shot.pixel(150, 150)).toEqual(BLUE); // the box's own style: the animation is not applied
    expect(shot.pixel(750, 150)).toEqual(WHITE);
  });
});

describe('anti-aliasing', () => {
  /**
   * A sub-pixel change that only moves anti-aliased edge pixels. Measured on Chromium: shifting text sideways
   * by 0.01–0.6 px also moves whole stems (pixelmatch counts those even without includeAA), but a 0.01deg
   * rotation — under 0.15 px of movement over the line — changes only anti-aliased pixels.
   */
  async function antiAliasCase(path: string, a: string, b: string): Promise<void> {
    const page = switchablePage(fx, path, a);
    const [strict, lenient] = await Promise.all([
      createMonitor(`${path} includeAA`, page.url, { diff: { includeAA: true } }),
      createMonitor(`${path} default`, page.url),
    ]);
    expect(lenient.diff.includeAA).toBe(false);
    const [strictBase, lenientBase] = await Promise.all([capture(strict), capture(lenient)]);

    page.set(b);
    const [strictNext, lenientNext] = await Promise.all([capture(strict), capture(lenient)]);
    // The page did render differently...
    expect((await imageBytes(lenientNext)).equals(await imageBytes(lenientBase))).toBe(false);
    // ...which pixelmatch counts when told to include anti-aliased pixels...
    expect(strictNext.baselineId).toBe(strictBase.id);
    expect(strictNext.diffPixels).toBeGreaterThan(0);
    // ...and the default leaves out altogether.
    await expectUnchanged(lenientNext, lenientBase);
  }

  it('text rotated by 0.01deg: counted with includeAA true, not a change by default', async () => {
    const text = (style: string) =>
      doc(
        `<div style="position:absolute;left:100px;top:100px;font:24px sans-serif;color:#000;${style}">The quick brown fox jumps over the lazy dog 0123456789</div>`,
      );
    await antiAliasCase('/aa-text', text(''), text('transform:rotate(0.01deg)'));
  });

  it('a circle moved 0.3 px sideways: counted with includeAA true, not a change by default', async () => {
    const circle = (shift: string) =>
      doc(
        `<div style="${at({ x: 100, y: 100, width: 200, height: 200 }, `border-radius:50%;background:#000;transform:translateX(${shift})`)}"></div>`,
      );
    await antiAliasCase('/aa-circle', circle('0px'), circle('0.3px'));
  });
});

describe('confirm', () => {
  const BANNER: Box = { x: 100, y: 100, width: 600, height: 120 };
  const bannerPage = (colour: string) => doc(`<div style="${at(BANNER, `background:${colour}`)}"></div>`);

  it('a change seen once (the page serves it to one request only) is not reported with confirm; it is without', async () => {
    const confirming = switchablePage(fx, '/flash-confirm', bannerPage('#00f'));
    const trusting = switchablePage(fx, '/flash-no-confirm', bannerPage('#00f'));
    const [withConfirm, withoutConfirm] = await Promise.all([
      createMonitor('confirm true', confirming.url),
      createMonitor('confirm false', trusting.url, { diff: { confirm: false } }),
    ]);
    expect(withConfirm.diff.confirm).toBe(true);
    const [baseA, baseB] = await Promise.all([capture(withConfirm), capture(withoutConfirm)]);

    confirming.once(bannerPage('#f00'));
    trusting.once(bannerPage('#f00'));
    const [hitsA, hitsB] = [confirming.hits(), trusting.hits()];
    const [a, b] = await Promise.all([capture(withConfirm), capture(withoutConfirm)]);

    // confirm true: saw the red banner, looked again, found the page as before.
    expect(confirming.hits() - hitsA).toBe(2);
    expect(a).toMatchObject({ changed: false, confirmed: true, diffPixels: 0, baselineId: baseA.id });
    expect(a.diffUrl).toBeUndefined();
    expect((await image(a)).pixel(150, 150)).toEqual(BLUE);

    // confirm false: the one look is the verdict.
    expect(trusting.hits() - hitsB).toBe(1);
    expect(b).toMatchObject({
      changed: true,
      confirmed: false,
      diffPixels: BANNER.width * BANNER.height,
      baselineId: baseB.id,
    });
    // A region says how many pixels it holds, and which element is behind it (the banner, a div with no text).
    expect(b.regions).toEqual([
      {
        ...BANNER,
        pixels: BANNER.width * BANNER.height,
        elements: [expect.objectContaining({ tag: 'div', before: '', after: '' })],
      },
    ]);
    expect((await image(b)).pixel(150, 150)).toEqual(RED);
  });
});

describe('a page that grew taller (fullPage)', () => {
  const tall = (height: number) =>
    doc(`<div style="box-sizing:border-box;height:${height}px;border-top:100px solid #f00"></div>`);

  it('from 1000 to 1400 px: changed, 1400 px tall, with a region over the new bottom', async () => {
    const page = switchablePage(fx, '/grow', tall(1000));
    const monitor = await createMonitor('grow', page.url, { capture: { fullPage: true } });
    const baseline = await capture(monitor);
    expect([baseline.width, baseline.height]).toEqual([1280, 1000]);

    page.set(tall(1400));
    const grown = await capture(monitor);
    expect(grown).toMatchObject({ changed: true, width: 1280, height: 1400, baselineId: baseline.id });
    expect(grown.diffPixels).toBeGreaterThanOrEqual(1280 * 400);
    const png = await image(grown);
    expect([png.width, png.height]).toEqual([1280, 1400]);
    const bottom = grown.regions.find(
      (r) => r.y >= 980 && r.y <= 1000 && r.y + r.height >= 1400 && r.x <= 10 && r.width >= 1270,
    );
    expect(bottom, JSON.stringify(grown.regions)).toBeDefined();
    const { png: diff } = await diffImage(grown);
    expect([diff.width, diff.height]).toEqual([1280, 1400]);
    expect(isRed(diff.pixel(640, 1200))).toBe(true);
    expect(isRed(diff.pixel(640, 500))).toBe(false);
  });
});

describe('minChangeRatio', () => {
  const DOT: Box = { x: 600, y: 400, width: 10, height: 10 };
  const dotPage = (colour: string) =>
    doc(
      `<p style="${at({ x: 100, y: 100, width: 500, height: 60 }, 'font:40px/60px sans-serif')}">Tiny change below</p>` +
        `<div style="${at(DOT, `background:${colour}`)}"></div>`,
    );

  it('a 10×10 change (100 of 1,024,000 px) is below 0.001 but above 0.00005', async () => {
    const page = switchablePage(fx, '/dot', dotPage('#f00'));
    const [coarse, fine] = await Promise.all([
      createMonitor('ratio 0.001', page.url, { diff: { minChangeRatio: 0.001 } }),
      createMonitor('ratio 0.00005', page.url, { diff: { minChangeRatio: 0.00005 } }),
    ]);
    await Promise.all([capture(coarse), capture(fine)]);

    page.set(dotPage('#00f'));
    const [c, f] = await Promise.all([capture(coarse), capture(fine)]);
    for (const x of [c, f]) {
      expect(x.diffPixels).toBe(100);
      expect(x.diffRatio).toBeCloseTo(100 / VIEWPORT_PIXELS, 12);
      expect(x.regions).toEqual([{ ...DOT, pixels: 100, elements: expect.any(Array) as unknown }]);
    }
    expect(c.changed).toBe(false);
    expect(c.confirmed).toBe(false); // not a change, so nothing to confirm
    expect(f).toMatchObject({ changed: true, confirmed: true });
  });
});

describe('threshold', () => {
  const PANEL: Box = { x: 300, y: 200, width: 200, height: 200 };
  const panelPage = (colour: string) =>
    doc(
      `<p style="${at({ x: 100, y: 100, width: 500, height: 60 }, 'font:40px/60px sans-serif')}">Faint panel below</p>` +
        `<div style="${at(PANEL, `background:${colour}`)}"></div>`,
    );

  it('#ffffff → #fafafa is not counted at threshold 0.1 but is at threshold 0', async () => {
    const page = switchablePage(fx, '/faint', panelPage('#ffffff'));
    const [loose, exact] = await Promise.all([
      createMonitor('threshold 0.1', page.url, { diff: { threshold: 0.1 } }),
      createMonitor('threshold 0', page.url, { diff: { threshold: 0 } }),
    ]);
    const [looseBase] = await Promise.all([capture(loose), capture(exact)]);

    page.set(panelPage('#fafafa'));
    const [l, e] = await Promise.all([capture(loose), capture(exact)]);
    await expectUnchanged(l, looseBase);
    // Not the byte-identical short-cut: the stored images do differ, by that faint colour.
    const [before, after] = await Promise.all([image(looseBase), image(l)]);
    expect(before.pixel(400, 300)).toEqual(WHITE);
    expect(after.pixel(400, 300)).toEqual({ r: 0xfa, g: 0xfa, b: 0xfa, a: 255 });

    expect(e).toMatchObject({
      changed: true,
      diffPixels: PANEL.width * PANEL.height,
      regions: [{ ...PANEL, pixels: PANEL.width * PANEL.height }],
    });
  });
});
