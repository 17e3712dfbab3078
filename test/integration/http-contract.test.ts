// The HTTP contract of shared/API.md ("Errors", "POST /api/pdf and POST /api/image", "Operations",
// "Limits") checked over real HTTP against the real service: status codes, error shape, request ids,
// media types, validation details, field ranges at and just past their edges, body size limits, the
// raw-HTML shortcut and the render queue.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/db/api-keys.js';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { parsePdf } from '../helpers/pdf.js';
import { decodePng, isJpeg, isPng, jpegSize } from '../helpers/png.js';

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

/** POST a body as-is with the given Content-Type (or none at all). */
const postRaw = (
  service: TestService,
  path: string,
  body: string | Uint8Array<ArrayBuffer>,
  contentType?: string,
  headers: Record<string, string> = {},
) =>
  fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { ...(contentType !== undefined && { 'content-type': contentType }), ...headers },
    body,
  });

interface ErrorBody {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
  requestId: string;
}

/** Asserts status + code + the full error shape, and that body.requestId equals the X-Request-Id header. */
async function expectError(res: Response, status: number, code: string): Promise<ErrorBody['error']> {
  expect(res.status, `expected ${status} ${code}`).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const requestId = res.headers.get('x-request-id');
  expect(requestId).toBeTruthy();
  const body = (await res.clone().json()) as ErrorBody;
  expect(body.requestId).toBe(requestId);
  expect(Object.keys(body).sort()).toEqual(['error', 'requestId']);
  const err = await errorOf(res);
  expect(err.code).toBe(code);
  expect(typeof err.message).toBe('string');
  expect(err.message.length).toBeGreaterThan(0);
  expect(res.headers.get('content-disposition')).toBeNull();
  return err;
}

async function expectInvalid(res: Response, ...paths: string[]): Promise<{ path: string; message: string }[]> {
  const err = await expectError(res, 400, 'invalid_request');
  expect(Array.isArray(err.details), 'details is a list').toBe(true);
  const details = err.details ?? [];
  for (const d of details) {
    expect(typeof d.path).toBe('string');
    expect(typeof d.message).toBe('string');
    expect(d.message.length).toBeGreaterThan(0);
  }
  for (const path of paths) {
    expect(
      details.map((d) => d.path),
      `details name ${path}`,
    ).toContain(path);
  }
  return details;
}

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

/** A JSON body `{"html": "<p>xxx…</p>"}` of exactly `bytes` bytes (UTF-8). */
function jsonOfSize(bytes: number, filler = 'x'): string {
  const head = '{"html":"<p>';
  const tail = '</p>"}';
  const fillerBytes = Buffer.byteLength(filler);
  const room = bytes - Buffer.byteLength(head + tail);
  const body = head + filler.repeat(Math.floor(room / fillerBytes)) + 'y'.repeat(room % fillerBytes) + tail;
  expect(Buffer.byteLength(body)).toBe(bytes);
  JSON.parse(body);
  return body;
}

/** An HTML document of exactly `bytes` bytes. */
function htmlOfSize(bytes: number): string {
  const head = '<!doctype html><p>';
  const body = head + 'h'.repeat(bytes - head.length);
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

async function waitFor(cond: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A POST through node:http, for what fetch cannot do: a Content-Length that promises more than is sent,
 * or a chunked body streamed piece by piece. Resolves with the response as soon as it arrives; write
 * errors after the server answered (it may close the connection) are ignored.
 */
function streamingPost(
  url: string,
  opts: { headers: Record<string, string>; chunks: Buffer[]; end: boolean; gapMs?: number },
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(url, { method: 'POST', headers: opts.headers }, (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      res.on('error', reject);
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    void (async () => {
      for (const chunk of opts.chunks) {
        if (answered || req.destroyed) return;
        req.write(chunk);
        if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
      }
      if (opts.end && !answered) req.end();
    })();
  });
}

describe('operations', () => {
  it('GET /health → 200 {"status":"ok"}', async () => {
    const res = await get('/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /ready → 200 with the database and the browser ok', async () => {
    const res = await get('/ready');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; checks: Record<string, string> };
    expect(body.checks).toEqual({ database: 'ok', browser: 'ok' });
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

describe('routing', () => {
  it('an unknown route → 404 not_found', async () => {
    await expectError(await get('/nope'), 404, 'not_found');
    await expectError(await get('/api'), 404, 'not_found');
  });

  // Under /api/ only the sync renders are open to anonymous callers: anything else is 401 without a
  // key (API.md, "Authentication"), and 404 with one when the route does not exist.
  it('an unknown /api/ route or GET on a render route → 401 without a key, 404 with one', async () => {
    await expectError(await svc.post('/api/nope', { html: TINY }), 401, 'unauthorized');
    await expectError(await get('/api/pdf'), 401, 'unauthorized');
    const { key } = new ApiKeyStore(svc.db).create('contract');
    const auth = { headers: { authorization: `Bearer ${key}` } };
    await expectError(await fetch(`${svc.url}/api/nope`, auth), 404, 'not_found');
    await expectError(await fetch(`${svc.url}/api/pdf`, auth), 404, 'not_found');
    await expectError(await fetch(`${svc.url}/api/image`, auth), 404, 'not_found');
  });
});

describe('media types (415)', () => {
  for (const path of ['/api/pdf', '/api/image']) {
    it(`${path}: Content-Type text/plain → 415 unsupported_media_type`, async () => {
      await expectError(
        await postRaw(svc, path, JSON.stringify({ html: TINY }), 'text/plain'),
        415,
        'unsupported_media_type',
      );
    });

    it(`${path}: no Content-Type → 415 unsupported_media_type`, async () => {
      const res = await postRaw(svc, path, new TextEncoder().encode(JSON.stringify({ html: TINY })));
      await expectError(res, 415, 'unsupported_media_type');
    });
  }

  it('other types are refused too: form data, xml, multipart', async () => {
    for (const type of [
      'application/x-www-form-urlencoded',
      'application/xml',
      'multipart/form-data; boundary=x',
      'text/json',
    ]) {
      await expectError(
        await postRaw(svc, '/api/image', JSON.stringify({ html: TINY }), type),
        415,
        'unsupported_media_type',
      );
    }
  });

  it('application/json and text/html with a charset parameter are accepted', async () => {
    const body = JSON.stringify({ html: TINY, viewport: { width: 8, height: 8 } });
    await expectPng(await postRaw(svc, '/api/image', body, 'application/json; charset=utf-8'), 8, 8);
    await expectPdf(await postRaw(svc, '/api/pdf', TINY, 'text/html;charset=UTF-8'));
  });

  it('media types are matched case-insensitively (RFC 9110 §8.3.1)', async () => {
    const body = JSON.stringify({ html: TINY, viewport: { width: 8, height: 8 } });
    await expectPng(await postRaw(svc, '/api/image', body, 'Application/JSON'), 8, 8);
    await expectPdf(await postRaw(svc, '/api/pdf', TINY, 'Text/HTML'));
  });
});

describe('validation (400 invalid_request)', () => {
  it('invalid JSON', async () => {
    await expectError(await svc.post('/api/pdf', '{"html": "<p>x</p>",}'), 400, 'invalid_request');
    await expectError(await svc.post('/api/image', '{"html"'), 400, 'invalid_request');
  });

  it('an empty JSON body', async () => {
    await expectError(await svc.post('/api/image', ''), 400, 'invalid_request');
  });

  it('a body that is an array, a string, a number or null', async () => {
    for (const body of ['[]', `[${JSON.stringify({ html: TINY })}]`, '"<p>x</p>"', '42', 'null']) {
      const details = await expectInvalid(await svc.post('/api/image', body), '');
      expect(details).toHaveLength(1);
    }
  });

  it('both url and html', async () => {
    const details = await expectInvalid(await svc.post('/api/pdf', { url: 'https://example.com/', html: TINY }), 'url');
    expect(details).toHaveLength(1);
  });

  it('neither url nor html', async () => {
    const details = await expectInvalid(await svc.post('/api/image', { viewport: { width: 100, height: 100 } }), 'url');
    expect(details).toHaveLength(1);
    await expectInvalid(await svc.post('/api/pdf', {}), 'url');
  });

  it('an unknown field is named by its path', async () => {
    const details = await expectInvalid(await svc.post('/api/image', { html: TINY, colour: 'red' }), 'colour');
    expect(details).toEqual([{ path: 'colour', message: 'unknown field' }]);
    // An image-only field is unknown to /api/pdf.
    expect(await expectInvalid(await svc.post('/api/pdf', { html: TINY, fullPage: true }), 'fullPage')).toEqual([
      { path: 'fullPage', message: 'unknown field' },
    ]);
    expect(
      await expectInvalid(
        await svc.post('/api/pdf', { html: TINY, viewport: { width: 10, height: 10, dpi: 2 } }),
        'viewport.dpi',
      ),
    ).toEqual([{ path: 'viewport.dpi', message: 'unknown field' }]);
  });

  it('wrong types: details list EACH bad field', async () => {
    const details = await expectInvalid(
      await svc.post('/api/image', {
        html: TINY,
        viewport: { width: 'wide', height: 800 },
        delay: 'soon',
        fullPage: 'yes',
        colorScheme: 1,
      }),
      'viewport.width',
      'delay',
      'fullPage',
      'colorScheme',
    );
    expect(details).toHaveLength(4);
    const pdfDetails = await expectInvalid(
      await svc.post('/api/pdf', { html: 42, landscape: 'no', scale: '2', margin: { top: true } }),
      'html',
      'landscape',
      'scale',
      'margin.top',
    );
    expect(pdfDetails.map((d) => d.path).sort()).toEqual(['html', 'landscape', 'margin.top', 'scale']);
  });

  it('a type error and a cross-field error in one request are both listed', async () => {
    // Contract: details lists {path, message} per bad field — not only the first kind found.
    await expectInvalid(await svc.post('/api/image', { html: TINY, delay: 'soon', quality: 80 }), 'delay', 'quality');
  });

  it('url with a scheme other than http/https', async () => {
    for (const url of ['ftp://example.com/file.html', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url']) {
      const details = await expectInvalid(await svc.post('/api/pdf', { url }), 'url');
      expect(details, url).toHaveLength(1);
    }
  });

  it('an unknown device', async () => {
    await expectInvalid(await svc.post('/api/image', { html: TINY, device: 'Nokia 3310' }), 'device');
  });

  it('a "device" that is an Object.prototype member is refused with 400, not a 500', async () => {
    for (const device of ['toString', 'constructor']) {
      await expectInvalid(await svc.post('/api/image', { html: TINY, device }), 'device');
    }
  });

  it('a bad timezoneId', async () => {
    await expectInvalid(await svc.post('/api/image', { html: TINY, timezoneId: 'Mars/Olympus' }), 'timezoneId');
    await expectInvalid(await svc.post('/api/pdf', { html: TINY, timezoneId: 'UTC+25' }), 'timezoneId');
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

describe('body size (413 payload_too_large)', () => {
  it(`a JSON body of exactly maxBodyBytes (${SMALL_BODY}) renders; one byte more → 413`, async () => {
    const res = await small.post('/api/image', jsonOfSize(SMALL_BODY));
    expect(res.status).toBe(200);
    expect(isPng(await bytesOf(res))).toBe(true);
    await expectError(await small.post('/api/image', jsonOfSize(SMALL_BODY + 1)), 413, 'payload_too_large');
  });

  it('the limit counts bytes, not characters', async () => {
    // 'é' is two bytes in UTF-8: well under the limit in characters, over it in bytes.
    const over = jsonOfSize(SMALL_BODY + 1, 'é');
    expect(over.length).toBeLessThan(SMALL_BODY);
    await expectError(await small.post('/api/pdf', over), 413, 'payload_too_large');
    const exact = jsonOfSize(SMALL_BODY, 'é');
    await expectPdf(await small.post('/api/pdf', exact));
  });

  it(`a text/html body of exactly ${SMALL_BODY} bytes renders; one byte more → 413`, async () => {
    await expectPng(await postRaw(small, '/api/image', htmlOfSize(SMALL_BODY), 'text/html'), 1280, 800);
    await expectError(
      await postRaw(small, '/api/image', htmlOfSize(SMALL_BODY + 1), 'text/html'),
      413,
      'payload_too_large',
    );
    await expectError(
      await postRaw(small, '/api/pdf', htmlOfSize(SMALL_BODY + 1), 'text/html'),
      413,
      'payload_too_large',
    );
  });

  it('a Content-Length above the limit → 413 at once, without waiting for the body', async () => {
    const started = Date.now();
    const res = await streamingPost(`${small.url}/api/image`, {
      headers: { 'content-type': 'application/json', 'content-length': String(SMALL_BODY * 100) },
      chunks: [Buffer.from('{"html":"')],
      end: false, // the rest never comes: only an up-front check can answer
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res.status).toBe(413);
    const body = JSON.parse(res.body) as ErrorBody;
    expect(body.error.code).toBe('payload_too_large');
    expect(body.requestId).toBe(res.headers['x-request-id']);
  });

  it('a chunked body (no Content-Length) streamed past the limit → 413', async () => {
    const chunks = [Buffer.from('{"html":"'), ...Array.from({ length: 20 }, () => Buffer.alloc(512, 'z'))];
    const res = await streamingPost(`${small.url}/api/pdf`, {
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks,
      end: true,
      gapMs: 5,
    });
    expect(res.status).toBe(413);
    expect((JSON.parse(res.body) as ErrorBody).error.code).toBe('payload_too_large');
  });

  it('a chunked body under the limit is read whole', async () => {
    const json = JSON.stringify({ html: TINY, viewport: { width: 12, height: 12 } });
    const res = await streamingPost(`${small.url}/api/image`, {
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks: [Buffer.from(json.slice(0, 10)), Buffer.from(json.slice(10, 30)), Buffer.from(json.slice(30))],
      end: true,
      gapMs: 5,
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
  });

  it('the default limit is 8 MiB: a JSON body one byte over → 413', async () => {
    await expectError(await svc.post('/api/pdf', jsonOfSize(8 * 1024 * 1024 + 1)), 413, 'payload_too_large');
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
    await waitFor(() => small.limiter.activeCount === 1, 'the first render to start');
    const second = small.post('/api/image', { html: TINY, viewport: { width: 20, height: 30 } });
    await waitFor(() => small.limiter.queuedCount === 1, 'the second render to queue');

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
