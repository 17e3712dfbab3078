// The caller's secrets — headers, httpCredentials, cookies — reach the target's origin and no other host:
// not a third-party host the page loads an image, script or fetch from, and not a host a redirect leads
// to (issue #10, findings 2 and 3). Two fixture servers on two loopback addresses are two origins; the
// third party records every request it gets, so "never sent" is read from what actually arrived.
import type http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BASIC_AUTH_PASSWORD,
  BASIC_AUTH_USER,
  startFixtureServer,
  type FixtureServer,
} from '../helpers/fixture-server.js';
import { decodePng } from '../helpers/png.js';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let svc: TestService;
let target: FixtureServer;
let third: FixtureServer;

const BASIC = `Basic ${Buffer.from(`${BASIC_AUTH_USER}:${BASIC_AUTH_PASSWORD}`).toString('base64')}`;

const html = (body: string) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><body>${body}</body></html>`);
};
const redirect = (to: () => string) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(302, { location: to() });
  res.end();
};
/** Basic auth: a challenge without the right Authorization, the page with it. */
const basicAuth = (body: string) => (req: http.IncomingMessage, res: http.ServerResponse) => {
  if (req.headers.authorization !== BASIC) {
    res.writeHead(401, { 'www-authenticate': 'Basic realm="fixture"', 'content-type': 'text/html' });
    res.end('<p>NO AUTH</p>');
    return;
  }
  html(body)(req, res);
};

/** The page: sub-resources of its own origin and of the third party (img, script, fetch, redirect, frame). */
const pageBody = () => `
  <img src="/img/dot.png"><img src="${third.url}/img/dot.png">
  <script src="${third.url}/lib.js"></script>
  <img src="/bounce-img">
  <iframe src="${third.url}/challenge"></iframe>
  <script>
    Promise.allSettled([fetch('/api'), fetch('${third.url}/api', { mode: 'no-cors' })])
      .then(() => document.body.insertAdjacentHTML('beforeend', '<p id="done">DONE</p>'));
  </script>`;

beforeAll(async () => {
  [target, third] = await Promise.all([startFixtureServer(), startFixtureServer({ host: '127.0.0.2' })]);
  target.route('/page', html(pageBody()));
  target.route('/media', html('<style>body { background: #fff } @media print { body { background: #f00 } }</style>'));
  target.route('/auth-page', basicAuth(pageBody()));
  target.route(
    '/bounce-img',
    redirect(() => `${third.url}/img/dot.png?via=bounce`),
  );
  target.route(
    '/to-third',
    redirect(() => `${third.url}/landed`),
  );
  target.route(
    '/to-challenge',
    redirect(() => `${third.url}/challenge`),
  );
  third.route('/landed', html('<p>LANDED</p>'));
  third.route('/challenge', basicAuth('<p>THIRD PARTY GOT THE CREDENTIALS</p>'));
  svc = await startTestService({
    egress: { allowHosts: ['127.0.0.1', '127.0.0.2', 'localhost'] },
    render: { concurrency: 1, warmPages: 1 }, // one warm page: each render runs on the page the last one used
    jobs: { pollIntervalMs: 100 },
    rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
  });
});
afterAll(async () => {
  await Promise.all([svc?.close(), target?.close(), third?.close()]);
});
beforeEach(() => {
  target.requests.length = 0;
  third.requests.length = 0;
});

async function render(body: Record<string, unknown>): Promise<void> {
  const res = await svc.post('/api/image', { viewport: { width: 400, height: 300 }, ...body });
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
}

const pathsOf = (server: FixtureServer) => server.requests.map((r) => r.path);
/** Requests to `server` that carried the header `name` (any value). */
const carrying = (server: FixtureServer, name: string) =>
  server.requests.filter((r) => r.headers[name] !== undefined).map((r) => r.path);

/** The third party was really asked for what the page loads from it (so "no header" means something). */
function expectThirdPartyLoaded(): void {
  expect(pathsOf(third)).toEqual(
    expect.arrayContaining(['/img/dot.png', '/lib.js', '/api', '/img/dot.png?via=bounce', '/challenge']),
  );
}

describe('headers (headersScope "origin", the default)', () => {
  it('reach the target document and its same-origin sub-resources, and no third-party request', async () => {
    await render({
      url: `${target.url}/page`,
      headers: { 'X-Secret': 'alpha', Authorization: 'Bearer alpha' },
      waitForSelector: '#done',
    });
    // Positive control: the target got them on the document, an image and a fetch.
    for (const path of ['/page', '/img/dot.png', '/api', '/bounce-img']) {
      expect(target.requests.find((r) => r.path === path)?.headers['x-secret'], path).toBe('alpha');
      expect(target.requests.find((r) => r.path === path)?.headers.authorization, path).toBe('Bearer alpha');
    }
    expectThirdPartyLoaded();
    // ...including the image the target's own /bounce-img redirected there.
    expect(carrying(third, 'x-secret')).toEqual([]);
    expect(carrying(third, 'authorization')).toEqual([]);
  });

  it('do not follow a redirect of the document to another origin', async () => {
    await render({ url: `${target.url}/to-third`, headers: { 'X-Secret': 'beta' } });
    expect(target.requests.find((r) => r.path === '/to-third')?.headers['x-secret']).toBe('beta');
    expect(pathsOf(third)).toContain('/landed');
    expect(carrying(third, 'x-secret')).toEqual([]);
  });

  it("with html and baseUrl go to baseUrl's origin only", async () => {
    await render({
      html: pageBody(),
      baseUrl: `${target.url}/`,
      headers: { 'X-Secret': 'gamma' },
      waitForSelector: '#done',
    });
    expect(target.requests.find((r) => r.path === '/img/dot.png')?.headers['x-secret']).toBe('gamma');
    expectThirdPartyLoaded();
    expect(carrying(third, 'x-secret')).toEqual([]);
  });

  it('with html and no baseUrl are refused (400 naming headers) unless headersScope is "all"', async () => {
    const res = await svc.post('/api/image', { html: '<p>x</p>', headers: { 'X-Secret': 'delta' } });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.code).toBe('invalid_request');
    expect(err.details).toEqual([
      { path: 'headers', message: expect.stringMatching(/baseUrl.*headersScope "all"/) as unknown },
    ]);
    await render({
      html: `<img src="${third.url}/img/dot.png">`,
      headers: { 'X-Secret': 'delta' },
      headersScope: 'all',
    });
    expect(third.requests.find((r) => r.path === '/img/dot.png')?.headers['x-secret']).toBe('delta');
  });

  it('go along with cookies and blockResources (both also intercept requests)', async () => {
    await render({
      url: `${target.url}/page`,
      headers: { 'X-Secret': 'kappa' },
      cookies: [{ name: 'session', value: 'kappa', url: target.url }],
      blockResources: ['image'],
      waitForSelector: '#done',
    });
    const doc = target.requests.find((r) => r.path === '/page');
    expect(doc?.headers['x-secret']).toBe('kappa');
    expect(doc?.headers.cookie).toBe('session=kappa');
    expect(target.requests.find((r) => r.path === '/api')?.headers['x-secret']).toBe('kappa');
    expect(pathsOf(target)).not.toContain('/img/dot.png');
    expect(pathsOf(third)).not.toContain('/img/dot.png');
    expect(carrying(third, 'x-secret')).toEqual([]);
  });

  it('one Chromium will not send (Host) fails the render (422) instead of holding it until its timeout', async () => {
    const res = await svc.post('/api/image', {
      url: `${target.url}/page`,
      headers: { Host: 'elsewhere.example' },
      timeout: 60_000,
    });
    expect(res.status).toBe(422);
    const err = await errorOf(res);
    expect(err.code).toBe('render_failed');
    expect(err.message).toContain('/page');
  });

  it('are gone from the next render on the same warm page', async () => {
    await render({ url: `${target.url}/page`, headers: { 'X-Secret': 'epsilon' }, waitForSelector: '#done' });
    target.requests.length = 0;
    await render({ url: `${target.url}/page`, waitForSelector: '#done' });
    expect(pathsOf(target)).toContain('/page');
    expect(carrying(target, 'x-secret')).toEqual([]);
  });

  it("keep the render's media type, and the next render on the page gets its own", async () => {
    // The interception holds a CDP session of its own, which makes Chromium drop the emulated media type.
    const background = async (body: Record<string, unknown>) => {
      const res = await svc.post('/api/image', {
        url: `${target.url}/media`,
        viewport: { width: 50, height: 50 },
        ...body,
      });
      expect(res.status).toBe(200);
      return decodePng(await bytesOf(res)).pixel(10, 10);
    };
    const RED = { r: 255, g: 0, b: 0, a: 255 };
    const WHITE = { r: 255, g: 255, b: 255, a: 255 };
    expect(await background({ media: 'print', headers: { 'X-Secret': 'iota' } })).toEqual(RED);
    expect(await background({ media: 'print' })).toEqual(RED);
    expect(await background({ headers: { 'X-Secret': 'iota' } })).toEqual(WHITE);
    expect(await background({ media: 'print' })).toEqual(RED);
    expect(await background({})).toEqual(WHITE);
  });
});

describe('headersScope "all"', () => {
  it('sends the headers to every host, third party and redirect targets included', async () => {
    await render({
      url: `${target.url}/page`,
      headers: { 'X-Secret': 'zeta' },
      headersScope: 'all',
      waitForSelector: '#done',
    });
    expectThirdPartyLoaded();
    expect(third.requests.find((r) => r.path === '/img/dot.png')?.headers['x-secret']).toBe('zeta');
    expect(third.requests.find((r) => r.path === '/img/dot.png?via=bounce')?.headers['x-secret']).toBe('zeta');
    expect(target.requests.find((r) => r.path === '/page')?.headers['x-secret']).toBe('zeta');
  });
});

describe('httpCredentials', () => {
  it("answer the target's challenge and no third party's (frame, image)", async () => {
    await render({
      url: `${target.url}/auth-page`,
      httpCredentials: { username: BASIC_AUTH_USER, password: BASIC_AUTH_PASSWORD },
      waitForSelector: '#done',
    });
    expect(target.requests.some((r) => r.path === '/auth-page' && r.headers.authorization === BASIC)).toBe(true);
    expect(pathsOf(third)).toContain('/challenge');
    expect(carrying(third, 'authorization')).toEqual([]);
  });

  it('are not given to another origin a redirect leads to, even when it asks (401): the render fails', async () => {
    const res = await svc.post('/api/image', {
      url: `${target.url}/to-challenge`,
      failOnHttpError: false,
      httpCredentials: { username: BASIC_AUTH_USER, password: BASIC_AUTH_PASSWORD },
    });
    // The challenge is refused (Chromium: ERR_INVALID_AUTH_CREDENTIALS), so the document never loads.
    expect(res.status).toBe(422);
    expect((await errorOf(res)).code).toBe('render_failed');
    expect(pathsOf(third)).toEqual(['/challenge']);
    expect(carrying(third, 'authorization')).toEqual([]);
  });

  it('with html and no baseUrl are refused (400 naming httpCredentials)', async () => {
    const res = await svc.post('/api/image', { html: '<p>x</p>', httpCredentials: { username: 'u', password: 'p' } });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details).toEqual([
      { path: 'httpCredentials', message: expect.stringContaining('baseUrl') as unknown },
    ]);
  });
});

describe('cookies', () => {
  it('given for the target reach it and no third-party host', async () => {
    await render({
      url: `${target.url}/page`,
      cookies: [{ name: 'session', value: 'eta', url: target.url }],
      waitForSelector: '#done',
    });
    expect(target.requests.find((r) => r.path === '/page')?.headers.cookie).toBe('session=eta');
    expectThirdPartyLoaded();
    expect(carrying(third, 'cookie')).toEqual([]);
  });
});

describe("a monitor's capture.headers", () => {
  it('reach the monitored origin only', async () => {
    const { key } = svc.createKey('origin-secrets');
    const created = await svc.call('POST', '/api/monitors', key, {
      url: `${target.url}/page`,
      schedule: '0 0 1 1 *',
      paused: true,
      capture: { headers: { 'X-Secret': 'theta' }, waitForSelector: '#done', viewport: { width: 400, height: 300 } },
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect((await svc.call('POST', `/api/monitors/${id}/run`, key)).status).toBe(202);
    const capture = await until(
      "the monitor's capture",
      async () => {
        const list = (await (await svc.call('GET', `/api/monitors/${id}/captures?limit=1`, key)).json()) as {
          items: { status: string; error?: unknown }[];
        };
        return list.items[0];
      },
      60_000,
      100,
    );
    expect(capture).toMatchObject({ status: 'succeeded' });
    expect(target.requests.find((r) => r.path === '/page')?.headers['x-secret']).toBe('theta');
    expectThirdPartyLoaded();
    expect(carrying(third, 'x-secret')).toEqual([]);
  });
});
