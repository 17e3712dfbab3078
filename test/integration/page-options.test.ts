// The page options shared by /api/pdf and /api/image, each proven by the rendered output (PDF text,
// decoded pixels) or by what the fixture server received from the browser.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import {
  BASIC_AUTH_PASSWORD,
  BASIC_AUTH_USER,
  startFixtureServer,
  type FixtureServer,
} from '../helpers/fixture-server.js';
import { parsePdf } from '../helpers/pdf.js';
import { decodePng } from '../helpers/png.js';

let svc: TestService;
let fixture: FixtureServer;
beforeAll(async () => {
  [svc, fixture] = await Promise.all([startTestService(), startFixtureServer()]);
});
afterAll(async () => {
  await Promise.all([svc?.close(), fixture?.close()]);
});

const doc = (body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;

/** A page whose script appends `<p>text</p>` after `ms` milliseconds (and sets window.__ready). */
const writesLater = (text: string, ms: number) =>
  doc(
    `<p>STATIC</p><script>setTimeout(() => { document.body.insertAdjacentHTML('beforeend', '<p>${text}</p>'); window.__ready = true; }, ${ms});</script>`,
  );

async function pdfOf(body: Record<string, unknown>): Promise<{ res: Response; text: string }> {
  const res = await svc.post('/api/pdf', body);
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  return { res, text: (await parsePdf(await bytesOf(res))).text };
}

async function expectError(body: Record<string, unknown>, status: number, code: string): Promise<string> {
  const res = await svc.post('/api/pdf', body);
  expect(res.status).toBe(status);
  const err = await errorOf(res);
  expect(err.code).toBe(code);
  return err.message;
}

/** How many requests the fixture received for exactly `path` since the log was last reset. */
const hits = (path: string) => fixture.requests.filter((r) => r.path === path).length;

describe('sources', () => {
  it('renders a url and reports X-Final-Url', async () => {
    const { res, text } = await pdfOf({ url: `${fixture.url}/invoice` });
    expect(text).toContain('INVOICE-TEST-MARKER');
    expect(res.headers.get('x-final-url')).toBe(`${fixture.url}/invoice`);
  });

  it('failOnHttpError: a 404 is 422 render_failed by default, rendered when false', async () => {
    await expectError({ url: `${fixture.url}/status/404` }, 422, 'render_failed');
    const { text } = await pdfOf({ url: `${fixture.url}/status/404`, failOnHttpError: false });
    expect(text).toContain('STATUS 404');
  });

  it('baseUrl resolves relative links in html and serves it at that address', async () => {
    fixture.requests.length = 0;
    const html = doc(
      '<img src="/img/dot.png" width="10" height="10" style="display:block">',
      '<style>html,body{margin:0}</style>',
    );
    const res = await svc.post('/api/image', { html, baseUrl: `${fixture.url}/` });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-final-url')).toBeNull(); // html sources have no final url
    expect(hits('/img/dot.png')).toBe(1);
    expect(hits('/')).toBe(0); // the document itself came from the request, not from the server
    expect(decodePng(await bytesOf(res)).pixel(5, 5)).toMatchObject({ r: 0, g: 0, b: 255 });
  });

  describe('a page that moves itself to other documents after loading', () => {
    /** /hop?n=N meta-refreshes (or, with via=script, sets location) N times, then lands on /invoice. */
    beforeAll(() => {
      fixture.route('/hop', (req, res) => {
        const q = new URL(req.url ?? '/', 'http://x').searchParams;
        const n = Number(q.get('n'));
        const next = n > 0 ? `/hop?n=${n - 1}&via=${q.get('via')}` : '/invoice';
        const move =
          q.get('via') === 'script'
            ? `<script>addEventListener('load', () => { location = ${JSON.stringify(next)}; });</script>`
            : `<meta http-equiv="refresh" content="0;url=${next}">`;
        res.writeHead(200, { 'content-type': 'text/html' }).end(doc(`<p>HOP-${n}</p>${move}`));
      });
    });

    // Each hop used to be able to fail a step mid-navigation ("Execution context was destroyed",
    // "Printing failed"): 9 of 30 renders of 0–5 hops failed before the renderer waited for the page to settle.
    it.each(['meta', 'script'])('renders the document it lands on after five %s hops, as PDF and PNG', async (via) => {
      for (let round = 0; round < 3; round++) {
        const { res, text } = await pdfOf({ url: `${fixture.url}/hop?n=5&via=${via}` });
        expect(text).toContain('INVOICE-TEST-MARKER');
        expect(text).not.toContain('HOP-');
        expect(res.headers.get('x-final-url')).toBe(`${fixture.url}/invoice`);
        const img = await svc.post('/api/image', { url: `${fixture.url}/hop?n=5&via=${via}` });
        expect(img.status, await img.clone().text()).toBe(200);
        expect(img.headers.get('x-final-url')).toBe(`${fixture.url}/invoice`);
      }
    });

    it('more than ten hops after loading is a navigation loop: 422 render_failed', async () => {
      const message = await expectError({ url: `${fixture.url}/hop?n=12&via=meta` }, 422, 'render_failed');
      expect(message).toMatch(/kept navigating/);
      expect((await pdfOf({ url: `${fixture.url}/invoice` })).text).toContain('INVOICE-TEST-MARKER');
    });
  });

  it('waitUntil domcontentloaded and networkidle are accepted', async () => {
    for (const waitUntil of ['domcontentloaded', 'networkidle']) {
      expect((await pdfOf({ url: `${fixture.url}/invoice`, waitUntil })).text).toContain('INVOICE-TEST-MARKER');
    }
  });
});

describe('requests the page makes', () => {
  it('headers are sent with the document request', async () => {
    fixture.requests.length = 0;
    const { text } = await pdfOf({ url: `${fixture.url}/echo-headers`, headers: { 'X-Custom': 'yes' } });
    expect(fixture.requests.find((r) => r.path === '/echo-headers')?.headers['x-custom']).toBe('yes');
    expect(text).toContain('x-custom: yes');
  });

  it('cookies given with url reach the page', async () => {
    const { text } = await pdfOf({
      url: `${fixture.url}/cookies`,
      cookies: [{ name: 'flavour', value: 'oat', url: fixture.url }],
    });
    expect(text).toContain('flavour=oat');
  });

  it('cookies given with domain and path reach the page', async () => {
    fixture.requests.length = 0;
    const { text } = await pdfOf({
      url: `${fixture.url}/cookies`,
      cookies: [{ name: 'flavour', value: 'rye', domain: '127.0.0.1', path: '/' }],
    });
    expect(text).toContain('flavour=rye');
    expect(fixture.requests.find((r) => r.path === '/cookies')?.headers.cookie).toBe('flavour=rye');
  });

  it('httpCredentials answer basic auth; without them the 401 fails the render', async () => {
    const { text } = await pdfOf({
      url: `${fixture.url}/basic-auth`,
      httpCredentials: { username: BASIC_AUTH_USER, password: BASIC_AUTH_PASSWORD },
    });
    expect(text).toContain('AUTH-OK');
    await expectError({ url: `${fixture.url}/basic-auth` }, 422, 'render_failed');
  });

  it('blockResources ["image"] keeps images from being requested', async () => {
    fixture.requests.length = 0;
    expect((await pdfOf({ url: `${fixture.url}/with-image`, blockResources: ['image'] })).text).toContain('IMAGE-PAGE');
    expect(hits('/with-image')).toBe(1);
    expect(hits('/img/dot.png')).toBe(0);
    await pdfOf({ url: `${fixture.url}/with-image` });
    expect(hits('/img/dot.png')).toBe(1);
  });

  it('scrollPage loads lazy images that are far below the fold', async () => {
    fixture.requests.length = 0;
    const plain = await svc.post('/api/image', { url: `${fixture.url}/lazy` });
    expect(plain.status).toBe(200);
    expect(hits('/img/lazy.png')).toBe(0);
    const scrolled = await svc.post('/api/image', { url: `${fixture.url}/lazy`, scrollPage: true });
    expect(scrolled.status).toBe(200);
    expect(hits('/img/lazy.png')).toBe(1);
    // Scrolled back to the top before the capture: the red image at the bottom-left is not in the shot.
    const png = decodePng(await bytesOf(scrolled));
    const red = Array.from({ length: png.height }, (_, y) => png.pixel(5, y)).filter(
      (p) => p.r > 200 && p.g < 60 && p.b < 60,
    );
    expect(red).toHaveLength(0);
  });
});

describe('readiness', () => {
  it('waitForSelector waits for a late element', async () => {
    const url = `${fixture.url}/late-element?ms=3000`;
    expect((await pdfOf({ url })).text).not.toContain('LATE');
    expect((await pdfOf({ url, waitForSelector: '#late' })).text).toContain('LATE');
  });

  it('waitForSelector that never matches is 422 render_failed within the timeout', async () => {
    const started = Date.now();
    await expectError({ html: doc('<p>NO MATCH</p>'), waitForSelector: '#nope', timeout: 3000 }, 422, 'render_failed');
    expect(Date.now() - started).toBeLessThan(3000 + 4000);
  });

  it('waitForFunction waits until the expression is truthy', async () => {
    const html = writesLater('READY-TEXT', 3000);
    expect((await pdfOf({ html })).text).not.toContain('READY-TEXT');
    expect((await pdfOf({ html, waitForFunction: 'window.__ready === true' })).text).toContain('READY-TEXT');
  });

  it('delay waits after readiness', async () => {
    const html = writesLater('DELAYED-TEXT', 3000);
    const early = await pdfOf({ html });
    expect(early.text).toContain('STATIC');
    expect(early.text).not.toContain('DELAYED-TEXT');
    expect((await pdfOf({ html, delay: 3500 })).text).toContain('DELAYED-TEXT');
  });

  it('timeout: a hung page answers 504 render_timeout on time, and the next render works', async () => {
    const started = Date.now();
    const res = await svc.post('/api/pdf', { html: doc('<p>LOOP</p><script>for(;;){}</script>'), timeout: 2000 });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(504);
    expect((await errorOf(res)).code).toBe('render_timeout');
    expect(elapsed).toBeLessThan(2000 + 4000);
    expect((await pdfOf({ html: doc('<p>AFTER-TIMEOUT</p>') })).text).toContain('AFTER-TIMEOUT');
  });
});

describe('emulation', () => {
  const probe = doc(
    '<p>STATIC-TEXT</p><p id="out"></p><script>document.getElementById("out").textContent = ' +
      '"LANG=" + navigator.language + " TZ=" + Intl.DateTimeFormat().resolvedOptions().timeZone + " UA=" + navigator.userAgent;</script>',
  );

  it('javaScriptEnabled false: scripts do not run', async () => {
    expect((await pdfOf({ html: probe })).text).toContain('LANG=');
    const { text } = await pdfOf({ html: probe, javaScriptEnabled: false });
    expect(text).toContain('STATIC-TEXT');
    expect(text).not.toContain('LANG=');
  });

  it('locale and timezoneId are what the page sees', async () => {
    const { text } = await pdfOf({ html: probe, locale: 'de-DE', timezoneId: 'Asia/Tokyo' });
    expect(text).toContain('LANG=de-DE');
    expect(text).toContain('TZ=Asia/Tokyo');
  });

  it('userAgent is what the page sees and what the server receives', async () => {
    const userAgent = 'PagewatchTest/1.0 (integration)';
    expect((await pdfOf({ html: probe, userAgent })).text).toContain(`UA=${userAgent}`);
    fixture.requests.length = 0;
    await pdfOf({ url: `${fixture.url}/echo-headers`, userAgent });
    expect(fixture.requests.find((r) => r.path === '/echo-headers')?.headers['user-agent']).toBe(userAgent);
  });
});

describe('hostile pages', () => {
  it('dialogs are dismissed and the page renders', async () => {
    const html = doc(
      '<p>BEFORE-DIALOGS</p><script>alert("x"); confirm("y"); prompt("z");</script><p>AFTER-DIALOGS</p>',
    );
    const { text } = await pdfOf({ html, timeout: 10_000 });
    expect(text).toContain('BEFORE-DIALOGS');
    expect(text).toContain('AFTER-DIALOGS');
  });

  it('a window.open popup does not stop the render', async () => {
    fixture.route('/popup-target', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<p>POPUP</p>');
    });
    const html = doc(
      `<p>OPENER-PAGE</p><script>window.open(${JSON.stringify(`${fixture.url}/popup-target`)});</script>`,
    );
    const { text } = await pdfOf({ html, timeout: 10_000 });
    expect(text).toContain('OPENER-PAGE');
    expect(text).not.toContain('POPUP');
    expect((await pdfOf({ html: doc('<p>AFTER-POPUP</p>') })).text).toContain('AFTER-POPUP');
  });
});
