// The HTTP contract of /docs and /openapi.json ("Errors", "POST /api/pdf and POST /api/image", "Operations",
// "Limits") checked over real HTTP against the real service: status codes, error shape, request ids,
// media types, validation details, field ranges at and just past their edges, body size limits, the
// raw-HTML shortcut and the render queue.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { expectError, expectInvalid, postRaw, type ErrorBody } from '../helpers/http-contract.js';
import { parsePdf } from '../helpers/pdf.js';
import { decodePng, isJpeg, isPng, jpegSize } from '../helpers/png.js';
import { until } from '../helpers/until.js';

/** Default configuration. */
let svc: TestService;
/** Small limits: 4 KiB bodies, one render at a time, one waiting. */
let small: TestService;
const SMALL_BODY = 4096;

beforeAll(async () => {
  [svc, small] = await Promise.all([
    startTestService(),
    startTestService({ limits: { maxBodyBytes: SMALL_BODY }, render: { concurrency: 1, queueSize: 1 } }),
  ]);
});
afterAll(async () => {
  await Promise.all([svc?.close(), small?.close()]);
});

const TINY = '<!doctype html><html><body style="margin:0;background:#ff0000"></body></html>';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${svc.url}${path}`, { headers });

async function expectPng(res: Response, width: number, height: number): Promise<Buffer> {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  expect(res.headers.get('content-type')).toBe('image/png');
  const bytes = await bytesOf(res);
  expect(isPng(bytes)).toBe(true);
  const png = decodePng(bytes);
  expect([png.width, png.height]).toEqual([width, height]);
  return bytes;
}

async function expectPdf(res: Response): Promise<Buffer> {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  const bytes = await bytesOf(res);
  expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  return bytes;
}

describe('operations', () => {
  it('GET /health → 200 {"status":"ok"}', async () => {
    const res = await get('/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /ready → 200 with the database, the browser, the disk of dataDir, the fonts and the PDF tools ok', async () => {
    const res = await get('/ready');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; checks: Record<string, string> };
    expect(body.checks).toEqual({
      database: 'ok',
      browser: 'ok',
      storage: 'ok',
      fonts: 'ok',
      pdfTools: 'ok',
      pdfText: 'ok',
    });
  });
});

describe('request ids', () => {
  it('every response carries X-Request-Id: success, render, 4xx', async () => {
    const responses = await Promise.all([
      get('/health'),
      get('/ready'),
      get('/no-such-route'),
      svc.post('/api/image', { html: TINY, viewport: { width: 10, height: 10 } }),
      svc.post('/api/pdf', '{not json'),
      postRaw(svc, '/api/pdf', 'hello', 'text/plain'),
    ]);
    const ids = responses.map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length); // each request its own id
    expect(responses.map((r) => r.status)).toEqual([200, 200, 404, 200, 400, 415]);
    await Promise.all(responses.map((r) => r.arrayBuffer()));
  });

  it('a sane client-sent X-Request-Id is echoed, on success and in the error body', async () => {
    const ok = await get('/health', { 'X-Request-Id': 'abc-123' });
    expect(ok.headers.get('x-request-id')).toBe('abc-123');

    const notFound = await get('/nope', { 'X-Request-Id': 'abc-123' });
    expect(notFound.headers.get('x-request-id')).toBe('abc-123');
    expect(((await notFound.clone().json()) as ErrorBody).requestId).toBe('abc-123');
    await expectError(notFound, 404, 'not_found');

    const invalid = await svc.post('/api/image', { html: TINY, delay: -1 }, { 'X-Request-Id': 'req.2024-01-01:42_x' });
    expect(invalid.headers.get('x-request-id')).toBe('req.2024-01-01:42_x');
    await expectInvalid(invalid, 'delay');
  });

  it('an unsafe client-sent X-Request-Id is replaced by a fresh one (header and body agree)', async () => {
    for (const sent of ['has space', '<script>', 'x'.repeat(129), 'a/b', '"quoted"']) {
      const res = await get('/nope', { 'X-Request-Id': sent });
      const id = res.headers.get('x-request-id');
      expect(id, sent).not.toBe(sent);
      expect(id).toMatch(UUID);
      const body = (await res.json()) as ErrorBody;
      expect(body.requestId).toBe(id);
    }
    // 128 characters is still fine.
    const long = 'y'.repeat(128);
    expect((await get('/health', { 'X-Request-Id': long })).headers.get('x-request-id')).toBe(long);
  });
});

describe('field limits at and just past their edges', () => {
  it('viewport 3840×2160 renders a PNG of that size', async () => {
    const bytes = await expectPng(
      await svc.post('/api/image', { html: TINY, viewport: { width: 3840, height: 2160 } }),
      3840,
      2160,
    );
    expect(decodePng(bytes).pixel(3839, 2159)).toEqual({ r: 255, g: 0, b: 0, a: 255 });
  });

  it('viewport width 3841 / height 2161 → 400', async () => {
    const w = await expectInvalid(
      await svc.post('/api/image', { html: TINY, viewport: { width: 3841, height: 100 } }),
      'viewport.width',
    );
    expect(w).toHaveLength(1);
    const h = await expectInvalid(
      await svc.post('/api/image', { html: TINY, viewport: { width: 100, height: 2161 } }),
      'viewport.height',
    );
    expect(h).toHaveLength(1);
  });

  it('viewport 1×1 renders; width 0 / height 0 → 400', async () => {
    await expectPng(await svc.post('/api/image', { html: TINY, viewport: { width: 1, height: 1 } }), 1, 1);
    await expectInvalid(
      await svc.post('/api/image', { html: TINY, viewport: { width: 0, height: 1 } }),
      'viewport.width',
    );
    await expectInvalid(
      await svc.post('/api/image', { html: TINY, viewport: { width: 1, height: 0 } }),
      'viewport.height',
    );
  });

  it('deviceScaleFactor 3 renders at 3× pixels; 3.01 → 400', async () => {
    await expectPng(
      await svc.post('/api/image', { html: TINY, viewport: { width: 50, height: 40 }, deviceScaleFactor: 3 }),
      150,
      120,
    );
    await expectInvalid(await svc.post('/api/image', { html: TINY, deviceScaleFactor: 3.01 }), 'deviceScaleFactor');
  });

  it('delay 0 renders; 10001 → 400', async () => {
    await expectPng(
      await svc.post('/api/image', { html: TINY, viewport: { width: 10, height: 10 }, delay: 0 }),
      10,
      10,
    );
    await expectInvalid(await svc.post('/api/image', { html: TINY, delay: 10_001 }), 'delay');
    await expectInvalid(await svc.post('/api/pdf', { html: TINY, delay: -1 }), 'delay');
  });

  it('timeout 1000 is accepted and applied; 999 → 400', async () => {
    // The edge under test is validation. A tiny render takes ~100 ms, but a 1 s budget leaves little
    // room for a rare stall (seen once in five clean CI runs): then the render's own 504 is the answer,
    // which still proves 1000 was accepted rather than refused.
    const res = await svc.post('/api/image', { html: TINY, viewport: { width: 10, height: 10 }, timeout: 1000 });
    if (res.status === 504) expect((await errorOf(res)).code).toBe('render_timeout');
    else await expectPng(res, 10, 10);
    await expectInvalid(await svc.post('/api/image', { html: TINY, timeout: 999 }), 'timeout');
  });

  it('timeout 120000 (limits.maxTimeoutMs) renders; 120001 → 400', async () => {
    await expectPng(
      await svc.post('/api/image', { html: TINY, viewport: { width: 10, height: 10 }, timeout: 120_000 }),
      10,
      10,
    );
    await expectInvalid(await svc.post('/api/image', { html: TINY, timeout: 120_001 }), 'timeout');
    await expectInvalid(await svc.post('/api/pdf', { html: TINY, timeout: 120_001 }), 'timeout');
  });

  it('quality 100 renders a JPEG; 101 → 400', async () => {
    const res = await svc.post('/api/image', {
      html: TINY,
      viewport: { width: 20, height: 10 },
      format: 'jpeg',
      quality: 100,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    const bytes = await bytesOf(res);
    expect(isJpeg(bytes)).toBe(true);
    expect(jpegSize(bytes)).toEqual({ width: 20, height: 10 });
    await expectInvalid(await svc.post('/api/image', { html: TINY, format: 'jpeg', quality: 101 }), 'quality');
  });

  it('pdf scale 2 renders; 2.01 → 400', async () => {
    const bytes = await expectPdf(await svc.post('/api/pdf', { html: '<p>SCALE-TWO</p>', scale: 2 }));
    expect((await parsePdf(bytes)).text).toContain('SCALE-TWO');
    await expectInvalid(await svc.post('/api/pdf', { html: TINY, scale: 2.01 }), 'scale');
  });
});

describe('raw text/html shortcut', () => {
  const html =
    '<!doctype html><html><head><title>Shortcut</title></head><body style="margin:0;background:#0000ff"><p>RAW-HTML-SHORTCUT</p></body></html>';

  it('POST /api/image with text/html → a PNG of the page at the default 1280×800', async () => {
    const res = await postRaw(svc, '/api/image', html, 'text/html; charset=utf-8');
    const bytes = await expectPng(res, 1280, 800);
    expect(decodePng(bytes).pixel(640, 700)).toEqual({ r: 0, g: 0, b: 255, a: 255 });
    expect(res.headers.get('content-disposition')).toBe('inline; filename="screenshot.png"');
    // Present and a whole number of milliseconds (Number(null) would be 0: compare the text).
    expect(res.headers.get('x-render-ms')).toMatch(/^\d+$/);
  });

  it('POST /api/pdf with text/html → a PDF of the page', async () => {
    const res = await postRaw(svc, '/api/pdf', html, 'text/html');
    const pdf = await parsePdf(await expectPdf(res));
    expect(pdf.text).toContain('RAW-HTML-SHORTCUT');
    expect(pdf.pageCount).toBe(1);
    expect(res.headers.get('x-page-count')).toBe('1');
    expect(res.headers.get('content-disposition')).toMatch(/^inline; filename="[^"]+\.pdf"$/);
  });

  it('the body is taken as HTML, not parsed as JSON', async () => {
    const res = await postRaw(svc, '/api/pdf', '{"url":"ftp://nope"} JSON-LOOKING-HTML', 'text/html');
    expect((await parsePdf(await expectPdf(res))).text).toContain('JSON-LOOKING-HTML');
  });
});

describe('Content-Disposition filename', () => {
  it('a requested filename is sanitised before it reaches the header', async () => {
    const res = await svc.post('/api/pdf', { html: TINY, filename: '../x/Re"port\r\nX-Evil: 1' });
    await expectPdf(res);
    expect(res.headers.get('content-disposition')).toBe('inline; filename="ReportX-Evil: 1.pdf"');
    expect(res.headers.get('x-evil')).toBeNull();
  });

  it('a non-ASCII filename gets an ASCII fallback and a UTF-8 filename*', async () => {
    const res = await svc.post('/api/image', { html: TINY, viewport: { width: 4, height: 4 }, filename: 'résumé' });
    await expectPng(res, 4, 4);
    expect(res.headers.get('content-disposition')).toBe(
      `inline; filename="r_sum_.png"; filename*=UTF-8''${encodeURIComponent('résumé.png')}`,
    );
  });
});

describe('render queue (429 queue_full)', () => {
  it('with concurrency 1 and queueSize 1, a third render is refused at once with Retry-After; the first two succeed', async () => {
    const slow =
      '<!doctype html><body style="margin:0;background:#00ff00"><script>const t=Date.now()+6000;while(Date.now()<t){}</script></body>';
    const started = Date.now();
    const first = small.post('/api/image', { html: slow, viewport: { width: 30, height: 20 } });
    await until('the first render to start', () => small.limiter.activeCount === 1, 15_000, 10);
    const second = small.post('/api/image', { html: TINY, viewport: { width: 20, height: 30 } });
    await until('the second render to queue', () => small.limiter.queuedCount === 1, 15_000, 10);

    const third = await small.post(
      '/api/image',
      { html: TINY, viewport: { width: 10, height: 10 } },
      { 'X-Request-Id': 'third' },
    );
    const refusedAfter = Date.now() - started;
    await expectError(third, 429, 'queue_full');
    expect(third.headers.get('x-request-id')).toBe('third');
    const retryAfter = third.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    // Refused while the first was still busy, not after waiting its turn.
    expect(refusedAfter).toBeLessThan(6000);
    expect(small.limiter.activeCount).toBe(1);
    expect(small.limiter.queuedCount).toBe(1);

    const [r1, r2] = await Promise.all([first, second]);
    const png1 = decodePng(await expectPng(r1, 30, 20));
    expect(png1.pixel(5, 5)).toEqual({ r: 0, g: 255, b: 0, a: 255 });
    await expectPng(r2, 20, 30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(6000);
    expect(small.limiter.activeCount).toBe(0);
    expect(small.limiter.queuedCount).toBe(0);

    // Once the queue has drained, renders are accepted again.
    await expectPng(await small.post('/api/image', { html: TINY, viewport: { width: 10, height: 10 } }), 10, 10);
  });
});
