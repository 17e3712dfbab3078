// The image size caps against a page that lies (issue #10, security review of the caps). A page's own
// JavaScript can redefine devicePixelRatio, visualViewport, scrollX/Y, innerWidth/Height, scrollWidth/
// scrollHeight and getBoundingClientRect; none of it may change the size of the image. Every format in
// every capture mode is decoded and measured: it must be exactly what the honest page gives.
import { mkdtempSync, rmSync } from 'node:fs';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decodePng, isJpeg, isPng, isWebp, jpegSize, webpSize } from '../helpers/png.js';
import { bytesOf, startTestService, type TestService } from '../helpers/service.js';
import { captureNow } from '../helpers/capture-now.js';
import { until } from '../helpers/until.js';

/** Caps a lie could easily beat: the honest 1500×1500 block is over the pixel cap, under the side cap. */
const MAX_SIDE = 2000;
const MAX_PIXELS = 1_000_000;
const VIEWPORT = { width: 800, height: 600 };

/** What the page claims: `scale` for devicePixelRatio and pinch zoom, `size` for every length. */
interface Lie {
  name: string;
  scale: number;
  size: number;
}
const LIES: Lie[] = [
  { name: 'NaN', scale: NaN, size: NaN },
  { name: 'zero', scale: 0, size: 0 },
  { name: 'huge (1e9)', scale: 1e9, size: 1e9 },
  { name: 'a tiny scale with big sizes (slips under the pixel count)', scale: 0.001, size: 30_000 },
  { name: "the review's: scale 2, 3000 px", scale: 2, size: 3000 },
  { name: 'negative', scale: -2, size: -500 },
  { name: 'Infinity', scale: Infinity, size: Infinity },
];

/** A script redefining, in the page's world, every number a capture could read from it. */
const lying = ({ scale, size }: Lie) => `<script>(() => {
  const S = ${String(scale)}, L = ${String(size)};
  const claim = (o, k, v) => Object.defineProperty(o, k, { get: () => v, configurable: true });
  claim(window, 'devicePixelRatio', S);
  for (const k of ['scrollX', 'scrollY', 'pageXOffset', 'pageYOffset', 'innerWidth', 'innerHeight', 'outerWidth', 'outerHeight']) claim(window, k, L);
  claim(window, 'visualViewport', { width: L, height: L, scale: S, offsetLeft: L, offsetTop: L, pageLeft: L, pageTop: L });
  for (const k of ['scrollWidth', 'scrollHeight', 'clientWidth', 'clientHeight', 'offsetWidth', 'offsetHeight']) claim(Element.prototype, k, L);
  Element.prototype.getBoundingClientRect = () => ({ x: L, y: L, left: L, top: L, width: L, height: L, right: L, bottom: L });
})();</script>`;

/** A real 1500×1500 block (red, blue top-left corner); margins reset so CSS px = image px at scale 1. */
const page = (head: string) =>
  '<!doctype html><html><head><meta charset="utf-8">' +
  `<style>html,body{margin:0;padding:0;background:#fff}</style>${head}</head><body>` +
  '<div id="el" style="width:1500px;height:1500px;background:#f00;position:relative">' +
  '<div style="position:absolute;left:0;top:0;width:10px;height:10px;background:#00f"></div></div></body></html>';

/** The honest page's image in each mode: 1500 px rows, 666 of which fit in 1000000 pixels; the viewport whole. */
const MODES = [
  { mode: 'fullPage', options: { fullPage: true }, size: { width: 1500, height: 666 }, truncated: 'full-page' },
  { mode: 'selector', options: { selector: '#el' }, size: { width: 1500, height: 666 }, truncated: 'height' },
  { mode: 'viewport', options: {}, size: VIEWPORT, truncated: null },
] as const;
const FORMATS = ['png', 'jpeg', 'webp'] as const;

function dimensions(format: string, buf: Buffer): { width: number; height: number } {
  if (format === 'png') {
    expect(isPng(buf)).toBe(true);
    const png = decodePng(buf); // a full decode, not just the header
    return { width: png.width, height: png.height };
  }
  if (format === 'jpeg') {
    expect(isJpeg(buf)).toBe(true);
    return jpegSize(buf)!;
  }
  expect(isWebp(buf)).toBe(true);
  return webpSize(buf);
}

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ limits: { maxFullPageHeight: MAX_SIDE, maxImagePixels: MAX_PIXELS } });
});
afterAll(async () => {
  await svc?.close();
});

describe.each([{ name: 'honest', scale: 1, size: 0 }, ...LIES])('a page that lies: $name', (lie) => {
  const html = page(lie.name === 'honest' ? '' : lying(lie));
  it.each(MODES.flatMap((m) => FORMATS.map((format) => ({ ...m, format }))))(
    "$format, $mode: the honest page's image, within the caps",
    async ({ format, options, size, truncated }) => {
      // Anonymous, as the public tier asks.
      const res = await svc.post('/api/image', { html, format, viewport: VIEWPORT, ...options });
      const buf = await bytesOf(res);
      expect(res.status, buf.toString('utf8').slice(0, 300)).toBe(200);
      const got = dimensions(format, buf);
      expect(got.width).toBeLessThanOrEqual(MAX_SIDE);
      expect(got.height).toBeLessThanOrEqual(MAX_SIDE);
      expect(got.width * got.height).toBeLessThanOrEqual(MAX_PIXELS);
      expect(got).toEqual(size);
      expect(res.headers.get('x-truncated')).toBe(truncated);
    },
  );
});

describe('a mobile page zoomed in by its own meta viewport (real pinch zoom, measured over CDP)', () => {
  // initial-scale=5 shrinks the visible region to a fifth; the WebP scale makes up for it, so the image
  // is still the viewport at the device scale: 300×300 CSS px at 2 = 600×600, as the PNG is.
  const html = page(
    '<meta name="viewport" content="width=device-width, initial-scale=5, minimum-scale=5">' +
      lying({ name: 'huge', scale: 1e9, size: 1e9 }),
  );
  it.each(FORMATS)('%s is the viewport at the device scale', async (format) => {
    const res = await svc.post('/api/image', {
      html,
      format,
      device: 'iPhone 13',
      viewport: { width: 300, height: 300 },
      deviceScaleFactor: 2,
    });
    const buf = await bytesOf(res);
    expect(res.status, buf.toString('utf8').slice(0, 300)).toBe(200);
    expect(dimensions(format, buf)).toEqual({ width: 600, height: 600 });
  });
});

describe("stored requests, and a monitor's ignoreSelectors", () => {
  // Two services on one data directory: a monitor or job stored under one cap, rendered under another.
  let dataDir: string;
  let fixture: FixtureServer;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-caps-hostile-'));
    fixture = await startFixtureServer();
    fixture.route('/plain', (_req: http.IncomingMessage, res: http.ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page(''));
    });
    // 3000 matches of the ignore selector, whose boxes read NaN, Infinity, a huge one off the page,
    // a string, and one honest 20×20 box at (10, 10).
    fixture.route('/boxes', (_req: http.IncomingMessage, res: http.ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        page(`<script>(() => {
        const claims = [
          { x: NaN, y: NaN, width: NaN, height: NaN }, { x: 0, y: 0, width: Infinity, height: Infinity },
          { x: -1e9, y: -1e9, width: 2e9, height: 2e9 }, { x: 'a', y: {}, width: 1, height: 1 }, { x: 10, y: 10, width: 20, height: 20 },
        ];
        let i = 0;
        Element.prototype.getBoundingClientRect = () => claims[i++ % claims.length];
        const claim = (k, v) => Object.defineProperty(window, k, { get: () => v, configurable: true });
        claim('devicePixelRatio', 1e9); claim('scrollX', NaN); claim('scrollY', -1e9);
        addEventListener('DOMContentLoaded', () => {
          for (let n = 0; n < 3000; n++) document.body.appendChild(document.createElement('i')).className = 'x';
        });
      })();</script>`),
      );
    });
  });
  afterAll(async () => {
    await fixture?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = (maxImagePixels: number, more: Record<string, unknown> = {}) =>
    startTestService({
      ...more,
      dataDir,
      limits: { maxImagePixels },
      jobs: { pollIntervalMs: 100 },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    });
  async function createMonitor(service: TestService, key: string, body: Record<string, unknown>): Promise<string> {
    const res = await service.call('POST', '/api/monitors', key, { schedule: '0 0 1 1 *', paused: true, ...body });
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }

  it('stored with a viewport × scale the caps now refuse: the render fails with render_failed naming the viewport', async () => {
    // 400×200 at scale 2 = 320000 output pixels: at the cap renders, one pixel under it does not.
    const before = await start(320_000);
    const { key } = before.createKey('caps');
    const id = await createMonitor(before, key, {
      url: `${fixture.url}/plain`,
      capture: { viewport: { width: 400, height: 200 }, deviceScaleFactor: 2 },
    });
    const first = await captureNow(before, key, id);
    expect(first).toMatchObject({ status: 'succeeded', width: 800, height: 400 });
    await before.stop(); // keeps the data directory

    const after = await start(319_999);
    try {
      const failed = await captureNow(after, key, id, first.id);
      expect(failed.status).toBe('failed');
      expect(failed.error).toEqual({
        code: 'render_failed',
        message:
          'the viewport, 400×200 CSS px at scale 2, is 320000 output pixels, over the limit of 319999 (limits.maxImagePixels)',
      });
    } finally {
      await after.stop();
    }
  });

  it('an async job queued under a cap, run after it was lowered: failed with render_failed naming the viewport', async () => {
    // Still rendering (a 10 s delay) when the service stops with no grace: the stop hands it back queued.
    const before = await start(320_000, { shutdownGraceMs: 0 });
    const { key } = before.createKey('jobs');
    const res = await before.call('POST', '/api/image', key, {
      html: page(''),
      viewport: { width: 400, height: 200 },
      deviceScaleFactor: 2,
      delay: 10_000,
      async: true,
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const status = () =>
      (before.db.prepare('SELECT status FROM jobs WHERE id = ?').get(id) as { status: string }).status;
    await until('the job to be running', () => status() === 'running' || undefined, 30_000, 50);
    await before.stop();

    const after = await start(319_999);
    try {
      const job = await until(
        'the job to end',
        async () => {
          const body = (await (await after.call('GET', `/api/jobs/${id}`, key)).json()) as {
            status: string;
            error?: { code: string; message: string };
          };
          return ['succeeded', 'failed'].includes(body.status) ? body : undefined;
        },
        60_000,
        100,
      );
      expect(job).toMatchObject({
        status: 'failed',
        error: {
          code: 'render_failed',
          message:
            'the viewport, 400×200 CSS px at scale 2, is 320000 output pixels, over the limit of 319999 (limits.maxImagePixels)',
        },
      });
    } finally {
      await after.stop();
    }
  });

  it('ignoreSelectors whose boxes lie: stored boxes are finite, inside the image and at most 1000', async () => {
    const service = await start(50_000_000);
    try {
      const { key } = service.createKey('boxes');
      const id = await createMonitor(service, key, { url: `${fixture.url}/boxes`, diff: { ignoreSelectors: ['.x'] } });
      const shot = await captureNow(service, key, id);
      expect(shot).toMatchObject({ status: 'succeeded', width: 1280 });
      const row = service.db.prepare('SELECT ignored_boxes FROM captures WHERE id = ?').get(shot.id) as {
        ignored_boxes: string;
      };
      const boxes = JSON.parse(row.ignored_boxes) as { x: number; y: number; width: number; height: number }[];
      expect(boxes.length).toBeGreaterThan(0);
      expect(boxes.length).toBeLessThanOrEqual(1000);
      for (const b of boxes) {
        for (const n of [b.x, b.y, b.width, b.height]) expect(Number.isFinite(n)).toBe(true);
        expect(b.x).toBeGreaterThanOrEqual(0);
        expect(b.y).toBeGreaterThanOrEqual(0);
        expect(b.width).toBeGreaterThan(0);
        expect(b.height).toBeGreaterThan(0);
        expect(b.x + b.width).toBeLessThanOrEqual(shot.width!);
        expect(b.y + b.height).toBeLessThanOrEqual(shot.height!);
      }
      // The honest box, at the real scale (1) and the real scroll (0), not the claimed ones.
      expect(boxes).toContainEqual({ x: 10, y: 10, width: 20, height: 20 });
    } finally {
      await service.close();
    }
  });
});
