// The request contract a browser takes no part in — 401/404 routing, 415 media types, 400 validation
// details, 413 body sizes — over the real HTTP stack with a fake renderer (test/helpers/fake-app.ts), so
// it runs with the unit tests. What renders for real (field limits, the raw-HTML shortcut, the queue)
// stays in test/integration/http-contract.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeApp, type FakeApp } from '../helpers/fake-app.js';
import {
  expectError,
  expectInvalid,
  htmlOfSize,
  jsonOfSize,
  postRaw,
  streamingPost,
  type ErrorBody,
} from '../helpers/http-contract.js';

/** Default configuration. */
let app: FakeApp;
/** 4 KiB bodies. */
let smallApp: FakeApp;
const SMALL_BODY = 4096;

beforeAll(async () => {
  [app, smallApp] = await Promise.all([startFakeApp(), startFakeApp({ limits: { maxBodyBytes: SMALL_BODY } })]);
});
afterAll(async () => {
  await Promise.all([app?.close(), smallApp?.close()]);
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${app.url}${path}`, { headers });

const TINY = '<!doctype html><html><body style="margin:0;background:#ff0000"></body></html>';

/** The request got through to the renderer (the fake's bytes come back): it was accepted. */
async function expectRendered(res: Response, kind: 'pdf' | 'image'): Promise<void> {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  expect(res.headers.get('content-type')).toBe(kind === 'pdf' ? 'application/pdf' : 'image/png');
  const target = res.url.startsWith(smallApp.url) ? smallApp : app;
  expect(target.renders.at(-1)?.kind).toBe(kind);
}

describe('routing', () => {
  it('an unknown route → 404 not_found', async () => {
    await expectError(await get('/nope'), 404, 'not_found');
    await expectError(await get('/api'), 404, 'not_found');
  });

  // Under /api/ only the sync renders are open to anonymous callers: anything else is 401 without a
  // key (docs/api-keys.md), and 404 with one when the route does not exist.
  it('an unknown /api/ route or GET on a render route → 401 without a key, 404 with one', async () => {
    await expectError(await app.post('/api/nope', { html: TINY }), 401, 'unauthorized');
    await expectError(await get('/api/pdf'), 401, 'unauthorized');
    const key = app.key;
    const auth = { headers: { authorization: `Bearer ${key}` } };
    await expectError(await fetch(`${app.url}/api/nope`, auth), 404, 'not_found');
    await expectError(await fetch(`${app.url}/api/pdf`, auth), 404, 'not_found');
    await expectError(await fetch(`${app.url}/api/image`, auth), 404, 'not_found');
  });
});

describe('media types (415)', () => {
  for (const path of ['/api/pdf', '/api/image']) {
    it(`${path}: Content-Type text/plain → 415 unsupported_media_type`, async () => {
      await expectError(
        await postRaw(app, path, JSON.stringify({ html: TINY }), 'text/plain'),
        415,
        'unsupported_media_type',
      );
    });

    it(`${path}: no Content-Type → 415 unsupported_media_type`, async () => {
      const res = await postRaw(app, path, new TextEncoder().encode(JSON.stringify({ html: TINY })));
      await expectError(res, 415, 'unsupported_media_type');
    });
  }

  it('other types are refused too: form data, xml', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'application/xml', 'text/json']) {
      await expectError(
        await postRaw(app, '/api/image', JSON.stringify({ html: TINY }), type),
        415,
        'unsupported_media_type',
      );
    }
  });

  it('multipart/form-data is an upload: a body that is not one is 400, not 415', async () => {
    await expectError(
      await postRaw(app, '/api/image', JSON.stringify({ html: TINY }), 'multipart/form-data; boundary=x'),
      400,
      'invalid_request',
    );
  });

  it('application/json and text/html with a charset parameter are accepted', async () => {
    const body = JSON.stringify({ html: TINY, viewport: { width: 8, height: 8 } });
    await expectRendered(await postRaw(app, '/api/image', body, 'application/json; charset=utf-8'), 'image');
    await expectRendered(await postRaw(app, '/api/pdf', TINY, 'text/html;charset=UTF-8'), 'pdf');
  });

  it('media types are matched case-insensitively (RFC 9110 §8.3.1)', async () => {
    const body = JSON.stringify({ html: TINY, viewport: { width: 8, height: 8 } });
    await expectRendered(await postRaw(app, '/api/image', body, 'Application/JSON'), 'image');
    await expectRendered(await postRaw(app, '/api/pdf', TINY, 'Text/HTML'), 'pdf');
  });
});

describe('validation (400 invalid_request)', () => {
  it('invalid JSON', async () => {
    await expectError(await app.post('/api/pdf', '{"html": "<p>x</p>",}'), 400, 'invalid_request');
    await expectError(await app.post('/api/image', '{"html"'), 400, 'invalid_request');
  });

  it('an empty JSON body', async () => {
    await expectError(await app.post('/api/image', ''), 400, 'invalid_request');
  });

  it('a body that is an array, a string, a number or null', async () => {
    for (const body of ['[]', `[${JSON.stringify({ html: TINY })}]`, '"<p>x</p>"', '42', 'null']) {
      const details = await expectInvalid(await app.post('/api/image', body), '');
      expect(details).toHaveLength(1);
    }
  });

  it('both url and html', async () => {
    const details = await expectInvalid(await app.post('/api/pdf', { url: 'https://example.com/', html: TINY }), 'url');
    expect(details).toHaveLength(1);
  });

  it('neither url nor html', async () => {
    const details = await expectInvalid(await app.post('/api/image', { viewport: { width: 100, height: 100 } }), 'url');
    expect(details).toHaveLength(1);
    await expectInvalid(await app.post('/api/pdf', {}), 'url');
  });

  it('an unknown field is named by its path', async () => {
    const details = await expectInvalid(await app.post('/api/image', { html: TINY, colour: 'red' }), 'colour');
    expect(details).toEqual([
      { path: 'colour', message: 'colour is not a field this request takes: check its spelling, or remove it.' },
    ]);
    // An image-only field is unknown to /api/pdf.
    expect(await expectInvalid(await app.post('/api/pdf', { html: TINY, fullPage: true }), 'fullPage')).toEqual([
      { path: 'fullPage', message: 'fullPage is not a field this request takes: check its spelling, or remove it.' },
    ]);
    expect(
      await expectInvalid(
        await app.post('/api/pdf', { html: TINY, viewport: { width: 10, height: 10, dpi: 2 } }),
        'viewport.dpi',
      ),
    ).toEqual([
      {
        path: 'viewport.dpi',
        message: 'viewport.dpi is not a field this request takes: check its spelling, or remove it.',
      },
    ]);
  });

  it('wrong types: details list EACH bad field', async () => {
    const details = await expectInvalid(
      await app.post('/api/image', {
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
      await app.post('/api/pdf', { html: 42, landscape: 'no', scale: '2', margin: { top: true } }),
      'html',
      'landscape',
      'scale',
      'margin.top',
    );
    expect(pdfDetails.map((d) => d.path).sort()).toEqual(['html', 'landscape', 'margin.top', 'scale']);
  });

  it('a type error and a cross-field error in one request are both listed', async () => {
    // Contract: details lists {path, message} per bad field — not only the first kind found.
    await expectInvalid(await app.post('/api/image', { html: TINY, delay: 'soon', quality: 80 }), 'delay', 'quality');
  });

  it('url with a scheme other than http/https', async () => {
    for (const url of ['ftp://example.com/file.html', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url']) {
      const details = await expectInvalid(await app.post('/api/pdf', { url }), 'url');
      expect(details, url).toHaveLength(1);
    }
  });

  it('an unknown device', async () => {
    await expectInvalid(await app.post('/api/image', { html: TINY, device: 'Nokia 3310' }), 'device');
  });

  it('a "device" that is an Object.prototype member is refused with 400, not a 500', async () => {
    for (const device of ['toString', 'constructor']) {
      await expectInvalid(await app.post('/api/image', { html: TINY, device }), 'device');
    }
  });

  it('a bad timezoneId', async () => {
    await expectInvalid(await app.post('/api/image', { html: TINY, timezoneId: 'Mars/Olympus' }), 'timezoneId');
    await expectInvalid(await app.post('/api/pdf', { html: TINY, timezoneId: 'UTC+25' }), 'timezoneId');
  });
});

describe('body size (413 payload_too_large)', () => {
  it(`a JSON body of exactly maxBodyBytes (${SMALL_BODY}) renders; one byte more → 413`, async () => {
    const exact = jsonOfSize(SMALL_BODY);
    await expectRendered(await smallApp.post('/api/image', exact), 'image');
    expect(smallApp.renders.at(-1)!.req.html).toBe((JSON.parse(exact) as { html: string }).html);
    await expectError(await smallApp.post('/api/image', jsonOfSize(SMALL_BODY + 1)), 413, 'payload_too_large');
  });

  it('the limit counts bytes, not characters', async () => {
    // 'é' is two bytes in UTF-8: well under the limit in characters, over it in bytes.
    const over = jsonOfSize(SMALL_BODY + 1, 'é');
    expect(over.length).toBeLessThan(SMALL_BODY);
    await expectError(await smallApp.post('/api/pdf', over), 413, 'payload_too_large');
    const exact = jsonOfSize(SMALL_BODY, 'é');
    await expectRendered(await smallApp.post('/api/pdf', exact), 'pdf');
  });

  it(`a text/html body of exactly ${SMALL_BODY} bytes renders; one byte more → 413`, async () => {
    await expectRendered(await postRaw(smallApp, '/api/image', htmlOfSize(SMALL_BODY), 'text/html'), 'image');
    await expectError(
      await postRaw(smallApp, '/api/image', htmlOfSize(SMALL_BODY + 1), 'text/html'),
      413,
      'payload_too_large',
    );
    await expectError(
      await postRaw(smallApp, '/api/pdf', htmlOfSize(SMALL_BODY + 1), 'text/html'),
      413,
      'payload_too_large',
    );
  });

  it('a Content-Length above the limit → 413 at once, without waiting for the body', async () => {
    const started = Date.now();
    const res = await streamingPost(`${smallApp.url}/api/image`, {
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
    const res = await streamingPost(`${smallApp.url}/api/pdf`, {
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
    const res = await streamingPost(`${smallApp.url}/api/image`, {
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks: [Buffer.from(json.slice(0, 10)), Buffer.from(json.slice(10, 30)), Buffer.from(json.slice(30))],
      end: true,
      gapMs: 5,
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(smallApp.renders.at(-1)!.req).toMatchObject({ html: TINY, viewport: { width: 12, height: 12 } });
  });

  it('the default limit is 8 MiB: a JSON body one byte over → 413', async () => {
    await expectError(await app.post('/api/pdf', jsonOfSize(8 * 1024 * 1024 + 1)), 413, 'payload_too_large');
  });
});
