// A saved login (capture.saveLogin) never reaches another render: the monitor's captures start from the
// sealed state in a single-use context of their own, never on the warm page the other renders share. The
// service runs with one warm page, so a plain POST /api/image — and another key's monitor of the same
// origin — always run on the one page any leak would be on; what they see of the site's cookie and
// localStorage is what the fixture site records (the Cookie header of each request, and a beacon the
// /probe page sends with the localStorage token it finds).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureView, MonitorView } from '../../src/monitors/view.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { addLoginSite, loginSteps, type LoginSite } from '../helpers/login-site.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let service: TestService;
let fx: FixtureServer;
let site: LoginSite;
let keyA: string;
let keyB: string;

async function json<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text.slice(0, 800)}`);
  return JSON.parse(text) as T;
}

const createMonitor = async (key: string, url: string, capture: Record<string, unknown>) =>
  (
    await json<MonitorView>(
      await service.call('POST', '/api/monitors', key, {
        url,
        schedule: '0 0 1 1 *',
        paused: true,
        capture: { viewport: { width: 400, height: 300 }, ...capture },
      }),
      201,
    )
  ).id;

async function capture(key: string, monitorId: string): Promise<CaptureView> {
  const list = async () =>
    (await json<{ items: CaptureView[] }>(await service.call('GET', `/api/monitors/${monitorId}/captures`, key), 200))
      .items;
  const before = (await list()).length;
  expect((await service.call('POST', `/api/monitors/${monitorId}/run`, key)).status).toBe(202);
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

/** The Cookie headers of the requests for `path` from request number `since` on. */
const cookiesSent = (path: string, since: number) =>
  fx.requests
    .slice(since)
    .filter((r) => r.path === path)
    .map((r) => r.headers.cookie);

beforeAll(async () => {
  fx = await startFixtureServer({ host: '127.0.0.3' });
  site = addLoginSite(fx);
  service = await startTestService({
    egress: { allowHosts: ['127.0.0.1', '127.0.0.3'] },
    jobs: { pollIntervalMs: 100 },
    render: { concurrency: 1, warmPages: 1 },
  });
  keyA = service.createKey('a').key;
  keyB = service.createKey('b').key;
});

afterAll(async () => {
  await service?.close();
  await fx?.close();
});

describe('saved-login isolation', () => {
  it('the saved state never reaches a plain render or another key’s monitor on the same origin', async () => {
    const image = (url: string) =>
      service.post('/api/image', { url, waitForSelector: '#sent', viewport: { width: 300, height: 200 } });
    // Warm up: the one warm page exists before the monitor captures.
    expect((await image(`${fx.url}/probe`)).status).toBe(200);
    // The page is wiped just after its render is answered: wait for that before counting.
    const warm = await until('the warm page wiped', () => {
      const stats = service.browsers.stats();
      return stats.pagesUnloaded >= 1 && stats.warmPages === 1 ? stats : undefined;
    });

    const monitorId = await createMonitor(keyA, `${fx.url}/account`, {
      steps: loginSteps(site.password),
      saveLogin: true,
      loggedInWhen: { selector: '#who' },
    });
    expect((await capture(keyA, monitorId)).login).toBe('saved');
    const mark = fx.requests.length;
    expect((await capture(keyA, monitorId)).login).toBe('reused');
    // The control: the reused capture's browser did send the saved session cookie (the test can see one;
    // the other request is the service's own look at what the url serves, which never carries it).
    expect(cookiesSent('/account', mark)).toEqual([undefined, expect.stringMatching(/^sid=sid-/)]);
    // Neither capture used (and so wiped) the shared warm page, nor made a new one.
    expect(service.browsers.stats()).toMatchObject({
      pagesCreated: warm.pagesCreated,
      pagesUnloaded: warm.pagesUnloaded,
    });

    // A plain render of the same origin, on the shared warm page: no cookie, no localStorage.
    const plain = fx.requests.length;
    expect((await image(`${fx.url}/probe`)).status).toBe(200);
    expect(site.beacons(plain)).toEqual([{ localStorage: 'none', cookieHeader: undefined }]);
    expect(cookiesSent('/probe', plain)).toEqual([undefined]);
    const account = fx.requests.length;
    expect((await service.post('/api/image', { url: `${fx.url}/account` })).status).toBe(200);
    expect(cookiesSent('/account', account)).toEqual([undefined]); // sent on to /login: not signed in

    // Another key's monitor of the same origin sees nothing of it either.
    const otherId = await createMonitor(keyB, `${fx.url}/probe`, { waitForSelector: '#sent' });
    const other = fx.requests.length;
    const seen = await capture(keyB, otherId);
    expect(seen.status).toBe('succeeded');
    expect(seen.login).toBeUndefined();
    expect(site.beacons(other)).toEqual([{ localStorage: 'none', cookieHeader: undefined }]);
    expect(cookiesSent('/probe', other).every((c) => c === undefined)).toBe(true);
  });
});
