// The egress policy end to end, with a real Chromium behind the real egress proxy. A "canary" fixture
// server stands for the internal service an attacker wants to reach: every attack must leave it with
// zero requests and keep its text (CANARY-SECRET) out of the output. Positive controls aim the same
// pages at an allowed host and see the requests arrive, so the attack tests can fail.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { parsePdf } from '../helpers/pdf.js';
import { until } from '../helpers/until.js';

const SECRET = 'CANARY-SECRET';
/** What a page can aim at the canary; see probesPage at the end. */
const KINDS = ['img', 'iframe', 'fetch', 'xhr', 'eventsource', 'websocket', 'worker', 'stylesheet', 'beacon'] as const;
type Kind = (typeof KINDS)[number];
let canary: FixtureServer;
let site: FixtureServer; // the allowed origin (only reachable as localhost:PORT in "named" below)

beforeAll(async () => {
  [canary, site] = await Promise.all([startFixtureServer(), startFixtureServer()]);
  for (const path of ['/', '/secret', '/latest/meta-data/']) {
    canary.route(path, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>${SECRET}</p>`);
    });
  }
});
afterEach(() => {
  canary.requests.length = 0; // each test asserted it empty; a leak must not fail the next test too
  site.requests.length = 0;
});
afterAll(async () => {
  await Promise.all([canary?.close(), site?.close()]);
});

/** PDF text without whitespace, so a line break inside a marker cannot hide it from a negative check. */
const squash = (text: string) => text.replace(/\s+/g, '');
const doc = (body: string) => `<!doctype html><html><head><meta charset="utf-8"></head><body>${body}</body></html>`;

async function expectError(svc: TestService, body: Record<string, unknown>, status: number, code: string) {
  const res = await svc.post('/api/pdf', body);
  const err = await errorOf(res);
  expect(`${res.status} ${err.code}`, err.message).toBe(`${status} ${code}`);
  return err;
}

async function pdfText(svc: TestService, body: Record<string, unknown>): Promise<string> {
  const res = await svc.post('/api/pdf', body);
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  return (await parsePdf(await bytesOf(res))).text;
}

describe('policy fully on (nothing private allowed)', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ egress: { allowPrivate: false, allowHosts: [], denyHosts: [] } });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://127.0.0.1:PORT/',
    'http://localhost:PORT/', // a hostname that resolves to loopback
    'http://[::1]:PORT/',
    'http://2130706433:PORT/',
    'http://0x7f000001:PORT/',
    'http://127.1:PORT/',
    'http://0:PORT/',
    'http://[::ffff:127.0.0.1]:PORT/',
    'http://[::127.0.0.1]:PORT/', // IPv4-compatible form (WHATWG URL spells it [::7f00:1])
    'http://10.0.0.1/',
    'http://100.64.0.1/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'https://127.0.0.1:PORT/',
  ])('%s → 403 url_blocked, canary untouched', async (template) => {
    const url = template.replace('PORT', String(canary.port));
    const res = await svc.post('/api/pdf', { url });
    expect(canary.requests).toEqual([]);
    const err = await errorOf(res);
    expect(`${res.status} ${err.code}`, err.message).toBe('403 url_blocked');
  });

  it('also on /api/image', async () => {
    const res = await svc.post('/api/image', { url: `http://localhost:${canary.port}/secret` });
    expect(res.status).toBe(403);
    expect((await errorOf(res)).code).toBe('url_blocked');
    expect(canary.requests).toEqual([]);
  });

  it.each([
    'file:///etc/passwd',
    'FILE:///etc/passwd',
    'file:/etc/passwd',
    'view-source:http://example.com',
    'chrome://version',
    'data:text/html,hi',
    'javascript:alert(1)',
    '  http://example.com',
    '\thttp://example.com',
    'http://example.com ',
    'http://example.com\n',
    'ftp://example.com/',
  ])('url %j → 400 invalid_request on url', async (url) => {
    const err = await expectError(svc, { url }, 400, 'invalid_request');
    expect(err.details?.map((d) => d.path)).toContain('url');
  });

  // Credentials in a URL are refused before the egress policy is asked (see isolation-table.test.ts).
  it.each(['http://user@127.0.0.1:PORT/', 'http://user:pw@localhost:PORT/secret'])(
    '%s → 400 on url (credentials), canary untouched',
    async (template) => {
      const url = template.replace('PORT', String(canary.port));
      const err = await expectError(svc, { url }, 400, 'invalid_request');
      expect(err.details?.find((d) => d.path === 'url')?.message).toMatch(/may not hold a user name or password/);
      expect(canary.requests).toEqual([]);
    },
  );
});

/*
 * A service that allows the site but not the canary, though both listen on 127.0.0.1: allowHosts holds
 * the NAME `localhost` only. The site is addressed as localhost:PORT (allowed by name), the canary as
 * 127.0.0.1:PORT (loopback, not allowed by name or address → refused). The opposite trick
 * (allowHosts: ['127.0.0.1'], canary as localhost) does not work: an IP entry allows the address, and
 * so every name resolving to it (see the unit test).
 */
describe('allowed site, forbidden canary', () => {
  let svc: TestService;
  let siteUrl: string;
  let canaryUrl: string;
  beforeAll(async () => {
    svc = await startTestService({ egress: { allowPrivate: false, allowHosts: ['localhost'], denyHosts: [] } });
    siteUrl = `http://localhost:${site.port}`;
    canaryUrl = `http://127.0.0.1:${canary.port}`;
    site.route('/redirect', (req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      res.writeHead(Number(q.get('code')), { location: q.get('to') ?? '/' }).end();
    });
    site.route('/meta', (req, res) => {
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '';
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(doc(`<meta http-equiv="refresh" content="0;url=${to}"><p>META-PAGE</p>`));
    });
    site.route('/script-nav', (req, res) => {
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '';
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(doc(`<p>SCRIPT-PAGE</p><script>location = ${JSON.stringify(to)};</script>`));
    });
    site.route('/probes', (req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      const kinds = (q.get('kinds') ?? '').split(',') as Kind[];
      res.writeHead(200, { 'content-type': 'text/html' }).end(probesPage(q.get('to') ?? '', kinds));
    });
    site.route('/cors-text', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('FETCHED-TEXT');
    });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('setup check: the site is allowed, the canary at 127.0.0.1 is not', async () => {
    expect(await pdfText(svc, { url: `${siteUrl}/invoice` })).toContain('INVOICE-TEST-MARKER');
    await expectError(svc, { url: `${canaryUrl}/secret` }, 403, 'url_blocked');
    expect(site.requests.map((r) => r.path)).toContain('/invoice');
    expect(canary.requests).toEqual([]);
  });

  describe('redirects of the main document', () => {
    it.each([301, 302, 307, 308])('HTTP %i to the canary → 403 url_blocked', async (code) => {
      await expectError(
        svc,
        { url: `${siteUrl}/redirect?code=${code}&to=${encodeURIComponent(`${canaryUrl}/secret`)}` },
        403,
        'url_blocked',
      );
      expect(site.requests.map((r) => r.path)).toEqual([
        `/redirect?code=${code}&to=${encodeURIComponent(`${canaryUrl}/secret`)}`,
      ]);
      expect(canary.requests).toEqual([]);
    });

    it('positive control: a 302 to an allowed page is followed', async () => {
      const text = await pdfText(svc, { url: `${siteUrl}/redirect?code=302&to=/invoice` });
      expect(text).toContain('INVOICE-TEST-MARKER');
    });

    const clientSide = [
      ['meta refresh', '/meta'],
      ['script location =', '/script-nav'],
    ] as const;

    it.each(clientSide)('%s to the canary: canary untouched, no secret in the output, 403', async (_what, path) => {
      const res = await svc.post('/api/pdf', {
        url: `${siteUrl}${path}?to=${encodeURIComponent(`${canaryUrl}/secret`)}`,
        delay: 1000,
      });
      const body = await bytesOf(res);
      expect(canary.requests).toEqual([]);
      if (res.status === 200) expect(squash((await parsePdf(body)).text)).not.toContain(SECRET);
      expect(res.status, body.toString('utf8')).toBe(403);
      expect(JSON.parse(body.toString('utf8'))).toMatchObject({ error: { code: 'url_blocked' } });
    });

    it.each(clientSide)(
      'positive control: %s to an allowed page is followed within the render',
      async (_what, path) => {
        // h1 is only on the invoice, so this also proves the caller's wait applies to the final document.
        const text = await pdfText(svc, {
          url: `${siteUrl}${path}?to=${encodeURIComponent(`${siteUrl}/invoice`)}`,
          waitForSelector: 'h1',
        });
        expect(text).toContain('INVOICE-TEST-MARKER');
      },
    );

    // The refresh happens after load: the renderer must wait for the page to settle on the target.
    it('a meta refresh to an allowed page renders the target with default waits', async () => {
      const text = await pdfText(svc, {
        url: `${siteUrl}/meta?to=${encodeURIComponent(`${siteUrl}/invoice`)}`,
        delay: 1000,
      });
      expect(text).toContain('INVOICE-TEST-MARKER');
    });
  });

  describe('sub-resources', () => {
    it.each(KINDS)('%s at the canary from an allowed page: 200, canary untouched', async (kind) => {
      const text = await pdfText(svc, {
        url: `${siteUrl}/probes?kinds=${kind}&to=${encodeURIComponent(canaryUrl)}`,
        delay: 1000,
      });
      expect(text).toContain('PROBES');
      expect(squash(text)).not.toContain(SECRET);
      expect(canary.requests).toEqual([]);
    });

    it('all of them at the canary from html: 200, canary untouched', async () => {
      const text = await pdfText(svc, { html: probesPage(canaryUrl, KINDS), delay: 1000 });
      expect(text).toContain('PROBES');
      expect(squash(text)).not.toContain(SECRET);
      expect(canary.requests).toEqual([]);
    });

    it('positive control: the same probes at the allowed site all arrive (url and html)', async () => {
      await pdfText(svc, {
        url: `${siteUrl}/probes?kinds=${KINDS.join(',')}&to=${encodeURIComponent(siteUrl)}`,
        delay: 1000,
      });
      await pdfText(svc, { html: probesPage(siteUrl, KINDS), delay: 1000 });
      const arrived = (prefix: string) =>
        [...new Set(site.requests.map((r) => r.path).filter((p) => p.startsWith(prefix)))].sort();
      // Some probes (a worker, a beacon) need not land before the render ends: wait for them a little.
      const all = (prefix: string) => KINDS.map((k) => `${prefix}${k}`).sort();
      await until(
        'every probe to arrive',
        () => arrived('/probe/url-').length === KINDS.length && arrived('/probe/html-').length === KINDS.length,
        10_000,
      ).catch(() => undefined);
      expect(arrived('/probe/url-')).toEqual(all('/probe/url-'));
      expect(arrived('/probe/html-')).toEqual(all('/probe/html-'));
    });
  });

  describe('file: from html', () => {
    const passwdFetch =
      "<script>fetch('file:///etc/passwd').then((r) => r.text()).then((t) => { const pre = document.createElement('pre'); pre.textContent = t; document.body.append(pre); }, (e) => document.body.append('FETCH-FAILED ' + e))</script>";

    it.each([
      ['iframe', '<iframe src="file:///etc/passwd" width="600" height="400"></iframe>'],
      ['fetch', passwdFetch],
    ])('%s of file:///etc/passwd: 200, no passwd content', async (_what, body) => {
      const text = await pdfText(svc, { html: doc(`<p>FILE-PAGE</p>${body}`), delay: 1000 });
      expect(text).toContain('FILE-PAGE');
      expect(squash(text)).not.toMatch(/root:/);
    });

    it('positive control: the same iframe and fetch with an allowed http URL show their content', async () => {
      const html = doc(
        `<iframe src="${siteUrl}/invoice" width="600" height="400"></iframe>${passwdFetch.replace('file:///etc/passwd', `${siteUrl}/cors-text`)}`,
      );
      const text = await pdfText(svc, { html, delay: 1000 });
      expect(text).toContain('INVOICE-TEST-MARKER');
      expect(text).toContain('FETCHED-TEXT');
    });
  });
});

// ---------------------------------------------------------------------------------------------------
// Probe page: one request per kind to `${to}/probe/<origin>-<kind>`, where origin tells url from html.

function probesPage(to: string, kinds: readonly Kind[]): string {
  return doc(`<p>PROBES</p>${kinds.map((k) => probe(k, to)).join('\n')}`);
}

function probe(kind: Kind, to: string): string {
  // Decided in the page: the same markup serves the url case (location is http) and the html case.
  const u = `(location.protocol.startsWith('http') ? 'url' : 'html')`;
  const at = `${JSON.stringify(`${to}/probe/`)} + ${u} + ${JSON.stringify(`-${kind}`)}`;
  const js = (code: string) =>
    `<script>try { ${code} } catch (e) { document.body.append('PROBE-ERROR ${kind} ' + e); }</script>`;
  switch (kind) {
    case 'img':
      return js(`const i = new Image(); i.src = ${at}; document.body.append(i);`);
    case 'iframe':
      return js(`const f = document.createElement('iframe'); f.src = ${at}; document.body.append(f);`);
    case 'fetch':
      return js(`fetch(${at}).then((r) => r.text()).then((t) => document.body.append(t), () => undefined);`);
    case 'xhr':
      return js(
        `const x = new XMLHttpRequest(); x.open('GET', ${at}); x.onload = () => document.body.append(x.responseText); x.send();`,
      );
    case 'eventsource':
      return js(`new EventSource(${at});`);
    case 'websocket':
      return js(`new WebSocket((${at}).replace(/^http/, 'ws'));`);
    case 'worker':
      return js(
        `new Worker(URL.createObjectURL(new Blob(['fetch(' + JSON.stringify(${at}) + ').catch(() => undefined)'], { type: 'text/javascript' })));`,
      );
    case 'stylesheet':
      return js(
        `const l = document.createElement('link'); l.rel = 'stylesheet'; l.href = ${at}; document.head.append(l);`,
      );
    case 'beacon':
      return js(`navigator.sendBeacon(${at}, 'x');`);
  }
}
