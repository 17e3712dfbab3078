// The image size caps on every capture mode (issue #10, finding 6): each side at most
// limits.maxFullPageHeight CSS px, and at most limits.maxImagePixels output pixels (width × height ×
// scale²). Known up front (viewport × scale, clip) → 400 naming the field; known only once the page is
// laid out (full page, selector) → the image is cut and X-Truncated names the cut. Each at its edge and
// just over it; images are decoded and measured.
import { mkdtempSync, rmSync } from 'node:fs';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decodePng, isPng, isWebp, webpSize, type DecodedPng, type Rgba } from '../helpers/png.js';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { captureNow } from '../helpers/capture-now.js';

const RED: Rgba = { r: 255, g: 0, b: 0, a: 255 };
const BLUE: Rgba = { r: 0, g: 0, b: 255, a: 255 };

/** The caps of this file's service: small enough to reach quickly, far below the defaults. */
const MAX_SIDE = 2000;
const MAX_PIXELS = 2_000_000;

/** A page with margins reset, so CSS pixel (x, y) is image pixel (x, y) at scale 1. */
const page = (body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;padding:0;background:#fff}</style></head><body>${body}</body></html>`;
/** A block `width`×`height` CSS px: red, with a blue top-left 10×10 corner. */
const block = (width: number, height: number) =>
  `<div id="el" style="width:${width}px;height:${height}px;background:#f00;position:relative">` +
  '<div style="position:absolute;left:0;top:0;width:10px;height:10px;background:#00f"></div></div>';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ limits: { maxFullPageHeight: MAX_SIDE, maxImagePixels: MAX_PIXELS } });
});
afterAll(async () => {
  await svc?.close();
});

async function png(body: Record<string, unknown>): Promise<{ res: Response; png: DecodedPng }> {
  const res = await svc.post('/api/image', body);
  const buf = await bytesOf(res);
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${buf.toString('utf8').slice(0, 400)}`);
  expect(isPng(buf)).toBe(true);
  return { res, png: decodePng(buf) };
}

async function refused(body: Record<string, unknown>): Promise<{ path: string; message: string }[]> {
  const res = await svc.post('/api/image', body);
  expect(res.status).toBe(400);
  const err = await errorOf(res);
  expect(err.code).toBe('invalid_request');
  return err.details ?? [];
}

const size = (p: DecodedPng) => [p.width, p.height];

describe('viewport × deviceScaleFactor (known up front)', () => {
  it('at the pixel cap renders: 500×1000 CSS px at scale 2 is a 1000×2000 PNG', async () => {
    const { res, png: image } = await png({
      html: page(''),
      viewport: { width: 500, height: 1000 },
      deviceScaleFactor: 2,
    });
    expect(size(image)).toEqual([1000, 2000]);
    expect(res.headers.get('x-truncated')).toBeNull();
  });

  it('one CSS row over is a 400 naming the viewport and the limit', async () => {
    expect(await refused({ html: page(''), viewport: { width: 500, height: 1001 }, deviceScaleFactor: 2 })).toEqual([
      {
        path: 'viewport',
        message:
          'The viewport, 500×1001 px at scale 2, makes 2,002,000 output pixels, over the limit of 2,000,000 ' +
          '(limits.maxImagePixels): make it smaller or lower deviceScaleFactor.',
      },
    ]);
  });

  it('a device counts with its own scale factor (iPhone 13: 390×664 at 3 = 2330640 pixels)', async () => {
    expect((await refused({ html: page(''), device: 'iPhone 13' })).map((d) => d.path)).toEqual(['device']);
  });
});

describe('clip (known up front)', () => {
  const html = page(block(3000, 3000));

  it('at the caps renders: a 2000×1000 clip is a 2000×1000 PNG', async () => {
    const { res, png: image } = await png({ html, clip: { x: 0, y: 0, width: 2000, height: 1000 } });
    expect(size(image)).toEqual([2000, 1000]);
    expect(image.pixel(0, 0)).toEqual(BLUE);
    expect(image.pixel(1999, 999)).toEqual(RED);
    expect(res.headers.get('x-truncated')).toBeNull();
  });

  it('a side over maxFullPageHeight, or pixels over maxImagePixels, is a 400 naming the field', async () => {
    expect(await refused({ html, clip: { x: 0, y: 0, width: 2001, height: 10 } })).toEqual([
      {
        path: 'clip.width',
        message: 'clip.width can be at most 2,000 px (limits.maxFullPageHeight): give a smaller number.',
      },
    ]);
    expect((await refused({ html, clip: { x: 0, y: 0, width: 10, height: 30_000 } })).map((d) => d.path)).toEqual([
      'clip.height',
    ]);
    expect(await refused({ html, clip: { x: 0, y: 0, width: 2000, height: 1001 } })).toEqual([
      {
        path: 'clip',
        message:
          'The clip, 2000×1001 px at scale 1, makes 2,002,000 output pixels, over the limit of 2,000,000 ' +
          '(limits.maxImagePixels): make it smaller or lower deviceScaleFactor.',
      },
    ]);
  });
});

describe('selector (cut at render time)', () => {
  it('an element 30000 px tall is cut to 2000 px: X-Truncated: height', async () => {
    const { res, png: image } = await png({ html: page(block(100, 30_000)), selector: '#el' });
    expect(size(image)).toEqual([100, 2000]);
    expect(image.pixel(0, 0)).toEqual(BLUE);
    expect(image.pixel(99, 1999)).toEqual(RED);
    expect(res.headers.get('x-truncated')).toBe('height');
  });

  it('an element 30000 px wide is cut to 2000 px: X-Truncated: width', async () => {
    const { res, png: image } = await png({ html: page(block(30_000, 100)), selector: '#el' });
    expect(size(image)).toEqual([2000, 100]);
    expect(image.pixel(0, 0)).toEqual(BLUE);
    expect(res.headers.get('x-truncated')).toBe('width');
  });

  it('an element at the side cap is whole; over the pixel cap it keeps its width and loses height', async () => {
    const whole = await png({ html: page(block(1000, 2000)), selector: '#el' });
    expect(size(whole.png)).toEqual([1000, 2000]);
    expect(whole.res.headers.get('x-truncated')).toBeNull();
    const cut = await png({ html: page(block(1500, 1500)), selector: '#el' });
    expect(size(cut.png)).toEqual([1500, 1333]); // 1333 rows of 1500 px fit in 2000000
    expect(cut.res.headers.get('x-truncated')).toBe('height');
  });

  it('WebP (encoded by Chromium over CDP, not Playwright) is cut the same way', async () => {
    const res = await svc.post('/api/image', { html: page(block(100, 30_000)), selector: '#el', format: 'webp' });
    expect(res.status).toBe(200);
    const buf = await bytesOf(res);
    expect(isWebp(buf)).toBe(true);
    expect(webpSize(buf)).toEqual({ width: 100, height: 2000 });
    expect(res.headers.get('x-truncated')).toBe('height');
  });

  it('the JSON answer says truncated too', async () => {
    const res = await svc.post('/api/image', { html: page(block(100, 30_000)), selector: '#el', response: 'json' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-truncated')).toBe('height');
    const body = (await res.json()) as { meta: { truncated: boolean }; data: string };
    expect(body.meta.truncated).toBe(true);
    expect(size(decodePng(Buffer.from(body.data, 'base64')))).toEqual([100, 2000]);
  });
});

describe('fullPage (cut at render time)', () => {
  it('a page 30000 px wide is cut to 2000 px: X-Truncated: width', async () => {
    const { res, png: image } = await png({ html: page(block(30_000, 100)), fullPage: true });
    expect(size(image)).toEqual([2000, 800]); // the page is at least the 1280×800 viewport tall
    expect(image.pixel(0, 0)).toEqual(BLUE);
    expect(res.headers.get('x-truncated')).toBe('width');
  });

  it('a page 30000 px both ways is cut in both: X-Truncated: width, height (the pixel cap leaves 1000 rows)', async () => {
    const { res, png: image } = await png({ html: page(block(30_000, 30_000)), fullPage: true });
    expect(size(image)).toEqual([2000, 1000]);
    expect(res.headers.get('x-truncated')).toBe('width, height');
  });

  it('a page cut only in height by the pixel cap keeps "X-Truncated: full-page"', async () => {
    // 500 CSS px wide at scale 2 = 1000 px rows: 2000 rows fit, i.e. 1000 CSS px of the 1999.
    const { res, png: image } = await png({
      html: page(block(500, 1999)),
      fullPage: true,
      viewport: { width: 500, height: 500 },
      deviceScaleFactor: 2,
    });
    expect(size(image)).toEqual([1000, 2000]);
    expect(res.headers.get('x-truncated')).toBe('full-page');
  });
});

describe('a monitor capture over the cap', () => {
  // The same data directory under a larger cap, then a smaller one: the baseline taken before is now
  // over the cap. The capture fails with the reason; the diff thread never decodes the image.
  let dataDir: string;
  let fixture: FixtureServer;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-caps-'));
    fixture = await startFixtureServer();
    fixture.route('/page', (_req: http.IncomingMessage, res: http.ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page(block(400, 250)));
    });
  });
  afterAll(async () => {
    await fixture?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = (maxImagePixels: number) =>
    startTestService({
      dataDir,
      limits: { maxImagePixels },
      jobs: { pollIntervalMs: 100 },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    });

  it('fails cleanly with the reason (a baseline of 400×250 = 100000 pixels, the cap lowered to 90000)', async () => {
    const before = await start(50_000_000);
    const { key } = before.createKey('caps');
    const res = await before.call('POST', '/api/monitors', key, {
      url: `${fixture.url}/page`,
      schedule: '0 0 1 1 *',
      paused: true,
      capture: { fullPage: true, viewport: { width: 400, height: 200 } },
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const baseline = await captureNow(before, key, id);
    expect(baseline).toMatchObject({ status: 'succeeded', width: 400, height: 250 });
    await before.stop(); // keeps the data directory

    const after = await start(90_000);
    try {
      const failed = await captureNow(after, key, id, baseline.id);
      expect(failed.status).toBe('failed');
      expect(failed.error).toEqual({
        code: 'render_failed',
        message:
          'the baseline image is 400×250 = 100000 pixels, over the limit of 90000 (limits.maxImagePixels); the capture cannot be compared',
      });
      // The diff threads are still fine: the service answers and renders.
      expect((await after.post('/api/image', { html: page(''), viewport: { width: 100, height: 100 } })).status).toBe(
        200,
      );
    } finally {
      await after.stop();
    }
  });
});
