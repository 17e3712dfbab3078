// Monitor steps before the capture (capture.steps), end to end: the real service (real Chromium, real
// SQLite file, the egress proxy) logs in to a fixture site through its form — which sets a cookie and
// redirects — and captures the page behind it; the secret password is typed but never shown, stored
// in the clear or logged. A failing step fails the capture naming its index; a goto to an address the
// egress policy refuses fails with url_blocked and reaches nothing; fixed waits are bounded by the
// render's timeout; press and select act on the page. The service logs at 'trace' into memory.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-load.js';
import { openSqliteFile, type SqliteFile } from '../helpers/sqlite-file.js';
import { SyncKeys } from '../helpers/sync-keys.js';
import { createLogger } from '../../src/log.js';
import { startService, type Service } from '../../src/app/serve.js';
import type { CaptureView, MonitorView } from '../../src/monitors/view.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { databaseBytes, MASK } from '../helpers/monitor-secrets.js';
import { decodePng, type Rgba } from '../helpers/png.js';
import { errorOf, FIXTURE_EGRESS, RELAXED_ANONYMOUS_LIMITS } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const USER = 'ann';
const PASSWORD = `pw-${Math.random().toString(36).slice(2)}-steps`;
const GREEN: Rgba = { r: 0x22, g: 0xaa, b: 0x22, a: 255 };
const BLUE: Rgba = { r: 0, g: 0, b: 255, a: 255 };
const RED: Rgba = { r: 255, g: 0, b: 0, a: 255 };

let service: Service;
/** The service's SQLite file, read as another process would. */
let file: SqliteFile;
let dataDir: string;
let fx: FixtureServer;
/** On 127.0.0.2, which the egress policy refuses: it counts every request that reaches it. */
let outside: FixtureServer;
let key: string;
const logChunks: string[] = [];

const call = (method: string, path: string, body?: unknown) =>
  fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function json<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text.slice(0, 800)}`);
  return JSON.parse(text) as T;
}

/** A paused monitor (it captures only when the test asks). */
const createMonitor = async (url: string, capture: object) =>
  json<MonitorView>(
    await call('POST', '/api/monitors', {
      url,
      schedule: '0 0 1 1 *',
      paused: true,
      capture: { viewport: { width: 400, height: 300 }, ...capture },
    }),
    201,
  );

/** Run now and wait for the capture it records (captures are listed once done; 60 s is generous on 2 loaded cores). */
async function capture(monitorId: string): Promise<CaptureView & { error?: { code: string; message: string } }> {
  const list = async () =>
    (await json<{ items: CaptureView[] }>(await call('GET', `/api/monitors/${monitorId}/captures`), 200)).items;
  const before = (await list()).length;
  expect((await call('POST', `/api/monitors/${monitorId}/run`)).status).toBe(202);
  return until(
    'the capture',
    async () => {
      const items = await list();
      return items.length > before ? items[0] : undefined;
    },
    60_000,
    100,
  );
}

async function imageOf(captureId: string) {
  const res = await call('GET', `/api/captures/${captureId}/image`);
  expect(res.status).toBe(200);
  return decodePng(Buffer.from(await res.arrayBuffer()));
}

const loginSteps = (password: string) => [
  { action: 'fill', selector: '#user', value: USER },
  { action: 'fill', selector: '#password', value: password, secret: true },
  { action: 'click', selector: '#submit' },
];

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => resolve(new URLSearchParams(body)));
  });
}

/** The fixture site: /login (a form) → POST /session (sets the cookie, 303) → /account, which sends anyone without it to /login. */
function addLoginSite(site: FixtureServer): void {
  const html = (res: ServerResponse, body: string) =>
    void res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        `<!doctype html><html><head><style>html,body{margin:0;height:100%}</style></head><body>${body}</body></html>`,
      );
  site.route('/login', (_req, res) =>
    html(
      res,
      `<form method="post" action="/session" style="padding:20px">
    <input id="user" name="user"> <input id="password" name="password" type="password"> <button id="submit">Sign in</button></form>
    <input id="search" placeholder="Search">`,
    ),
  );
  site.route('/session', async (req, res) => {
    const form = await readForm(req);
    const ok = form.get('user') === USER && form.get('password') === PASSWORD;
    res
      .writeHead(303, {
        location: ok ? '/account' : '/login?failed',
        ...(ok && { 'set-cookie': 'sid=signed-in; Path=/; HttpOnly' }),
      })
      .end();
  });
  site.route('/account', (req, res) => {
    if (!/(?:^|; )sid=signed-in(?:;|$)/.test(req.headers.cookie ?? '')) {
      res.writeHead(302, { location: '/login' }).end();
      return;
    }
    // Typing into its search box paints the page blue: proof that a step typed here, not on the login page.
    html(
      res,
      `<div id="welcome" style="height:100%;background:#22aa22;color:#fff">Welcome ann <input id="search"></div>
      <script>document.getElementById('search').addEventListener('input', () => { document.getElementById('welcome').style.background = '#00f'; });</script>`,
    );
  });
  // The controls page: select#color paints the top band; Enter in an input shows a red box for it.
  site.route('/controls', (_req, res) =>
    html(
      res,
      `
    <div id="band" style="height:100px;background:#fff"></div>
    <select id="color"><option value="white">White</option><option value="blue">Blue</option></select>
    <input id="q"> <input id="r"> <input id="locked" disabled>
    <div id="boxes"></div>
    <script>
      document.getElementById('color').addEventListener('change', (e) => { document.getElementById('band').style.background = e.target.value; });
      for (const id of ['q', 'r']) document.getElementById(id).addEventListener('keydown', (e) => {
        if (e.key !== 'Enter') return;
        const box = document.createElement('div');
        box.id = 'pressed-' + id;
        box.style.cssText = 'height:40px;background:#f00;margin-top:4px';
        document.getElementById('boxes').appendChild(box);
      });
    </script>`,
    ),
  );
  // Sends the browser on to /login by script while it is still loading (as many sign-in gates do).
  site.route('/start', (_req, res) => html(res, `<p>Redirecting…</p><script>location.replace('/login')</script>`));
  // A page that shows what is typed: a contenteditable note, and a field echoed into a paragraph by script.
  site.route('/echo', (_req, res) =>
    html(
      res,
      `
    <div id="note" contenteditable="true" style="min-height:20px"></div>
    <input id="field"><p id="echo"></p>
    <script>document.getElementById('field').addEventListener('input', (e) => { document.getElementById('echo').textContent = 'You typed ' + e.target.value; });</script>`,
    ),
  );
  site.route('/to-outside', (_req, res) => void res.writeHead(302, { location: `${outside.url}/landing` }).end());
}

const sessionPosts = () => fx.requests.filter((r) => r.method === 'POST' && r.path === '/session').length;

beforeAll(async () => {
  [fx, outside] = await Promise.all([startFixtureServer(), startFixtureServer({ host: '127.0.0.2' })]);
  addLoginSite(fx);
  dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-steps-'));
  const config = loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: '127.0.0.1',
      dataDir,
      egress: FIXTURE_EGRESS,
      jobs: { pollIntervalMs: 100 },
      // One warm page: every capture reuses the page the last one used, so anything a login left on it would show.
      render: { warmPages: 1 },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
      limits: RELAXED_ANONYMOUS_LIMITS,
    },
  });
  service = await startService(
    config,
    createLogger('trace', {
      write: (s: string) => {
        logChunks.push(s);
      },
    }),
  );
  file = openSqliteFile(dataDir, service.databaseKind);
  key = new SyncKeys(file.db).create('steps').key;
}, 60_000);

afterAll(async () => {
  await service?.stop();
  file?.close();
  await Promise.all([fx?.close(), outside?.close()]);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('monitor steps', () => {
  let login: MonitorView;

  it('log in through a form that sets a cookie and capture the page behind it, running the steps once', async () => {
    // /account sends a visitor without the cookie to /login: the steps run there, once it has loaded.
    login = await createMonitor(`${fx.url}/account`, {
      steps: [...loginSteps(PASSWORD), { action: 'waitForSelector', selector: '#welcome' }],
    });
    const posts = sessionPosts();
    const shot = await capture(login.id);
    expect(shot.status, JSON.stringify(shot)).toBe('succeeded');
    expect(sessionPosts() - posts).toBe(1); // the form was submitted once: the steps did not run again on the new page
    const png = await imageOf(shot.id);
    expect(png.pixel(200, 150)).toEqual(GREEN); // the account page, not the login form
    expect(png.pixel(5, 295)).toEqual(GREEN);
  });

  it('leave nothing behind: a monitor without steps on the same site is not signed in by the cookie the login set', async () => {
    const anonymous = await createMonitor(`${fx.url}/account`, {});
    const shot = await capture(anonymous.id);
    expect(shot.status, JSON.stringify(shot)).toBe('succeeded');
    expect((await imageOf(shot.id)).pixel(200, 150)).not.toEqual(GREEN); // sent to the login form
    const lastAccount = fx.requests.filter((r) => r.path === '/account').at(-1)!;
    expect(lastAccount.headers.cookie ?? '').not.toContain('sid=');
  });

  it('wait on their own for a page a step navigates to: the next step acts there, and so does the capture', async () => {
    // Both pages have a #search box; only the account page turns blue when something is typed into it.
    // /start moves on to /login by script while loading: the steps wait for that page. The form is sent by Enter.
    const monitor = await createMonitor(`${fx.url}/start`, {
      steps: [
        ...loginSteps(PASSWORD).slice(0, 2),
        { action: 'press', value: 'Enter' },
        { action: 'fill', selector: '#search', value: 'shoes' },
      ],
    });
    const shot = await capture(monitor.id);
    expect(shot.status, JSON.stringify(shot)).toBe('succeeded');
    expect((await imageOf(shot.id)).pixel(200, 150)).toEqual(BLUE);
    // With no step after the submitting click, the capture waits for the page it leads to.
    const bare = await createMonitor(`${fx.url}/login`, { steps: loginSteps(PASSWORD) });
    const bareShot = await capture(bare.id);
    expect(bareShot.status, JSON.stringify(bareShot)).toBe('succeeded');
    expect((await imageOf(bareShot.id)).pixel(200, 150)).toEqual(GREEN);
  });

  it('keep the secret write-only: "••••" in every answer, sealed in the SQLite file, kept by a PATCH that sends the masks back', async () => {
    const shown = await json<MonitorView>(await call('GET', `/api/monitors/${login.id}`), 200);
    expect(shown.capture.steps[1]).toEqual({ action: 'fill', selector: '#password', value: MASK, secret: true });
    expect(shown.capture.steps[0]).toEqual({ action: 'fill', selector: '#user', value: USER }); // not secret: shown
    const answers = [
      JSON.stringify(login),
      JSON.stringify(shown),
      await (await call('GET', '/api/monitors')).text(),
      await (await call('GET', `/api/monitors/${login.id}/captures`)).text(),
    ];
    for (const answer of answers) {
      expect(answer).not.toContain(PASSWORD);
      expect(answer).not.toContain('enc:v1:');
    }

    const db = databaseBytes(dataDir);
    expect(db.includes(Buffer.from('#password'))).toBe(true); // the steps are there (the check is not vacuous)
    expect(db.includes(Buffer.from(PASSWORD))).toBe(false);
    file.db.pragma('wal_checkpoint(TRUNCATE)');
    expect(databaseBytes(dataDir).includes(Buffer.from(PASSWORD))).toBe(false);
    const row = file.db.prepare('SELECT capture FROM monitors WHERE id = ?').get(login.id) as { capture: string };
    const stored = (JSON.parse(row.capture) as { steps: { value: string }[] }).steps;
    expect(stored[0]!.value).toBe(USER);
    expect(stored[1]!.value).toMatch(/^enc:v1:/);

    // The whole monitor as shown, masks included, sent back: the password still logs in, no new baseline.
    // Everything the server sets is left out; the rest is what a client may send back.
    const {
      id: _id,
      createdAt: _createdAt,
      updatedAt: _updatedAt,
      nextRunAt: _nextRunAt,
      lastRunAt: _lastRunAt,
      lastStatus: _lastStatus,
      lastChangeAt: _lastChangeAt,
      skippedRuns: _skippedRuns,
      ...settings
    } = shown as MonitorView & Record<string, unknown>;
    await json(await call('PATCH', `/api/monitors/${login.id}`, settings), 200);
    const again = await capture(login.id);
    expect(again.status, JSON.stringify(again)).toBe('succeeded');
    expect(again.baselineId).not.toBeNull();
    expect((await imageOf(again.id)).pixel(200, 150)).toEqual(GREEN);
  });

  it('hide a secret the page shows back: not in the stored text, the conditions, the captures or their webhooks', async () => {
    const monitor = await json<MonitorView>(
      await call('POST', '/api/monitors', {
        url: `${fx.url}/echo`,
        schedule: '0 0 1 1 *',
        paused: true,
        capture: {
          viewport: { width: 400, height: 300 },
          steps: [
            { action: 'fill', selector: '#note', value: PASSWORD, secret: true },
            { action: 'fill', selector: '#field', value: PASSWORD, secret: true },
          ],
        },
        notifyWhen: [
          { selector: '#echo', textContains: 'typed' },
          { selector: '#note', textContains: 'x' },
        ],
      }),
      201,
    );
    const shot = await capture(monitor.id);
    expect(shot.status, JSON.stringify(shot)).toBe('succeeded');
    // The page did show it (the rules read those elements), and what was read is masked.
    expect(shot.conditions?.map((c) => c.value)).toEqual([`You typed ${MASK}`, MASK]);
    const text = readFileSync(join(dataDir, 'captures', monitor.id, `${shot.id}-text`), 'utf8');
    expect(text).toContain(`You typed ${MASK}`);
    expect(text).not.toContain(PASSWORD);
    expect(await (await call('GET', `/api/monitors/${monitor.id}/captures`)).text()).not.toContain(PASSWORD);
    file.db.pragma('wal_checkpoint(TRUNCATE)');
    expect(databaseBytes(dataDir).includes(Buffer.from(PASSWORD))).toBe(false);
  });

  it('refuse a "••••" that no longer stands for the stored secret (the secret step moved to another selector)', async () => {
    const shown = await json<MonitorView>(await call('GET', `/api/monitors/${login.id}`), 200);
    const steps = shown.capture.steps.with(1, { action: 'fill', selector: '#user', value: MASK, secret: true });
    const refused = await call('PATCH', `/api/monitors/${login.id}`, { capture: { steps } });
    expect(refused.status).toBe(400);
    const error = await errorOf(refused);
    expect(error.code).toBe('invalid_request');
    expect(error.details).toEqual([
      { path: 'capture.steps.1.value', message: expect.stringContaining('send the real value') as unknown },
    ]);
  });

  it('a failing step fails the capture with render_failed naming its index and what happened, never the secret', async () => {
    const monitor = await createMonitor(`${fx.url}/login`, {
      timeout: 8000,
      steps: [...loginSteps(PASSWORD).slice(0, 2), { action: 'click', selector: '#login' }],
    });
    const shot = await capture(monitor.id);
    expect(shot.status).toBe('failed');
    expect(shot.error).toEqual({
      code: 'render_failed',
      message: 'step 2 (click "#login"): no element matches "#login" within the time left',
    });
  });

  it('a step on an element that is there but cannot take the action says why (and never shows a secret)', async () => {
    const monitor = await createMonitor(`${fx.url}/controls`, {
      timeout: 8000,
      steps: [{ action: 'select', selector: '#color', value: 'purple' }],
    });
    const shot = await capture(monitor.id);
    expect(shot.status).toBe('failed');
    expect(shot.error).toEqual({
      code: 'render_failed',
      message: 'step 0 (select "#color"): "#color" could not be used within the time left (did not find some options)',
    });
    // Playwright's own log of a fill names the value it types: a secret one is not in the error.
    const locked = await createMonitor(`${fx.url}/controls`, {
      timeout: 8000,
      steps: [
        { action: 'click', selector: '#q' },
        { action: 'fill', selector: '#locked', value: PASSWORD, secret: true },
      ],
    });
    const lockedShot = await capture(locked.id);
    expect(lockedShot.error).toEqual({
      code: 'render_failed',
      message: 'step 1 (fill "#locked"): "#locked" could not be used within the time left (element is not enabled)',
    });
  });

  it('press (on an element and on the focused one) and select act on the page', async () => {
    const monitor = await createMonitor(`${fx.url}/controls`, {
      steps: [
        { action: 'select', selector: '#color', value: 'blue' },
        { action: 'press', selector: '#q', value: 'Enter' },
        { action: 'click', selector: '#r' },
        { action: 'press', value: 'Enter' },
        { action: 'waitForSelector', selector: '#pressed-r' },
      ],
    });
    const shot = await capture(monitor.id);
    expect(shot.status, JSON.stringify(shot)).toBe('succeeded');
    const png = await imageOf(shot.id);
    expect(png.pixel(200, 50)).toEqual(BLUE); // the band the select painted
    // Two red boxes (one per Enter) under the controls: count red rows down the left edge.
    let redRows = 0;
    for (let y = 100; y < 300; y++) if (JSON.stringify(png.pixel(2, y)) === JSON.stringify(RED)) redRows++;
    expect(redRows).toBe(80);
  });

  it('a goto to an address the egress policy refuses fails with url_blocked, and nothing reaches it', async () => {
    const monitor = await createMonitor(`${fx.url}/login`, {
      timeout: 5000,
      steps: [{ action: 'goto', value: `${outside.url}/secret-admin` }],
    });
    const shot = await capture(monitor.id);
    expect(shot.status).toBe('failed');
    expect(shot.error).toEqual({
      code: 'url_blocked',
      message: expect.stringMatching(/^The URL is not allowed by the egress policy: [^.]*\.$/) as unknown,
    });
    // A goto to an allowed page that redirects there: refused by the egress proxy, just the same.
    const redirected = await createMonitor(`${fx.url}/login`, {
      timeout: 5000,
      steps: [{ action: 'goto', value: `${fx.url}/to-outside` }],
    });
    const hop = await capture(redirected.id);
    expect(hop.status).toBe('failed');
    expect(hop.error?.code).toBe('url_blocked');
    expect(fx.requests.some((r) => r.path === '/to-outside')).toBe(true); // the allowed hop was made...
    expect(outside.requests).toEqual([]); // ...and nothing reached the refused address
  });

  it('a goto to an allowed page goes there', async () => {
    const monitor = await createMonitor(`${fx.url}/login`, {
      steps: [...loginSteps(PASSWORD), { action: 'goto', value: `${fx.url}/account` }],
    });
    const shot = await capture(monitor.id);
    expect(shot.status, JSON.stringify(shot)).toBe('succeeded');
    expect((await imageOf(shot.id)).pixel(200, 150)).toEqual(GREEN);
  });

  it('a fixed wait longer than what is left of the timeout fails its step at once (not a timeout of the render)', async () => {
    // The first step takes ~1 s (the element comes after 1000 ms), so 2500 ms no longer fit in the 3000 ms timeout.
    const monitor = await createMonitor(`${fx.url}/late-element?ms=1000`, {
      timeout: 3000,
      steps: [
        { action: 'waitForSelector', selector: '#late' },
        { action: 'waitForTimeout', value: '2500' },
      ],
    });
    const shot = await capture(monitor.id);
    expect(shot.status).toBe('failed');
    expect(shot.error?.code).toBe('render_failed');
    expect(shot.error?.message).toMatch(
      /^step 1 \(waitForTimeout 2500 ms\): waits 2500 ms, more than the \d+ ms left of the render's timeout of 3000 ms$/,
    );
  });

  it('takes 20 steps and refuses 21; a step without what its action needs is 400 naming the field', async () => {
    const click = { action: 'click', selector: '#submit' };
    const twenty = await createMonitor(`${fx.url}/login`, { steps: Array(20).fill(click) });
    expect(twenty.capture.steps).toHaveLength(20);
    const over = await call('POST', '/api/monitors', {
      url: `${fx.url}/login`,
      schedule: '0 0 1 1 *',
      capture: { steps: Array(21).fill(click) },
    });
    expect(over.status).toBe(400);
    expect((await errorOf(over)).details).toEqual([
      { path: 'capture.steps', message: expect.stringContaining('20') as unknown },
    ]);
    const noValue = await call('POST', '/api/monitors', {
      url: `${fx.url}/login`,
      schedule: '0 0 1 1 *',
      capture: { steps: [click, { action: 'fill', selector: '#user' }] },
    });
    expect(noValue.status).toBe(400);
    const error = await errorOf(noValue);
    expect(error.code).toBe('invalid_request');
    expect(error.details).toEqual([{ path: 'capture.steps.1.value', message: 'fill needs a value' }]);
  });

  it('never log the secret (after every capture and failure above)', () => {
    const log = logChunks.join('');
    expect(log).toContain('job attempt failed'); // the failures above were logged (the check is not vacuous)
    expect(log.includes(PASSWORD)).toBe(false);
  });
});
