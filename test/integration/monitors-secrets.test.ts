// Monitor secrets are write-only and encrypted at rest (issue #10): a monitor's header values, cookie
// values and Basic-auth password are shown as "••••" in every answer, never reach the SQLite files in
// the clear, survive PATCHes that leave them out or send the masks back, and still reach the page a
// capture renders — proved by a fixture page that records what it received.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import type { MonitorView } from '../../src/monitors/view.js';
import {
  addPrivatePage,
  databaseBytes,
  holdsAny,
  lastSeen,
  MASK,
  MASKED_CAPTURE,
  monitorOf,
  newSecrets,
  runAndWait,
  secretCapture,
  YEARLY,
} from '../helpers/monitor-secrets.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';

let fx: FixtureServer;
let svc: TestService;
let key: IssuedKey;
const secrets = newSecrets();
let monitor: MonitorView;

const patch = async (body: unknown, status = 200) =>
  monitorOf(await svc.call('PATCH', `/api/monitors/${monitor.id}`, key.key, body), status);
const get = async () => monitorOf(await svc.call('GET', `/api/monitors/${monitor.id}`, key.key));

beforeAll(async () => {
  fx = await startFixtureServer();
  addPrivatePage(fx);
  svc = await startTestService();
  key = svc.createKey('secrets');
  monitor = await monitorOf(
    await svc.call('POST', '/api/monitors', key.key, {
      url: `${fx.url}/private`,
      schedule: YEARLY,
      capture: secretCapture(secrets),
    }),
    201,
  );
}, 60_000);

afterAll(async () => {
  await svc?.close();
  await fx?.close();
});

describe('monitor secrets', () => {
  it('are "••••" in the create, GET, list and PATCH answers; names, cookie fields and the username stay', async () => {
    expect(monitor.capture).toMatchObject(MASKED_CAPTURE);
    expect((await get()).capture).toMatchObject(MASKED_CAPTURE);
    const list = (await (await svc.call('GET', '/api/monitors', key.key)).json()) as { items: MonitorView[] };
    expect(list.items.find((m) => m.id === monitor.id)!.capture).toMatchObject(MASKED_CAPTURE);
    expect((await patch({ name: 'Private page' })).capture).toMatchObject(MASKED_CAPTURE);
    for (const answer of [JSON.stringify(monitor), JSON.stringify(list), JSON.stringify(await get())]) {
      for (const value of Object.values(secrets)) expect(answer).not.toContain(value);
      expect(answer).not.toContain('enc:v1:'); // not even the sealed form is shown
    }
  });

  it('are not in the SQLite files in the clear, before or after a checkpoint', () => {
    const live = databaseBytes(svc.dataDir);
    expect(live.includes(Buffer.from('X-Api-Token'))).toBe(true); // the monitor is there (the check is not vacuous)
    expect(live.includes(Buffer.from('enc:v1:'))).toBe(true);
    expect(holdsAny(live, secrets)).toEqual([]);
    svc.db.pragma('wal_checkpoint(TRUNCATE)');
    expect(holdsAny(databaseBytes(svc.dataDir), secrets)).toEqual([]);
  });

  it('reach the page a capture renders', async () => {
    const capture = await runAndWait(svc.call, key, monitor.id);
    expect(capture.status).toBe('succeeded');
    expect(lastSeen(fx)).toEqual({ header: secrets.header, cookie: secrets.cookie, password: secrets.password });
  });

  it('are kept by a PATCH that leaves them out, and by one that sends the whole monitor back with its masks', async () => {
    await patch({ capture: { delay: 10 } }); // capture options changed, secrets left out
    await patch({ capture: { delay: null } });
    const leftOut = await runAndWait(svc.call, key, monitor.id);
    expect(leftOut.status).toBe('succeeded');
    expect(lastSeen(fx)).toEqual({ header: secrets.header, cookie: secrets.cookie, password: secrets.password });

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
    } = await get();
    expect(settings.capture).toMatchObject(MASKED_CAPTURE);
    await patch(settings); // everything the client was shown and may send, "••••" included
    const roundTrip = await runAndWait(svc.call, key, monitor.id);
    expect(roundTrip.status).toBe('succeeded');
    expect(lastSeen(fx)).toEqual({ header: secrets.header, cookie: secrets.cookie, password: secrets.password });
    // Sending the masks back changed nothing that is captured: no new baseline.
    expect(roundTrip.baselineId).toBe(leftOut.id);
    // Nor does sending the same real value again (sealed anew, it reads differently at rest).
    await patch({ capture: { headers: { 'X-Api-Token': secrets.header } } });
    expect((await runAndWait(svc.call, key, monitor.id)).baselineId).toBe(roundTrip.id);
  });

  it('a new value replaces, a null removes, a cookie array keeps each masked cookie by name, domain and path', async () => {
    const next = newSecrets();
    const replaced = await patch({
      capture: {
        headers: { 'X-Api-Token': next.header, 'X-Extra': 'extra-value' },
        cookies: [
          { name: 'session', value: MASK, domain: '127.0.0.1', path: '/' },
          { name: 'theme', value: 'dark', domain: '127.0.0.1', path: '/' },
        ],
        httpCredentials: { username: 'watcher', password: next.password },
      },
    });
    expect(replaced.capture.headers).toEqual({ 'X-Api-Token': MASK, 'X-Extra': MASK });
    expect(replaced.capture.cookies!.map((c) => [c.name, c.value])).toEqual([
      ['session', MASK],
      ['theme', MASK],
    ]);
    expect((await runAndWait(svc.call, key, monitor.id)).status).toBe('succeeded');
    expect(lastSeen(fx)).toEqual({ header: next.header, cookie: secrets.cookie, password: next.password });

    const removed = await patch({ capture: { headers: { 'X-Api-Token': null } } });
    expect(removed.capture.headers).toEqual({ 'X-Extra': MASK });
    expect((await runAndWait(svc.call, key, monitor.id)).status).toBe('succeeded');
    expect(lastSeen(fx).header).toBeUndefined();
    const req = fx.requests.filter((r) => r.path === '/private').at(-1)!;
    expect(req.headers['x-extra']).toBe('extra-value');
    expect(req.headers.cookie).toContain('theme=dark');
  });

  it('"••••" with nothing stored to stand for is 400 naming the field (a moved cookie, a new header, a new monitor)', async () => {
    const moved = await svc.call('PATCH', `/api/monitors/${monitor.id}`, key.key, {
      capture: {
        cookies: [{ name: 'session', value: MASK, domain: '127.0.0.1', path: '/app' }],
        headers: { 'X-New': MASK },
      },
    });
    expect(moved.status).toBe(400);
    const err = await errorOf(moved);
    expect(err.code).toBe('invalid_request');
    expect(err.details!.map((d) => d.path).sort()).toEqual(['capture.cookies.0.value', 'capture.headers.X-New']);
    expect(err.details![0]!.message).toMatch(/send the real value/);
    expect((await get()).capture.cookies).toHaveLength(2); // nothing was written

    const created = await svc.call('POST', '/api/monitors', key.key, {
      url: `${fx.url}/private`,
      schedule: YEARLY,
      capture: { httpCredentials: { username: 'watcher', password: MASK } },
    });
    expect(created.status).toBe(400);
    expect((await errorOf(created)).details).toEqual([
      { path: 'capture.httpCredentials.password', message: expect.stringMatching(/none is stored/) as unknown },
    ]);
  });
});
