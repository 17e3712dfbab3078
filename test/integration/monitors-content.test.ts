// What a monitor reads (issue #27, content kinds and requests): JSON compared in its canonical form
// (reordered keys are no change, a changed value is a change at its JSON path), text sent as
// application/octet-stream, bytes watched by their hash, a POST with a sealed body, and hostile content
// (deep JSON, a 50 MB body, a gzip bomb) that ends in a failed or cut capture while the service keeps
// answering. The real service (real Chromium, real SQLite) against fixture servers on 127.0.0.1; webhooks
// are verified with the reference `standardwebhooks` package; the service's log is read for the body.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPdf } from '../../src/content/pdf-read.js';
import { MAX_CONTENT_LINES, MAX_JSON_DEPTH } from '../../src/content/read-content.js';
import { MAX_REDIRECTS } from '../../src/content/fetch-content.js';
import { startTestService, errorOf, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

interface TextChange {
  box: { x: number; y: number; width: number; height: number } | null;
  kind: string;
  before: string | null;
  after: string | null;
  selector: string | null;
}
interface Capture {
  id: string;
  status: string;
  changed: boolean;
  error?: { code: string; message: string };
  imageUrl?: string;
  content?: {
    kind: string;
    mediaType: string | null;
    bytes: number | null;
    cut?: string;
    sha256?: string;
    pages?: number;
    pagesRead?: number;
  };
  textChanges?: TextChange[];
  textChangesTotal?: number;
  regions?: { x: number; y: number; width: number; height: number }[];
  conditions?: { met: boolean }[];
  conditionErrors?: string[];
}

const YEARLY = '0 0 1 1 *';
const MIB = 1024 * 1024;
/** monitors.maxContentBytes at its default. */
const MAX_BYTES = 20 * MIB;
/** Every capture here, hostile ones included, ends within this (a stated bound, not a guess at speed). */
const CAPTURE_BOUND_MS = 60_000;
const SECRET_BODY = 'SECRET-BODY-7f3a9c';

/** A fixture server on 127.0.0.1 whose handlers see each request's body. */
interface Fixture {
  url: string;
  /** The same server by another name: another origin. */
  otherOriginUrl: string;
  seen: { method: string; path: string; headers: http.IncomingHttpHeaders; body: string }[];
  routes: Map<string, (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void>;
  close(): Promise<void>;
}

async function startFixture(): Promise<Fixture> {
  const fixture: Fixture = {
    url: '',
    otherOriginUrl: '',
    seen: [],
    routes: new Map(),
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url!, 'http://x').pathname;
      fixture.seen.push({ method: req.method!, path, headers: req.headers, body });
      const route = fixture.routes.get(path);
      if (route) route(req, res, body);
      else res.writeHead(404, { 'content-type': 'text/plain' }).end('no such fixture');
    });
    // A response the service stops reading (a cut body) ends with a reset: not the fixture's concern.
    res.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  fixture.url = `http://127.0.0.1:${port}`;
  fixture.otherOriginUrl = `http://localhost:${port}`;
  return fixture;
}

let svc: TestService;
let fx: Fixture;
let hooks: WebhookReceiver;
let owner: { key: string; webhookSecret: string };
const logChunks: string[] = [];

beforeAll(async () => {
  [svc, fx, hooks] = await Promise.all([
    startTestService(
      {
        webhooks: { retryScheduleMs: [200, 200] },
        jobs: { pollIntervalMs: 100 },
        rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
      },
      { logLevel: 'trace', log: { write: (s: string) => void logChunks.push(s) } },
    ),
    startFixture(),
    startWebhookReceiver(),
  ]);
  owner = svc.createKey('monitors-content');
});
afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close(), hooks?.close()]);
});

function serve(path: string, contentType: string, body: () => string | Buffer, extra: Record<string, string> = {}) {
  fx.routes.set(path, (_req, res) => {
    const bytes = body();
    res.writeHead(200, { 'content-type': contentType, 'content-length': String(bytes.length), ...extra });
    res.end(bytes);
  });
  return `${fx.url}${path}`;
}

async function createMonitor(body: Record<string, unknown>): Promise<{ id: string }> {
  const res = await svc.call('POST', '/api/monitors', owner.key, {
    schedule: YEARLY,
    capture: { viewport: { width: 640, height: 400 } },
    diff: { confirm: false },
    notify: ['change', 'failure'],
    ...body,
  });
  if (res.status !== 201) throw new Error(`POST /api/monitors → ${res.status}: ${await res.text()}`);
  return (await res.json()) as { id: string };
}

async function capturesOf(monitorId: string): Promise<Capture[]> {
  const res = await svc.call('GET', `/api/monitors/${monitorId}/captures?limit=100`, owner.key);
  if (res.status !== 200) throw new Error(`GET captures → ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { items: Capture[] }).items;
}

/** Capture now and wait until the capture is recorded, whatever its status. */
async function captureNow(monitorId: string): Promise<Capture> {
  const known = new Set((await capturesOf(monitorId)).map((c) => c.id));
  const res = await svc.call('POST', `/api/monitors/${monitorId}/run`, owner.key);
  if (res.status !== 202) throw new Error(`POST run → ${res.status}: ${await res.text()}`);
  return until(
    `a new capture of ${monitorId}`,
    async () => (await capturesOf(monitorId)).find((c) => !known.has(c.id)),
    CAPTURE_BOUND_MS,
    100,
  );
}

async function succeeded(monitorId: string): Promise<Capture> {
  const capture = await captureNow(monitorId);
  expect(capture.status, capture.error?.message).toBe('succeeded');
  return capture;
}

async function expectPng(capture: Capture): Promise<void> {
  const res = await fetch(capture.imageUrl!, { headers: { authorization: `Bearer ${owner.key}` } });
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(bytes.subarray(1, 4).toString()).toBe('PNG');
}

/** While `work` runs, /health is asked every 25 ms; returns the slowest answer (all must be 200). */
async function healthMeanwhile<T>(work: () => Promise<T>): Promise<{ result: T; slowestMs: number; asked: number }> {
  let done = false;
  let slowestMs = 0;
  let asked = 0;
  const poll = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${svc.url}/health`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      slowestMs = Math.max(slowestMs, performance.now() - started);
      asked++;
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  try {
    const result = await work();
    return { result, slowestMs, asked };
  } finally {
    done = true;
    await poll;
  }
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('JSON', () => {
  it('reordered keys and respelled numbers are no change; a changed value is a change at its JSON path, told by a verified webhook', async () => {
    let doc = '{"items":[{"price":3,"name":"Blue widget","id":"a1"}],"updated":"x","count":1}';
    const url = serve('/api/items.json', 'application/json; charset=utf-8', () => doc);
    const hits = hooks.hits.length;
    const { id } = await createMonitor({ url, webhookUrl: hooks.url });

    const first = await succeeded(id);
    expect(first.content).toEqual({ kind: 'json', mediaType: 'application/json', bytes: Buffer.byteLength(doc) });
    await expectPng(first);

    doc = '{ "count": 1.0, "updated": "x",\n "items": [ { "id": "a1", "name": "Blue widget", "price": 3e0 } ] }';
    const reordered = await succeeded(id);
    expect(reordered.changed).toBe(false);
    expect(reordered.textChangesTotal).toBe(0);

    doc = '{"items":[{"price":4,"name":"Blue widget","id":"a1"}],"updated":"x","count":1}';
    const changed = await succeeded(id);
    expect(changed.changed).toBe(true);
    expect(changed.textChanges).toEqual([
      expect.objectContaining({
        kind: 'changed',
        selector: '$.items[0].price',
        before: '"price": 3',
        after: '"price": 4',
      }),
    ]);

    // The line's box is where the picture drew it: line 7 of the print (16 px padding, 20 px lines), and
    // the pixels that changed (the regions) lie on it.
    const box = { x: 16, y: 16 + 6 * 20, width: 640 - 32, height: 20 };
    expect(changed.textChanges![0]!.box).toEqual(box);
    expect(changed.regions!.length).toBeGreaterThan(0);
    for (const r of changed.regions!) {
      expect(r.y).toBeGreaterThanOrEqual(box.y - 2);
      expect(r.y + r.height).toBeLessThanOrEqual(box.y + box.height + 2);
    }

    const [hit] = (await hooks.waitForHits(hits + 1)).slice(hits);
    const event = verifyHit(owner.webhookSecret, hit!);
    expect(event.type).toBe('monitor.changed');
    expect(event.data).toMatchObject({ captureId: changed.id, content: { kind: 'json' } });
    expect((event.data.textChanges as TextChange[])[0]!.selector).toBe('$.items[0].price');
  });

  it('notifyWhen selector rules cannot read elements of JSON: false, with the reason', async () => {
    const url = serve('/api/rule.json', 'application/json', () => '{"a":1}');
    const { id } = await createMonitor({ url, notifyWhen: [{ selector: 'h1', textContains: 'x' }] });
    const capture = await succeeded(id);
    expect(capture.conditions).toEqual([expect.objectContaining({ met: false })]);
    expect(capture.conditionErrors).toEqual([expect.stringContaining('the page is not HTML (json)')]);
  });
});

describe('text and bytes', () => {
  it('text sent as application/octet-stream is read (not "Download is starting") and a changed line reported', async () => {
    let text = 'alpha\nbeta 1\ngamma\n';
    const url = serve('/notes.bin', 'application/octet-stream', () => text, {
      'content-disposition': 'attachment; filename="notes.bin"',
    });
    const { id } = await createMonitor({ url });
    const first = await succeeded(id);
    expect(first.content).toEqual({ kind: 'text', mediaType: 'application/octet-stream', bytes: text.length });
    await expectPng(first);

    text = 'alpha\nbeta 2\ngamma\n';
    const second = await succeeded(id);
    expect(second.changed).toBe(true);
    expect(second.textChanges).toEqual([
      expect.objectContaining({ kind: 'changed', selector: 'line 2', before: 'beta 1', after: 'beta 2' }),
    ]);
  });

  it('a line of 2,000 characters is compared whole and clipped in the picture, which keeps the viewport width', async () => {
    let long = 'word '.repeat(400);
    const url = serve('/long.txt', 'text/plain', () => `short\n${long}\n`);
    const { id } = await createMonitor({ url });
    const first = (await succeeded(id)) as Capture & { width: number };
    expect(first.width).toBe(640);
    long = `${'word '.repeat(399)}last`;
    const second = await succeeded(id);
    expect(second.textChanges).toEqual([expect.objectContaining({ selector: 'line 2', after: long })]);
  });

  it('binary content is watched by its hash: changed bytes are a text change of the hash', async () => {
    const bytes = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0]), randomBytes(12_340)]);
    const url = serve('/archive.zip', 'application/zip', () => bytes);
    const { id } = await createMonitor({ url });
    const first = await succeeded(id);
    expect(first.content).toEqual({
      kind: 'binary',
      mediaType: 'application/zip',
      bytes: 12_345,
      sha256: sha256(bytes),
    });
    await expectPng(first);

    const before = sha256(bytes);
    bytes[100] = bytes[100]! ^ 0xff;
    const second = await succeeded(id);
    expect(second.changed).toBe(true);
    expect(second.content!.sha256).toBe(sha256(bytes));
    expect(second.textChanges).toHaveLength(1);
    expect(second.textChanges![0]!.before).toBe(`Watching bytes: application/zip, 12,345 bytes, SHA-256 ${before}`);
    expect(second.textChanges![0]!.after).toContain(sha256(bytes));
  });
});

describe('HTML', () => {
  it('a GET of an HTML page is rendered by the browser as before, after one Node request of its first bytes', async () => {
    const url = serve('/page.html', 'text/html; charset=utf-8', () => '<!doctype html><h1>Hello page</h1>');
    const { id } = await createMonitor({ url });
    const before = fx.seen.filter((r) => r.path === '/page.html').length;
    const capture = await succeeded(id);
    expect(capture.content).toEqual({ kind: 'html', mediaType: 'text/html', bytes: null });
    const requests = fx.seen.filter((r) => r.path === '/page.html').slice(before);
    expect(requests).toHaveLength(2); // the fetch that learned the kind, then Chromium
    expect(requests[0]!.headers['user-agent']).toContain('Pagewatch');
    expect(requests[1]!.headers['user-agent']).toContain('Chrome');
  });

  it('HTML answered to a POST is rendered at the URL that answered (relative links resolve there)', async () => {
    fx.routes.set('/form/result', (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><h1>Results for ${req.method}</h1><img src="dot.png" width="10" height="10">`);
    });
    fx.routes.set('/form/dot.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(0));
    });
    const { id } = await createMonitor({
      url: `${fx.url}/form/result`,
      capture: { viewport: { width: 640, height: 400 }, method: 'POST', body: 'q=widgets' },
    });
    const capture = await succeeded(id);
    expect(capture.content).toMatchObject({ kind: 'html', mediaType: 'text/html' });
    const post = fx.seen.filter((r) => r.path === '/form/result');
    expect(post.map((r) => r.method)).toEqual(['POST']); // the browser rendered the fetched HTML, no second request
    expect(post[0]!.headers['content-type']).toBe('text/plain; charset=utf-8');
    await until('the relative image loaded from the final URL', () => fx.seen.some((r) => r.path === '/form/dot.png'));
  });
});

describe('requests with a body', () => {
  it('POST sends method, body and JSON content type; the body is write-only, kept by "••••", and never shown or logged', async () => {
    const body = JSON.stringify({ query: SECRET_BODY, page: 1 });
    fx.routes.set('/search', (req, res, got) => {
      const ok = req.method === 'POST' && got === body && req.headers['content-type'] === 'application/json';
      res.writeHead(ok ? 200 : 400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok, results: [{ id: 1 }] }));
    });
    const { id } = await createMonitor({
      url: `${fx.url}/search`,
      capture: { viewport: { width: 640, height: 400 }, method: 'POST', body },
    });
    const first = await succeeded(id);
    expect(first.content!.kind).toBe('json');
    const sent = fx.seen.filter((r) => r.path === '/search');
    expect(sent.map((r) => [r.method, r.body, r.headers['content-type']])).toEqual([
      ['POST', body, 'application/json'],
    ]);

    const shown = (await (await svc.call('GET', `/api/monitors/${id}`, owner.key)).json()) as {
      capture: Record<string, unknown>;
    };
    expect(shown.capture).toMatchObject({ method: 'POST', body: '••••' });
    const listed = await (await svc.call('GET', '/api/monitors?limit=100', owner.key)).text();
    expect(listed).not.toContain(SECRET_BODY);
    expect(listed).toContain('••••');
    expect(JSON.stringify(await capturesOf(id))).not.toContain(SECRET_BODY);

    // "••••" sent back keeps the stored body; the next capture sends it again.
    const patched = await svc.call('PATCH', `/api/monitors/${id}`, owner.key, {
      name: 'renamed',
      capture: { body: '••••' },
    });
    expect(patched.status, await patched.clone().text()).toBe(200);
    await succeeded(id);
    expect(fx.seen.filter((r) => r.path === '/search').map((r) => r.body)).toEqual([body, body]);

    // Switching to GET with the body still there is refused at capture.body.
    const toGet = await svc.call('PATCH', `/api/monitors/${id}`, owner.key, { capture: { method: 'GET' } });
    expect(toGet.status).toBe(400);
    expect((await errorOf(toGet)).details?.map((d) => d.path)).toEqual(['capture.body']);

    const logged = logChunks.join('');
    expect(logged.length).toBeGreaterThan(0);
    expect(logged).not.toContain(SECRET_BODY);
  });

  it('a PATCH that moves the url to another origin must send the body again ("••••" is 400 at capture.body)', async () => {
    fx.routes.set('/echo', (_req, res, got) => res.writeHead(200, { 'content-type': 'text/plain' }).end(got));
    const { id } = await createMonitor({
      url: `${fx.url}/echo`,
      capture: { viewport: { width: 640, height: 400 }, method: 'POST', body: SECRET_BODY },
    });
    const moved = await svc.call('PATCH', `/api/monitors/${id}`, owner.key, {
      url: `${fx.otherOriginUrl}/echo`,
      capture: { body: '••••' },
    });
    expect(moved.status).toBe(400);
    const error = await errorOf(moved);
    expect(error.details?.map((d) => d.path)).toEqual(['capture.body']);
    expect(error.details![0]!.message).toContain('only sent to the origin it was given for');
    // The same origin keeps it.
    const same = await svc.call('PATCH', `/api/monitors/${id}`, owner.key, { url: `${fx.url}/echo?v=2` });
    expect(same.status).toBe(200);
  });

  it('a body on GET is 400 at capture.body; "••••" with nothing stored is 400 too', async () => {
    const get = await svc.call('POST', '/api/monitors', owner.key, {
      url: `${fx.url}/search`,
      schedule: YEARLY,
      capture: { body: 'x' },
    });
    expect(get.status).toBe(400);
    expect((await errorOf(get)).details?.map((d) => d.path)).toEqual(['capture.body']);
    const mask = await svc.call('POST', '/api/monitors', owner.key, {
      url: `${fx.url}/search`,
      schedule: YEARLY,
      capture: { method: 'POST', body: '••••' },
    });
    expect(mask.status).toBe(400);
    expect((await errorOf(mask)).details?.map((d) => d.path)).toEqual(['capture.body']);
  });

  it('PUT with a text body sends text/plain; a 307 to another origin is refused, the body stays home', async () => {
    fx.routes.set('/put-here', (req, res, got) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} ${got.length}`);
    });
    const { id } = await createMonitor({
      url: `${fx.url}/put-here`,
      capture: { viewport: { width: 640, height: 400 }, method: 'PUT', body: 'plain words' },
    });
    await succeeded(id);
    const put = fx.seen.filter((r) => r.path === '/put-here').at(-1)!;
    expect([put.method, put.body, put.headers['content-type']]).toEqual([
      'PUT',
      'plain words',
      'text/plain; charset=utf-8',
    ]);

    fx.routes.set('/moves-away', (_req, res) => {
      res.writeHead(307, { location: `${fx.otherOriginUrl}/elsewhere` }).end();
    });
    const away = await createMonitor({
      url: `${fx.url}/moves-away`,
      capture: { viewport: { width: 640, height: 400 }, method: 'POST', body: SECRET_BODY },
    });
    const failed = await captureNow(away.id);
    expect(failed.status).toBe('failed');
    expect(failed.error!.message).toContain('the request body is only sent to');
    expect(fx.seen.some((r) => r.path === '/elsewhere')).toBe(false);
  });
});

describe('limits, each at its edge and one over', () => {
  it(`redirects: ${MAX_REDIRECTS} are followed, one more fails the capture`, async () => {
    fx.routes.set('/hop', (req, res) => {
      const left = Number(new URL(req.url!, 'http://x').searchParams.get('left'));
      if (left > 0) res.writeHead(302, { location: `/hop?left=${left - 1}` }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"arrived":true}');
    });
    const ok = await createMonitor({ url: `${fx.url}/hop?left=${MAX_REDIRECTS}` });
    expect((await succeeded(ok.id)).content!.kind).toBe('json');
    const over = await createMonitor({ url: `${fx.url}/hop?left=${MAX_REDIRECTS + 1}` });
    const failed = await captureNow(over.id);
    expect(failed.status).toBe('failed');
    expect(failed.error!.message).toContain(`redirected more than ${MAX_REDIRECTS} times`);
  });

  it('time: a body still coming at capture.timeout fails the capture as a timeout', async () => {
    fx.routes.set('/slow.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"started": true'); // and nothing more: the body never ends
    });
    const { id } = await createMonitor({
      url: `${fx.url}/slow.json`,
      capture: { viewport: { width: 640, height: 400 }, timeout: 2000 },
    });
    const failed = await captureNow(id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual({
      code: 'render_timeout',
      message: expect.stringContaining('did not answer within 2000 ms') as unknown,
    });
  });

  it(`JSON nesting: ${MAX_JSON_DEPTH} levels are read, one more fails the capture with the reason`, async () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const ok = await createMonitor({ url: serve('/deep-ok.json', 'application/json', () => nested(MAX_JSON_DEPTH)) });
    expect((await succeeded(ok.id)).content!.kind).toBe('json');
    const over = await createMonitor({
      url: serve('/deep-over.json', 'application/json', () => nested(MAX_JSON_DEPTH + 1)),
    });
    const failed = await captureNow(over.id);
    expect(failed.status).toBe('failed');
    expect(failed.error!.message).toContain(`nests deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it(`lines: ${MAX_CONTENT_LINES} are compared, one more is left out and the capture says so`, async () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `row ${i + 1}`).join('\n');
    const ok = await createMonitor({ url: serve('/lines-ok.txt', 'text/plain', () => lines(MAX_CONTENT_LINES)) });
    expect((await succeeded(ok.id)).content!.cut).toBeUndefined();
    const over = await createMonitor({
      url: serve('/lines-over.txt', 'text/plain', () => lines(MAX_CONTENT_LINES + 1)),
    });
    const cut = await succeeded(over.id);
    expect(cut.content!.cut).toBe('only the first 10,000 of 10,001 lines are compared');
  });

  it('monitors.maxContentBytes (20 MiB): exactly that is read whole, one byte more is cut and said', async () => {
    const at = Buffer.alloc(MAX_BYTES, 0);
    const ok = await createMonitor({ url: serve('/at-cap.bin', 'application/octet-stream', () => at) });
    const whole = await succeeded(ok.id);
    expect(whole.content).toEqual({
      kind: 'binary',
      mediaType: 'application/octet-stream',
      bytes: MAX_BYTES,
      sha256: sha256(at),
    });
    const over = await createMonitor({
      url: serve('/over-cap.bin', 'application/octet-stream', () => Buffer.alloc(MAX_BYTES + 1, 0)),
    });
    const cut = await succeeded(over.id);
    expect(cut.content).toMatchObject({ kind: 'binary', bytes: MAX_BYTES, sha256: sha256(at) });
    expect(cut.content!.cut).toBe('only the first 20 MiB were read (monitors.maxContentBytes)');
  });
});

describe('hostile content: a failed or cut capture with the reason, the service answering meanwhile', () => {
  it('JSON nested 100,000 deep fails with the reason', async () => {
    const body = '['.repeat(100_000) + ']'.repeat(100_000);
    const { id } = await createMonitor({ url: serve('/bomb-deep.json', 'application/json', () => body) });
    const { result, slowestMs, asked } = await healthMeanwhile(() => captureNow(id));
    expect(result.status).toBe('failed');
    expect(result.error!.message).toContain(`nests deeper than ${MAX_JSON_DEPTH} levels`);
    expect(asked).toBeGreaterThan(0);
    expect(slowestMs).toBeLessThan(2000);
  });

  it('a 50 MB text body is cut at the cap', async () => {
    const line = 'x'.repeat(99) + '\n';
    const body = Buffer.from(line.repeat(500_000)); // 50,000,000 bytes
    const { id } = await createMonitor({ url: serve('/big.txt', 'text/plain', () => body) });
    const { result, slowestMs } = await healthMeanwhile(() => succeeded(id));
    expect(result.content).toMatchObject({ kind: 'text', bytes: MAX_BYTES });
    expect(result.content!.cut).toContain('only the first 20 MiB were read');
    expect(slowestMs).toBeLessThan(2000);
  });

  it('a gzip bomb (1 GiB of zeros in about 1 MB) stops decompressing at the cap', async () => {
    // gzip members one after another are one gzip stream: 16 × 64 MiB, without holding 1 GiB here.
    const member = gzipSync(Buffer.alloc(64 * MIB, 0), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 16 }, () => member));
    expect(bomb.length).toBeLessThan(2 * MIB);
    fx.routes.set('/bomb.gz', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' }).end(bomb);
    });
    const { id } = await createMonitor({ url: `${fx.url}/bomb.gz` });
    const memoryBefore = process.memoryUsage().rss;
    const { result, slowestMs } = await healthMeanwhile(() => succeeded(id));
    expect(result.content).toMatchObject({ kind: 'binary', bytes: MAX_BYTES, sha256: sha256(Buffer.alloc(MAX_BYTES)) });
    expect(result.content!.cut).toContain('only the first 20 MiB were read');
    // Far below the 1 GiB the bomb would have become.
    expect(process.memoryUsage().rss - memoryBefore).toBeLessThan(400 * MIB);
    expect(slowestMs).toBeLessThan(2000);
  });
});

// PDF capture depends on readPdf (src/content/pdf-read.ts), which another piece of issue #27 builds. Until
// it lands the stub rejects, and these tests are skipped; they pass against the agreed interface once it does.
const pdfReaderBuilt = await readPdf(
  Buffer.alloc(0),
  { maxPages: 1, picturePages: 1, timeoutMs: 1000, memoryMb: 64 },
  new AbortController().signal,
).then(
  () => true,
  (err: Error) => !err.message.includes('not built yet'),
);

describe.skipIf(!pdfReaderBuilt)('PDF (pending readPdf)', () => {
  it('a PDF is read by page: content.pages, a picture, and a change named by its page', async () => {
    const pdfOf = async (second: string) => {
      const res = await svc.call('POST', '/api/pdf', owner.key, {
        html: `<p>First page text</p><p style="break-before:page">${second}</p>`,
      });
      expect(res.status).toBe(200);
      return Buffer.from(await res.arrayBuffer());
    };
    let pdf = await pdfOf('Second page says one');
    const url = serve('/doc.pdf', 'application/pdf', () => pdf);
    const { id } = await createMonitor({ url });
    const first = await succeeded(id);
    expect(first.content).toMatchObject({ kind: 'pdf', mediaType: 'application/pdf', pages: 2, pagesRead: 2 });
    await expectPng(first);
    pdf = await pdfOf('Second page says two');
    const second = await succeeded(id);
    expect(second.changed).toBe(true);
    expect(second.textChanges![0]!.selector).toBe('page 2');
  });
});
