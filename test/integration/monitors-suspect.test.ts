// Failed fetches are not changes (issue 27): a bot check, a 403/429 challenge, an empty page, a collapsed
// text and a login wall are recorded as `suspect` captures (image kept, never a change, never a baseline),
// told as capture.failed; the next good capture is compared with the last good one. End to end: the real
// service (real Chromium, real SQLite) watching fixture pages the test switches between captures;
// webhooks are checked with the reference standardwebhooks library.
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { expectJson, monitorRuns } from '../helpers/monitor-runs.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

interface Capture {
  id: string;
  status: 'succeeded' | 'failed' | 'suspect' | 'filter_missing';
  changed: boolean;
  baselineId: string | null;
  imageUrl?: string;
  error?: { code: string; message: string };
}
interface Monitor {
  id: string;
  lastStatus?: string;
}

let svc: TestService;
let fx: FixtureServer;
let owner: { key: string; webhookSecret: string };
let hooks: WebhookReceiver;

beforeAll(async () => {
  [svc, fx, hooks] = await Promise.all([
    startTestService({
      jobs: { pollIntervalMs: 100 },
      webhooks: { retryScheduleMs: [200, 200] },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 }, // the tests poll often
    }),
    startFixtureServer(),
    startWebhookReceiver(),
  ]);
  owner = svc.createKey('monitors-suspect');
});
afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close(), hooks?.close()]);
});

const json = expectJson;
// Any status: these tests are about the captures that do not succeed.
const { captureAny: capture } = monitorRuns<Capture>(
  () => svc,
  () => owner.key,
  60_000,
);

const createMonitor = async (url: string, options: Record<string, unknown> = {}): Promise<Monitor> =>
  json<Monitor>(
    await svc.call('POST', '/api/monitors', owner.key, {
      name: 'suspect',
      url,
      schedule: '0 0 1 1 *',
      paused: true,
      capture: { viewport: { width: 800, height: 600 } },
      webhookUrl: hooks.url,
      notify: ['change', 'failure'],
      ...options,
    }),
    201,
  );

const monitorNow = async (id: string) => json<Monitor>(await svc.call('GET', `/api/monitors/${id}`, owner.key), 200);

/** A page the test answers as it likes between captures: status and HTML. */
function page(path: string, html: string) {
  let answer = { status: 200, html };
  fx.route(path, (_req, res) => {
    res.writeHead(answer.status, { 'content-type': 'text/html; charset=utf-8' }).end(answer.html);
  });
  return {
    url: `${fx.url}${path}`,
    set: (body: string, status = 200) => {
      answer = { status, html: body };
    },
  };
}

/** The verified events of one monitor of a type, received so far. */
const events = (monitorId: string, type: string) =>
  hooks.hits
    .map((hit) => verifyHit(owner.webhookSecret, hit))
    .filter((e) => e.type === type && e.data.monitorId === monitorId);

const waitForEvent = (monitorId: string, type: string, captureId: string) =>
  until(
    `${type} of ${captureId}`,
    () => events(monitorId, type).find((e) => e.data.captureId === captureId),
    30_000,
    50,
  );

const doc = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body style="font:16px sans-serif;margin:24px">${body}</body></html>`;

const PARAGRAPHS = [
  'The new trail shoes were tested over three hundred kilometres of mud, rock and forest paths.',
  'Their soles kept a firm grip on wet stone, and the laces stayed tied through every river crossing.',
  'After a month the uppers showed some wear at the toe, but no seam had opened and the insoles held their shape.',
  'We would buy them again, though the sizing runs half a size small, so order one size up if in doubt.',
  'Care is simple: rinse the mud off with cold water, let them dry away from the stove, and brush the soles.',
];
const article = (price: string, footer = '') =>
  doc(
    'Trail shoes review',
    `<h1>Trail shoes review</h1><p class="price">Price: ${price}</p>` +
      // About 2,000 characters, as a short review runs.
      [...PARAGRAPHS, ...PARAGRAPHS.toReversed(), ...PARAGRAPHS, ...PARAGRAPHS.toReversed()]
        .map((p) => `<p>${p}</p>`)
        .join('') +
      footer,
  );

/** Cloudflare's interstitial as it is served: a 200 with its challenge form and script options. */
const CLOUDFLARE = doc(
  'Just a moment...',
  `<h1>shop.example</h1><h2 id="challenge-running">Checking if the site connection is secure</h2>
  <div id="challenge-stage"></div><p>shop.example needs to review the security of your connection before proceeding.</p>
  <form id="challenge-form" action="/?__cf_chl_f_tk=Zm9v" method="POST"></form>
  <script>window._cf_chl_opt = { cvId: '3', cType: 'managed' };</script>
  <p>Ray ID: 8a1b2c3d4e5f6a7b · Performance &amp; security by Cloudflare</p>`,
);
const RECAPTCHA = doc(
  'Security check',
  `<form method="post"><p>Please complete the security check to continue.</p>
  <div class="g-recaptcha" data-sitekey="6LcXXXXXAAAAAAAA" style="width:304px;height:78px;border:1px solid #ccc"></div>
  <button>Continue</button></form>`,
);

describe('a bot check between good captures', () => {
  it('good → Cloudflare interstitial (200): suspect, told as capture.failed; → changed page: a change against the good one', async () => {
    const p = page('/cf', article('$120'));
    const monitor = await createMonitor(p.url);
    const good = await capture(monitor);
    expect(good).toMatchObject({ status: 'succeeded', baselineId: null });

    p.set(CLOUDFLARE);
    const suspect = await capture(monitor);
    expect(suspect).toMatchObject({
      status: 'suspect',
      changed: false,
      baselineId: null,
      error: { code: 'bot_check', message: 'the page is a bot check (Cloudflare challenge), not the page itself' },
    });
    expect((await monitorNow(monitor.id)).lastStatus).toBe('suspect');
    // Its image is kept (to see what the site answered).
    const image = await svc.call('GET', `/api/captures/${suspect.id}/image`, owner.key);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    const failed = await waitForEvent(monitor.id, 'capture.failed', suspect.id);
    expect(failed.data).toMatchObject({ status: 'suspect', changed: false, error: suspect.error });

    p.set(article('$99'));
    const changed = await capture(monitor);
    expect(changed).toMatchObject({ status: 'succeeded', changed: true, baselineId: good.id });
    const told = await waitForEvent(monitor.id, 'monitor.changed', changed.id);
    expect(told.data).toMatchObject({ status: 'succeeded', changed: true, baselineId: good.id });
    // The suspect capture was never told as a change, nor as a completed capture.
    expect(events(monitor.id, 'monitor.changed').map((e) => e.data.captureId)).toEqual([changed.id]);
  });

  it('good → reCAPTCHA page → good again: the last is unchanged against the first', async () => {
    const p = page('/recaptcha', article('$120'));
    const monitor = await createMonitor(p.url);
    const good = await capture(monitor);
    p.set(RECAPTCHA);
    expect(await capture(monitor)).toMatchObject({
      status: 'suspect',
      error: { code: 'bot_check', message: 'the page is a bot check (reCAPTCHA), not the page itself' },
    });
    p.set(article('$120'));
    expect(await capture(monitor)).toMatchObject({ status: 'succeeded', changed: false, baselineId: good.id });
    expect((await monitorNow(monitor.id)).lastStatus).toBe('unchanged');
  });

  it('a change whose confirming capture meets a bot check is suspect, not a change', async () => {
    const p = page('/confirm', article('$120'));
    const monitor = await createMonitor(p.url); // diff.confirm is on by default
    const good = await capture(monitor);
    // The next capture sees the changed page, then the bot check when it looks again.
    let served = 0;
    fx.route('/confirm', (_req, res) => {
      const body = served++ === 0 ? article('$99') : CLOUDFLARE;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    });
    const c = await capture(monitor);
    expect(served).toBe(2);
    expect(c).toMatchObject({ status: 'suspect', changed: false, error: { code: 'bot_check' } });
    expect(events(monitor.id, 'monitor.changed')).toEqual([]);
    fx.route('/confirm', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(article('$120'));
    });
    expect(await capture(monitor)).toMatchObject({ status: 'succeeded', changed: false, baselineId: good.id });
  });

  it('an article that mentions captchas in its footer (and has one on its comment form) is the page', async () => {
    const footer =
      '<footer><p>Comments are protected by reCAPTCHA. Are you a robot? Then please do not comment.</p>' +
      '<div class="g-recaptcha" data-sitekey="6LcXXXXXAAAAAAAA" style="width:304px;height:78px"></div></footer>';
    const p = page('/footer', article('$120', footer));
    const monitor = await createMonitor(p.url);
    expect(await capture(monitor)).toMatchObject({ status: 'succeeded', baselineId: null });
  });
});

describe('error statuses', () => {
  it('a 429 whose body is a bot check is suspect; a 503 without one fails as before', async () => {
    const p = page('/limited', article('$120'));
    const monitor = await createMonitor(p.url);
    const good = await capture(monitor);
    p.set(
      doc(
        'Sorry...',
        '<h1>Sorry...</h1><p>We’re sorry... but your computer or network may be sending automated queries.</p>' +
          '<p>Our systems have detected unusual traffic from your computer network. Please try your request again later.</p>',
      ),
      429,
    );
    const limited = await capture(monitor);
    expect(limited).toMatchObject({
      status: 'suspect',
      error: { code: 'bot_check', message: 'the site answered HTTP 429 with a bot check ("unusual traffic")' },
    });
    expect(limited.imageUrl).toBeDefined();
    const told = await waitForEvent(monitor.id, 'capture.failed', limited.id);
    expect(told.data).toMatchObject({ status: 'suspect', error: limited.error });

    p.set(doc('Service Unavailable', '<h1>Service Unavailable</h1><p>The server is down for maintenance.</p>'), 503);
    const down = await capture(monitor);
    expect(down).toMatchObject({
      status: 'failed',
      error: {
        code: 'render_failed',
        message: 'The page answered HTTP 503: check the URL, or set failOnHttpError: false to render it anyway.',
      },
    });
    expect((await waitForEvent(monitor.id, 'capture.failed', down.id)).data).toMatchObject({ status: 'failed' });

    p.set(article('$120'));
    expect(await capture(monitor)).toMatchObject({ status: 'succeeded', changed: false, baselineId: good.id });
  });

  it('the steps are not run on a challenge answered with 429: suspect, not a failed step', async () => {
    const p = page('/limited-steps', '');
    p.set(doc('Sorry...', '<p>Our systems have detected unusual traffic from your computer network.</p>'), 429);
    const monitor = await createMonitor(p.url, {
      capture: { viewport: { width: 800, height: 600 }, steps: [{ action: 'click', selector: '#sign-in' }] },
    });
    expect(await capture(monitor)).toMatchObject({ status: 'suspect', error: { code: 'bot_check' } });
  });

  it('a 403 "Access Denied" page is a bot check', async () => {
    const p = page('/denied', article('$120'));
    const monitor = await createMonitor(p.url);
    await capture(monitor);
    p.set(
      doc(
        'Access Denied',
        '<h1>Access Denied</h1><p>You don\'t have permission to access "http://shop.example/" on this server.</p>' +
          '<p>Reference #18.4f2c1002.1764288000.1a2b3c4d</p>',
      ),
      403,
    );
    expect(await capture(monitor)).toMatchObject({
      status: 'suspect',
      error: { code: 'bot_check', message: 'the site answered HTTP 403 with a bot check ("access denied")' },
    });
  });
});

describe('empty and collapsed pages', () => {
  it('an empty page is suspect (empty_page)', async () => {
    const p = page('/empty', article('$120'));
    const monitor = await createMonitor(p.url);
    const good = await capture(monitor);
    p.set(doc('Shop', '<div id="app"></div><script>/* the app failed to load */</script>'));
    expect(await capture(monitor)).toMatchObject({
      status: 'suspect',
      changed: false,
      error: {
        code: 'empty_page',
        message: 'the page is empty: 0 characters of text, no pictures or fields, nothing drawn',
      },
    });
    p.set(article('$120'));
    expect(await capture(monitor)).toMatchObject({ status: 'succeeded', changed: false, baselineId: good.id });
  });

  it('a page of one picture and no text, of one field, or of boxes drawn in CSS, is not empty', async () => {
    const pixel =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';
    const p = page('/picture', doc('Photo', `<img src="${pixel}" width="200" height="150" alt="">`));
    const monitor = await createMonitor(p.url);
    expect(await capture(monitor)).toMatchObject({ status: 'succeeded', baselineId: null });
    const q = page('/field', doc('Search', '<input id="q" style="width:300px">'));
    expect(await capture(await createMonitor(q.url))).toMatchObject({ status: 'succeeded', baselineId: null });
    // A status board of coloured lights, and a drawn outline: no text, no picture, yet a page.
    const board = '<div style="width:40px;height:40px;background:#0a0;display:inline-block"></div>';
    const r = page('/board', doc('Status', board.repeat(3)));
    expect(await capture(await createMonitor(r.url))).toMatchObject({ status: 'succeeded', baselineId: null });
    const ring = page('/ring', doc('Ring', '<div style="width:80px;height:80px;border:4px solid #333"></div>'));
    expect(await capture(await createMonitor(ring.url))).toMatchObject({ status: 'succeeded', baselineId: null });
  });

  it('an XML feed (no HTML body) is read for its text, not taken for an empty page', async () => {
    fx.route(
      '/feed.xml',
      (_req, res) =>
        void res
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(
            '<?xml version="1.0"?><rss version="2.0"><channel><title>Shop news</title><item><title>Sale</title></item></channel></rss>',
          ),
    );
    expect(await capture(await createMonitor(`${fx.url}/feed.xml`))).toMatchObject({ status: 'succeeded' });
  });

  it('a page whose text collapses to a few words is suspect (text_collapsed)', async () => {
    const p = page('/collapse', article('$120'));
    const monitor = await createMonitor(p.url);
    await capture(monitor);
    p.set(doc('Shop', '<p>Something went wrong.</p>'));
    const c = await capture(monitor);
    expect(c.status).toBe('suspect');
    expect(c.error?.code).toBe('text_collapsed');
    expect(c.error?.message).toMatch(
      /^the text shrank to 21 characters from \d{3,} in the last good capture \(under 10%\)$/,
    );
  });
});

describe('a login wall', () => {
  const USER = 'walker';
  let accepted = 'right-password';

  function readForm(req: IncomingMessage): Promise<URLSearchParams> {
    return new Promise((resolve) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => resolve(new URLSearchParams(body)));
    });
  }

  beforeAll(() => {
    const html = (res: import('node:http').ServerResponse, body: string) =>
      void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(doc('Account', body));
    fx.route('/wall/login', (_req, res) =>
      html(
        res,
        `<h1>Sign in</h1><form method="post" action="/wall/session"><input id="user" name="user">
        <input id="password" name="password" type="password"><button id="submit">Sign in</button></form>`,
      ),
    );
    fx.route('/wall/session', async (req, res) => {
      const form = await readForm(req);
      const ok = form.get('user') === USER && form.get('password') === accepted;
      res
        .writeHead(303, {
          location: ok ? '/wall/account' : '/wall/login?failed',
          ...(ok && { 'set-cookie': 'sid=in; Path=/; HttpOnly' }),
        })
        .end();
    });
    fx.route('/wall/account', (req, res) => {
      if (!req.headers.cookie?.includes('sid=in')) return void res.writeHead(302, { location: '/wall/login' }).end();
      html(res, `<h1>Your orders</h1>${PARAGRAPHS.map((p) => `<p>${p}</p>`).join('')}`);
    });
  });

  it('steps that no longer sign in leave a password field in view: suspect (login_page), told as capture.failed', async () => {
    const monitor = await createMonitor(`${fx.url}/wall/account`, {
      capture: {
        viewport: { width: 800, height: 600 },
        steps: [
          { action: 'fill', selector: '#user', value: USER },
          { action: 'fill', selector: '#password', value: 'right-password', secret: true },
          { action: 'click', selector: '#submit' },
        ],
      },
    });
    expect(await capture(monitor)).toMatchObject({ status: 'succeeded', baselineId: null });
    accepted = 'changed-password';
    const wall = await capture(monitor);
    expect(wall).toMatchObject({
      status: 'suspect',
      error: {
        code: 'login_page',
        message: 'a password field still shows after the steps that sign in: the sign-in did not work',
      },
    });
    expect((await waitForEvent(monitor.id, 'capture.failed', wall.id)).data).toMatchObject({ status: 'suspect' });
  });
});
