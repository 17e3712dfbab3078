// A secret step value is typed only into a page of the origin it was given for (security review, issue
// #22). The attack: a key holder who never knew the secret PATCHes the monitor's url to an address of
// the same origin that redirects to a host of theirs (the origin check of a PATCH passes, so the stored
// secret is kept), and that host serves a look-alike form that would post the secret home. Here the
// "attacker" is a fixture server on 127.0.0.2 that records every request; the secret is looked for in
// what actually arrived there (paths, headers, and every form body it was posted).
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import type { MonitorView } from '../../src/monitors/view.js';
import { MASK, monitorOf, runAndWait, YEARLY } from '../helpers/monitor-secrets.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';

const SECRET = `pw-${Math.random().toString(36).slice(2)}-origin`;

let target: FixtureServer;
let attacker: FixtureServer;
let svc: TestService;
let key: IssuedKey;
/** Every form body each fixture was posted, to look for the secret in. */
const posted = new Map<FixtureServer, string[]>();

/** A login form at /login that posts to /session, which answers with what it was given (its length only). */
function addLoginForm(fx: FixtureServer): void {
  posted.set(fx, []);
  fx.route('/login', (_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        '<form method="post" action="/session"><input id="password" name="password" type="password">' +
          '<button id="submit">Sign in</button></form>',
      );
  });
  fx.route('/session', (req: http.IncomingMessage, res: http.ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      posted.get(fx)!.push(body);
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<body>signed in (${body.length} bytes)</body>`);
    });
  });
}

/** Where the secret reached `fx`: in a path, a header or a posted body. */
function secretAt(fx: FixtureServer): string[] {
  const seen = [
    ...fx.requests.map((r) => `${r.path} ${JSON.stringify(r.headers)}`),
    ...posted.get(fx)!.map((b) => decodeURIComponent(b)),
  ];
  return seen.filter((text) => text.includes(SECRET));
}

const steps = (extra: object = {}) => [
  { action: 'fill', selector: '#password', value: SECRET, secret: true, ...extra },
  { action: 'click', selector: '#submit' },
];

async function create(url: string, stepList: object[]): Promise<MonitorView> {
  return monitorOf(
    await svc.call('POST', '/api/monitors', key.key, {
      url,
      schedule: YEARLY,
      paused: true,
      capture: { viewport: { width: 320, height: 200 }, steps: stepList },
    }),
    201,
  );
}

beforeAll(async () => {
  [target, attacker] = await Promise.all([startFixtureServer(), startFixtureServer({ host: '127.0.0.2' })]);
  addLoginForm(target);
  addLoginForm(attacker);
  // Same origin as the monitor's url, so a PATCH to it keeps the stored secret; it leads elsewhere.
  target.route('/moved', (_req, res) => void res.writeHead(302, { location: `${attacker.url}/login` }).end());
  // A page of the target's origin whose form is in a frame of the attacker's.
  target.route('/framed', (_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<iframe src="${attacker.url}/login" style="width:300px;height:150px"></iframe>`);
  });
  svc = await startTestService({ egress: { allowHosts: ['127.0.0.1', '127.0.0.2', 'localhost'] } });
  key = svc.createKey('secrets-origin');
}, 60_000);

afterAll(async () => {
  await svc?.close();
  await Promise.all([target?.close(), attacker?.close()]);
});

describe('a secret step types its value only into the origin it was given for', () => {
  it('types it on the monitor url’s origin', async () => {
    const m = await create(`${target.url}/login`, steps());
    const capture = await runAndWait(svc.call, key, m.id);
    expect(capture.status).toBe('succeeded');
    expect(secretAt(target).length).toBeGreaterThan(0); // the form on the right origin got it
  });

  it('a url PATCHed to a same-origin redirect to another host keeps the secret, and the step refuses to type it there', async () => {
    const m = await create(`${target.url}/login`, steps());
    // The PATCH passes the origin check (same origin), so the "••••" is kept...
    const patched = await monitorOf(
      await svc.call('PATCH', `/api/monitors/${m.id}`, key.key, { url: `${target.url}/moved` }),
    );
    expect(patched.capture.steps[0]).toMatchObject({ value: MASK, secret: true });
    // ...but the page is on the attacker's origin when the step runs: the secret is not typed.
    const capture = (await runAndWait(svc.call, key, m.id)) as {
      status: string;
      error?: { code: string; message: string };
    };
    expect(capture.status).toBe('failed');
    expect(capture.error).toEqual({
      code: 'render_failed',
      message: `step 0 (fill "#password"): the page is on another origin (${attacker.url}); the secret was not typed`,
    });
    expect(attacker.requests.some((r) => r.path === '/login')).toBe(true); // the look-alike was loaded...
    expect(secretAt(attacker)).toEqual([]); // ...and got nothing
    expect(posted.get(attacker)).toEqual([]);
  });

  it('refuses a frame of another origin inside the right page', async () => {
    const m = await create(`${target.url}/framed`, [
      {
        action: 'fill',
        selector: 'iframe >> internal:control=enter-frame >> #password',
        value: SECRET,
        secret: true,
      },
    ]);
    const capture = (await runAndWait(svc.call, key, m.id)) as { status: string; error?: { message: string } };
    expect(capture.error?.message).toBe(
      `step 0 (fill "iframe >> internal:control=enter-frame >> #password"): the page is on another origin ` +
        `(${attacker.url}); the secret was not typed`,
    );
    expect(secretAt(attacker)).toEqual([]);
  });

  it('a goto step before it moves the binding to the goto’s origin', async () => {
    const before = posted.get(attacker)!.length;
    const m = await create(`${target.url}/login`, [{ action: 'goto', value: `${attacker.url}/login` }, ...steps()]);
    expect((await runAndWait(svc.call, key, m.id)).status).toBe('succeeded');
    expect(posted.get(attacker)!.length).toBe(before + 1);
  });

  it('an explicit origin allows a sign-in page elsewhere, and changing it needs the value again', async () => {
    const m = await create(`${target.url}/moved`, steps({ origin: attacker.url }));
    expect(m.capture.steps[0]).toMatchObject({ value: MASK, secret: true, origin: attacker.url });
    const before = posted.get(attacker)!.length;
    expect((await runAndWait(svc.call, key, m.id)).status).toBe('succeeded');
    expect(posted.get(attacker)!.length).toBe(before + 1);
    // A "••••" stands for the stored secret only where it was bound: a new origin needs the real value.
    const res = await svc.call('PATCH', `/api/monitors/${m.id}`, key.key, {
      capture: { steps: [{ ...steps()[0], value: MASK, origin: target.url }, steps()[1]] },
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details).toEqual([
      { path: 'capture.steps.0.value', message: expect.stringContaining('send the real value') as unknown },
    ]);
  });
});
