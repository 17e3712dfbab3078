// The monitors HTTP API (issue #5) over the real stack — real HTTP, real Chromium, real SQLite:
// create (defaults, Location, nextRunAt), list and paging, validation, egress, monitors.maxPerKey,
// ownership, PATCH as JSON Merge Patch, run now and the captures it makes (images decoded), a page
// that fails and then recovers, DELETE (rows, files, schedule, a capture in flight), and that capture
// jobs stay out of /api/jobs.
//
// Monitors here are paused or on a yearly schedule (`0 0 1 1 *`): every capture is driven by
// POST /api/monitors/{id}/run. A "gate" on a fixture page holds its response until the test opens it,
// so "a capture is still running" is a fact the test controls, not a race it hopes to win.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import type { CaptureView, MonitorView } from '../../src/monitors/view.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decodePng, isPng } from '../helpers/png.js';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { clockPast, until } from '../helpers/until.js';

type MonitorJson = MonitorView & { webhookUrl?: string };
type CaptureJson = CaptureView;
interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

const YEARLY = '0 0 1 1 *';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
/** Background of the stable fixture page: every pixel of its capture but the heading is this colour. */
const STABLE_BG = { r: 0x22, g: 0x66, b: 0xbb };

const CAPTURE_DEFAULTS = {
  colorScheme: 'light',
  reducedMotion: 'reduce',
  javaScriptEnabled: true,
  headersScope: 'origin',
  waitUntil: 'load',
  delay: 0,
  timeout: 30_000,
  scrollPage: false,
  fullPage: false,
  omitBackground: false,
  animations: 'disabled',
  caret: 'hide',
  steps: [],
  saveLogin: false,
};
const DIFF_DEFAULTS = {
  mode: 'visual',
  ignoreText: [],
  threshold: 0.1,
  includeAA: false,
  minChangeRatio: 0,
  ignoreRegions: [],
  ignoreSelectors: [],
  confirm: true,
  filters: [],
  filterMissingAfter: 3,
};

// --- expected next runs (computed here, independently of node-cron) -----------------------------------

/** Next 1 January 00:00 in a zone `offsetHours` ahead of UTC (no DST: UTC, Asia/Tokyo). */
function nextNewYear(offsetHours: number, now = Date.now()): number {
  const localYear = new Date(now + offsetHours * 3_600_000).getUTCFullYear();
  const thisYear = Date.UTC(localYear, 0, 1) - offsetHours * 3_600_000;
  return thisYear > now ? thisYear : Date.UTC(localYear + 1, 0, 1) - offsetHours * 3_600_000;
}

/** Next hh:mm UTC, daily. */
function nextDailyUtc(hour: number, minute: number, now = Date.now()): number {
  const d = new Date(now);
  const today = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), hour, minute);
  return today > now ? today : today + 86_400_000;
}

// --- fixture ----------------------------------------------------------------------------------------

let fx: FixtureServer;
/** While set, /stable holds its response until the promise resolves; `arrived` counts held requests. */
let stableGate: { open: Promise<void>; release: () => void; arrived: number } | undefined;
/** Status /flaky answers with. */
let flakyStatus = 404;
/** Background colour of /toggle. */
let toggleColour = '#ffffff';

function closeGate(): NonNullable<typeof stableGate> {
  let release!: () => void;
  const open = new Promise<void>((r) => {
    release = r;
  });
  stableGate = { open, release, arrived: 0 };
  return stableGate;
}

const html = (bg: string, text: string) => `<!doctype html><html><head><meta charset="utf-8"><style>
  html, body { margin: 0; height: 100%; background: ${bg}; font: 24px sans-serif; color: #fff; }
</style></head><body><h1 style="margin:0;padding:8px">${text}</h1></body></html>`;

beforeAll(async () => {
  fx = await startFixtureServer();
  fx.route('/stable', async (_req, res) => {
    const gate = stableGate;
    if (gate) {
      gate.arrived++;
      await gate.open;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html('#2266bb', 'STABLE'));
  });
  fx.route('/flaky', (_req, res) => {
    res.writeHead(flakyStatus, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html('#884400', `FLAKY ${flakyStatus}`));
  });
  fx.route('/toggle', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html(toggleColour, 'TOGGLE'));
  });
});
afterAll(async () => {
  stableGate?.release();
  await fx?.close();
});

// --- helpers bound to one service -------------------------------------------------------------------

function api(svc: TestService) {
  const create = (key: IssuedKey, body: unknown) => svc.call('POST', '/api/monitors', key.key, body);

  async function createOk(key: IssuedKey, body: Record<string, unknown>): Promise<MonitorJson> {
    const res = await create(key, body);
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as MonitorJson;
  }

  async function getMonitor(key: IssuedKey, id: string): Promise<MonitorJson> {
    const res = await svc.call('GET', `/api/monitors/${id}`, key.key);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as MonitorJson;
  }

  async function listMonitors(key: IssuedKey, query = ''): Promise<Page<MonitorJson>> {
    const res = await svc.call('GET', `/api/monitors${query}`, key.key);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as Page<MonitorJson>;
  }

  async function listCaptures(key: IssuedKey, id: string, query = '?limit=100'): Promise<Page<CaptureJson>> {
    const res = await svc.call('GET', `/api/monitors/${id}/captures${query}`, key.key);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as Page<CaptureJson>;
  }

  /** Oldest first. */
  const capturesOf = async (key: IssuedKey, id: string) => (await listCaptures(key, id)).items.slice().reverse();

  const run = (key: IssuedKey, id: string) => svc.call('POST', `/api/monitors/${id}/run`, key.key);

  const activeCaptureJobs = (monitorId: string) =>
    (
      svc.db
        .prepare(
          `SELECT COUNT(*) AS n FROM jobs WHERE monitor_id = ? AND kind = 'capture' AND status IN ('queued', 'running')`,
        )
        .get(monitorId) as { n: number }
    ).n;

  /** Waits until the monitor has no capture queued or running (its outcome is then recorded). */
  const settle = (monitorId: string) =>
    until(`the capture jobs of ${monitorId} to finish`, () => activeCaptureJobs(monitorId) === 0, 60_000, 100);

  /** Run now (expecting a fresh capture), wait for it, and return it. */
  async function runOnce(key: IssuedKey, id: string): Promise<CaptureJson> {
    await settle(id);
    const before = (await listCaptures(key, id)).items.length;
    const res = await run(key, id);
    expect(res.status, await res.clone().text()).toBe(202);
    expect(((await res.json()) as { alreadyPending: boolean }).alreadyPending).toBe(false);
    await settle(id);
    const items = (await listCaptures(key, id)).items;
    expect(items).toHaveLength(before + 1);
    return items[0]!;
  }

  /** The raw request helper for bodies that are not JSON.stringify'd objects. */
  const raw = (method: string, path: string, key: IssuedKey, body: string, contentType: string) =>
    fetch(`${svc.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key.key}`, 'content-type': contentType },
      body,
    });

  return {
    create,
    createOk,
    getMonitor,
    listMonitors,
    listCaptures,
    capturesOf,
    run,
    activeCaptureJobs,
    settle,
    runOnce,
    raw,
  };
}

async function expectError(res: Response, status: number, code: string) {
  const text = await res.clone().text();
  expect(res.status, text).toBe(status);
  const err = await errorOf(res);
  expect(err.code, text).toBe(code);
  return err;
}

// ---------------------------------------------------------------------------------------------------

describe('monitors API', () => {
  let svc: TestService;
  let h: ReturnType<typeof api>;
  const stableUrl = () => `${fx.url}/stable`;

  beforeAll(async () => {
    svc = await startTestService({ jobs: { pollIntervalMs: 100 } });
    h = api(svc);
  });
  afterAll(async () => {
    await svc?.close();
  });

  describe('create, get and list', () => {
    let key: IssuedKey;
    beforeAll(() => {
      key = svc.createKey('create');
    });

    it('answers 201 with Location and the monitor with every default filled, named by its url', async () => {
      const before = Date.now();
      const res = await h.create(key, { url: stableUrl(), schedule: YEARLY });
      expect(res.status, await res.clone().text()).toBe(201);
      const m = (await res.json()) as MonitorJson;
      expect(m.id).toMatch(/^mon_[0-9a-f]+$/);
      expect(res.headers.get('location')).toBe(`/api/monitors/${m.id}`);
      expect(m).toStrictEqual({
        id: m.id,
        name: stableUrl(),
        url: stableUrl(),
        schedule: YEARLY,
        timezone: 'UTC',
        paused: false,
        capture: CAPTURE_DEFAULTS,
        diff: DIFF_DEFAULTS,
        notifyWhen: [],
        notify: ['change', 'failure'],
        tags: [],
        retention: { keep: 100 },
        createdAt: expect.stringMatching(ISO) as unknown,
        updatedAt: m.createdAt,
        nextRunAt: expect.stringMatching(ISO) as unknown,
        skippedRuns: 0,
      });
      expect(Date.parse(m.createdAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(m.nextRunAt!)).toBe(nextNewYear(0));

      // The Location serves the same monitor.
      const viaLocation = await svc.call('GET', res.headers.get('location')!, key.key);
      expect(viaLocation.status).toBe(200);
      expect(await viaLocation.json()).toStrictEqual(m);
    });

    it('a paused monitor has no nextRunAt (and GET agrees); given fields are kept', async () => {
      const body = {
        name: 'Docs home',
        url: stableUrl(),
        schedule: '*/15 * * * *',
        timezone: 'Europe/Paris',
        paused: true,
        capture: { viewport: { width: 640, height: 480 }, fullPage: true },
        diff: { threshold: 0.3, ignoreSelectors: ['.ad'] },
        notify: ['capture'],
        webhookUrl: `${fx.url}/hook`,
        retention: { keep: 7 },
      };
      const m = await h.createOk(key, body);
      expect(m).not.toHaveProperty('nextRunAt');
      expect(m).toMatchObject({
        name: 'Docs home',
        paused: true,
        timezone: 'Europe/Paris',
        schedule: '*/15 * * * *',
        notify: ['capture'],
        webhookUrl: `${fx.url}/hook`,
        retention: { keep: 7 },
        capture: { ...CAPTURE_DEFAULTS, viewport: { width: 640, height: 480 }, fullPage: true },
        diff: { ...DIFF_DEFAULTS, threshold: 0.3, ignoreSelectors: ['.ad'] },
      });
      expect(m).not.toHaveProperty('lastRunAt');
      expect(m).not.toHaveProperty('lastStatus');
      expect(await h.getMonitor(key, m.id)).toStrictEqual(m);
    });

    it('GET of an unknown id is 404', async () => {
      await expectError(await svc.call('GET', '/api/monitors/mon_0000000000', key.key), 404, 'not_found');
    });

    it('lists newest first and pages with limit/cursor; a bad cursor is 400', async () => {
      const pager = svc.createKey('pager');
      const made: MonitorJson[] = [];
      for (const n of [1, 2, 3]) {
        made.push(
          await h.createOk(pager, { name: `m${n}`, url: `${stableUrl()}?n=${n}`, schedule: YEARLY, paused: true }),
        );
        await clockPast(made.at(-1)!.createdAt); // distinct createdAt, so "newest first" has one right answer
      }
      const [m1, m2, m3] = made as [MonitorJson, MonitorJson, MonitorJson];

      const all = await h.listMonitors(pager);
      expect(all.items.map((m) => m.id)).toEqual([m3.id, m2.id, m1.id]);
      expect(all.nextCursor).toBeNull();
      expect(all.items[0]).toStrictEqual(await h.getMonitor(pager, m3.id)); // list items are the full view

      const first = await h.listMonitors(pager, '?limit=2');
      expect(first.items.map((m) => m.id)).toEqual([m3.id, m2.id]);
      expect(typeof first.nextCursor).toBe('string');
      const second = await h.listMonitors(pager, `?limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`);
      expect(second.items.map((m) => m.id)).toEqual([m1.id]);
      expect(second.nextCursor).toBeNull();

      const bad = await expectError(
        await svc.call('GET', '/api/monitors?cursor=not-a-cursor', pager.key),
        400,
        'invalid_request',
      );
      expect(bad.details?.map((d) => d.path)).toContain('cursor');
      await expectError(await svc.call('GET', '/api/monitors?limit=0', pager.key), 400, 'invalid_request');

      // Another key's list does not show them.
      expect((await h.listMonitors(svc.createKey('empty'))).items).toEqual([]);
    });
  });

  describe('validation', () => {
    let key: IssuedKey;
    beforeAll(() => {
      key = svc.createKey('validation');
    });
    const valid = () => ({ url: stableUrl(), schedule: YEARLY, paused: true });
    const without = <T extends Record<string, unknown>>(o: T, k: keyof T) => {
      const c = { ...o };
      delete c[k];
      return c;
    };

    /** No case may leave a monitor behind. */
    async function expectNoMonitors() {
      expect((await h.listMonitors(key)).items).toEqual([]);
    }

    it.each([
      { what: 'missing url', body: () => without(valid(), 'url'), path: 'url' },
      { what: 'ftp url', body: () => ({ ...valid(), url: 'ftp://example.com/file' }), path: 'url' },
      {
        what: 'cron minute 61',
        body: () => ({ ...valid(), schedule: '61 * * * *' }),
        path: 'schedule',
        message: /minute/,
      },
      {
        what: 'cron with 4 fields',
        body: () => ({ ...valid(), schedule: '* * * *' }),
        path: 'schedule',
        message: /fields/,
      },
      {
        what: 'cron with 7 fields',
        body: () => ({ ...valid(), schedule: '0 0 0 1 1 * *' }),
        path: 'schedule',
        message: /fields/,
      },
      { what: 'missing schedule', body: () => without(valid(), 'schedule'), path: 'schedule' },
      { what: 'timezone Mars/Base', body: () => ({ ...valid(), timezone: 'Mars/Base' }), path: 'timezone' },
      {
        what: 'unknown top-level field',
        body: () => ({ ...valid(), colour: 'red' }),
        path: 'colour',
        message: /^colour is not a field this request takes: check its spelling, or remove it\.$/,
      },
      {
        what: 'capture.format jpeg (captures are PNG)',
        body: () => ({ ...valid(), capture: { format: 'jpeg' } }),
        path: 'capture.format',
      },
      {
        what: 'capture.fullPage with capture.clip',
        body: () => ({ ...valid(), capture: { fullPage: true, clip: { x: 0, y: 0, width: 100, height: 100 } } }),
        path: 'capture.clip',
      },
      { what: 'diff.threshold 1.5', body: () => ({ ...valid(), diff: { threshold: 1.5 } }), path: 'diff.threshold' },
      {
        what: 'diff.minChangeRatio -0.1',
        body: () => ({ ...valid(), diff: { minChangeRatio: -0.1 } }),
        path: 'diff.minChangeRatio',
      },
      {
        what: 'ignoreRegions width 0',
        body: () => ({ ...valid(), diff: { ignoreRegions: [{ x: 0, y: 0, width: 0, height: 10 }] } }),
        path: 'diff.ignoreRegions.0.width',
      },
      {
        what: 'notify ["change","change"]',
        body: () => ({ ...valid(), notify: ['change', 'change'] }),
        path: 'notify',
      },
      { what: 'notify ["sms"]', body: () => ({ ...valid(), notify: ['sms'] }), path: 'notify.0' },
      { what: 'retention.keep 0', body: () => ({ ...valid(), retention: { keep: 0 } }), path: 'retention.keep' },
      { what: 'retention.keep 1001', body: () => ({ ...valid(), retention: { keep: 1001 } }), path: 'retention.keep' },
      { what: 'a JSON array body', body: () => [valid()], path: '' },
    ])('$what → 400 with a detail at "$path"', async ({ body, path, message }) => {
      const err = await expectError(await h.create(key, body()), 400, 'invalid_request');
      const detail = err.details?.find((d) => d.path === path);
      expect(detail, JSON.stringify(err.details)).toBeDefined();
      if (message) expect(detail!.message).toMatch(message);
      await expectNoMonitors();
    });

    it.each([1, 1000])('retention.keep %i (an edge) is accepted', async (keep) => {
      const edges = svc.createKey(`edges-${keep}`);
      const m = await h.createOk(edges, { ...valid(), retention: { keep } });
      expect(m.retention).toStrictEqual({ keep });
      expect((await h.getMonitor(edges, m.id)).retention).toStrictEqual({ keep });
    });

    it('a text/plain body is 415; malformed JSON is 400', async () => {
      const unsupported = await h.raw('POST', '/api/monitors', key, JSON.stringify(valid()), 'text/plain');
      expect(unsupported.status).toBe(415);
      expect((await errorOf(unsupported)).message).toBe(
        'The Content-Type header must be application/json, not text/plain; set it to match the body.',
      );
      await expectError(
        await h.raw('POST', '/api/monitors', key, '{"url": "http://x/", ', 'application/json'),
        400,
        'invalid_request',
      );
      await expectNoMonitors();
    });

    it('a webhookUrl to 169.254.169.254 is 400 naming webhookUrl', async () => {
      const err = await expectError(
        await h.create(key, { ...valid(), webhookUrl: 'http://169.254.169.254/latest/meta-data/' }),
        400,
        'invalid_request',
      );
      expect(err.details?.map((d) => d.path)).toEqual(['webhookUrl']);
      await expectNoMonitors();
    });

    it('a url on a private address is 403 url_blocked (this service allows only 127.0.0.1/localhost)', async () => {
      await expectError(await h.create(key, { ...valid(), url: 'http://10.0.0.1/' }), 403, 'url_blocked');
      await expectError(await h.create(key, { ...valid(), url: 'http://169.254.169.254/' }), 403, 'url_blocked');
      await expectNoMonitors();
    });
  });

  describe('auth and ownership', () => {
    let owner: IssuedKey;
    let stranger: IssuedKey;
    let monitor: MonitorJson;
    let capture: CaptureJson; // has a diff image, so /diff is 200 for the owner

    beforeAll(async () => {
      owner = svc.createKey('owner');
      stranger = svc.createKey('stranger');
      toggleColour = '#ffffff';
      monitor = await h.createOk(owner, {
        url: `${fx.url}/toggle`,
        schedule: YEARLY,
        paused: true,
        diff: { confirm: false },
      });
      await h.runOnce(owner, monitor.id);
      toggleColour = '#000000';
      capture = await h.runOnce(owner, monitor.id);
      expect(capture.diffUrl).toBeDefined();
    });

    const routes = (m: () => string, c: () => string): [string, () => string][] => [
      ['GET', () => '/api/monitors'],
      ['POST', () => '/api/monitors'],
      ['GET', () => `/api/monitors/${m()}`],
      ['PATCH', () => `/api/monitors/${m()}`],
      ['DELETE', () => `/api/monitors/${m()}`],
      ['POST', () => `/api/monitors/${m()}/run`],
      ['GET', () => `/api/monitors/${m()}/captures`],
      ['GET', () => `/api/captures/${c()}`],
      ['GET', () => `/api/captures/${c()}/image`],
      ['GET', () => `/api/captures/${c()}/diff`],
    ];

    it.each(
      routes(
        () => monitor.id,
        () => capture.id,
      ).map(([method, path]) => ({ method, path })),
    )('no key: $method → 401', async ({ method, path }) => {
      const body =
        method === 'POST' || method === 'PATCH' ? JSON.stringify({ url: stableUrl(), schedule: YEARLY }) : undefined;
      const res = await fetch(`${svc.url}${path()}`, {
        method,
        headers: body ? { 'content-type': 'application/json' } : {},
        body,
      });
      await expectError(res, 401, 'unauthorized');
      const bogus = await svc.call(method, path(), 'pw_not_a_real_key', body && JSON.parse(body));
      await expectError(bogus, 401, 'unauthorized');
    });

    it('the owner reaches the capture, its image and its diff', async () => {
      expect((await svc.call('GET', `/api/captures/${capture.id}`, owner.key)).status).toBe(200);
      const image = await svc.call('GET', `/api/captures/${capture.id}/image`, owner.key);
      expect(image.status).toBe(200);
      expect(isPng(await bytesOf(image))).toBe(true);
      const diff = await svc.call('GET', `/api/captures/${capture.id}/diff`, owner.key);
      expect(diff.status).toBe(200);
      expect(diff.headers.get('content-type')).toBe('image/png');
      expect(decodePng(await bytesOf(diff))).toMatchObject({ width: 1280, height: 800 });
    });

    it.each([
      ['GET', 'monitor', ''],
      ['PATCH', 'monitor', ''],
      ['DELETE', 'monitor', ''],
      ['POST', 'monitor', '/run'],
      ['GET', 'monitor', '/captures'],
      ['GET', 'capture', ''],
      ['GET', 'capture', '/image'],
      ['GET', 'capture', '/diff'],
    ])('another key: %s %s%s → 404, and nothing changes', async (method, what, suffix) => {
      const before = await h.getMonitor(owner, monitor.id);
      const jobsBefore = (
        svc.db.prepare('SELECT COUNT(*) AS n FROM jobs WHERE monitor_id = ?').get(monitor.id) as { n: number }
      ).n;
      const path = what === 'monitor' ? `/api/monitors/${monitor.id}${suffix}` : `/api/captures/${capture.id}${suffix}`;
      const body = method === 'PATCH' ? { paused: false, name: 'taken over' } : undefined;
      await expectError(await svc.call(method, path, stranger.key, body), 404, 'not_found');
      expect(await h.getMonitor(owner, monitor.id)).toStrictEqual(before);
      expect(
        (svc.db.prepare('SELECT COUNT(*) AS n FROM jobs WHERE monitor_id = ?').get(monitor.id) as { n: number }).n,
      ).toBe(jobsBefore);
      expect((await h.listMonitors(stranger)).items).toEqual([]);
    });
  });

  describe('PATCH', () => {
    let key: IssuedKey;
    let monitor: MonitorJson;
    const patch = (body: unknown) => svc.call('PATCH', `/api/monitors/${monitor.id}`, key.key, body);
    async function patchOk(body: unknown): Promise<MonitorJson> {
      const res = await patch(body);
      expect(res.status, await res.clone().text()).toBe(200);
      const m = (await res.json()) as MonitorJson;
      expect(await h.getMonitor(key, monitor.id)).toStrictEqual(m); // the answer is what is stored
      return m;
    }

    beforeAll(async () => {
      key = svc.createKey('patch');
      monitor = await h.createOk(key, { url: stableUrl(), schedule: YEARLY });
    });

    it('a new schedule (and timezone) moves nextRunAt accordingly; updatedAt moves, createdAt does not', async () => {
      expect(Date.parse(monitor.nextRunAt!)).toBe(nextNewYear(0));
      const hour = (new Date().getUTCHours() + 12) % 24; // far from now either way
      await clockPast(monitor.updatedAt);
      const daily = await patchOk({ schedule: `30 ${hour} * * *` });
      expect(daily.schedule).toBe(`30 ${hour} * * *`);
      expect(Date.parse(daily.nextRunAt!)).toBe(nextDailyUtc(hour, 30));
      expect(daily.createdAt).toBe(monitor.createdAt);
      expect(Date.parse(daily.updatedAt)).toBeGreaterThan(Date.parse(monitor.updatedAt));

      const tokyo = await patchOk({ schedule: YEARLY, timezone: 'Asia/Tokyo' });
      expect(Date.parse(tokyo.nextRunAt!)).toBe(nextNewYear(9)); // 1 January 00:00 in Tokyo is 31 December 15:00 UTC
      const utc = await patchOk({ timezone: 'UTC' });
      expect(Date.parse(utc.nextRunAt!)).toBe(nextNewYear(0));
    });

    it('pause removes nextRunAt and the schedule; resume brings both back', async () => {
      const scheduled = svc.scheduler.scheduledCount;
      const paused = await patchOk({ paused: true });
      expect(paused.paused).toBe(true);
      expect(paused).not.toHaveProperty('nextRunAt');
      expect(svc.scheduler.scheduledCount).toBe(scheduled - 1);
      const resumed = await patchOk({ paused: false });
      expect(resumed.paused).toBe(false);
      expect(Date.parse(resumed.nextRunAt!)).toBe(nextNewYear(0));
      expect(svc.scheduler.scheduledCount).toBe(scheduled);
    });

    it('{webhookUrl: null} removes the webhook', async () => {
      expect((await patchOk({ webhookUrl: `${fx.url}/hook` })).webhookUrl).toBe(`${fx.url}/hook`);
      const removed = await patchOk({ webhookUrl: null });
      expect(removed).not.toHaveProperty('webhookUrl');
    });

    it('{diff: {threshold: 0.2}} keeps the other diff fields; arrays are replaced whole', async () => {
      await patchOk({ diff: { minChangeRatio: 0.01, ignoreSelectors: ['#ad', '.banner'], confirm: false } });
      const m = await patchOk({ diff: { threshold: 0.2 } });
      expect(m.diff).toStrictEqual({
        ...DIFF_DEFAULTS,
        threshold: 0.2,
        minChangeRatio: 0.01,
        ignoreSelectors: ['#ad', '.banner'],
        confirm: false,
      });
      const replaced = await patchOk({ diff: { ignoreSelectors: ['#only'] } });
      expect(replaced.diff.ignoreSelectors).toEqual(['#only']);
      expect(replaced.diff.threshold).toBe(0.2);
    });

    it('{name: null} falls back to the url; an empty patch changes nothing but updatedAt', async () => {
      expect((await patchOk({ name: 'Named' })).name).toBe('Named');
      expect((await patchOk({ name: null })).name).toBe(monitor.url);
      const before = await h.getMonitor(key, monitor.id);
      const same = await patchOk({});
      expect({ ...same, updatedAt: before.updatedAt }).toStrictEqual(before);
    });

    it('a name that was only the url follows a new url; a given name stays', async () => {
      const other = await h.createOk(key, { url: stableUrl(), schedule: YEARLY });
      expect(other.name).toBe(stableUrl());
      const moved = await svc.call('PATCH', `/api/monitors/${other.id}`, key.key, { url: `${stableUrl()}?v=2` });
      expect(((await moved.json()) as MonitorJson).name).toBe(`${stableUrl()}?v=2`);
      await svc.call('PATCH', `/api/monitors/${other.id}`, key.key, { name: 'Kept' });
      const again = await svc.call('PATCH', `/api/monitors/${other.id}`, key.key, { url: stableUrl() });
      expect(((await again.json()) as MonitorJson).name).toBe('Kept');
    });

    it.each([
      { what: 'bad cron', body: { schedule: '61 * * * *' }, status: 400, path: 'schedule' },
      { what: 'bad timezone', body: { timezone: 'Mars/Base' }, status: 400, path: 'timezone' },
      { what: 'retention.keep 0', body: { retention: { keep: 0 } }, status: 400, path: 'retention.keep' },
      { what: 'ftp url', body: { url: 'ftp://example.com/' }, status: 400, path: 'url' },
      { what: 'capture.format', body: { capture: { format: 'jpeg' } }, status: 400, path: 'capture.format' },
      { what: 'unknown field', body: { colour: 'red' }, status: 400, path: 'colour' },
      { what: 'removing a required field', body: { schedule: null }, status: 400, path: 'schedule' },
      { what: 'notify duplicates', body: { notify: ['failure', 'failure'] }, status: 400, path: 'notify' },
      { what: 'blocked webhookUrl', body: { webhookUrl: 'http://169.254.169.254/' }, status: 400, path: 'webhookUrl' },
      { what: 'blocked url', body: { url: 'http://10.0.0.1/' }, status: 403 },
      {
        what: 'a valid field next to an invalid one',
        body: { name: 'half', paused: true, schedule: '* * * *' },
        status: 400,
        path: 'schedule',
      },
      { what: 'an array body', body: [{ paused: true }], status: 400, path: '' },
      { what: 'a null body', body: null, status: 400, path: '' },
      { what: 'a string body', body: 'paused', status: 400, path: '' },
    ])('invalid: $what → $status and the monitor unchanged', async ({ body, status, path }) => {
      const before = await h.getMonitor(key, monitor.id);
      const scheduled = svc.scheduler.scheduledCount;
      const err = await expectError(await patch(body), status, status === 403 ? 'url_blocked' : 'invalid_request');
      if (path !== undefined)
        expect(
          err.details?.map((d) => d.path),
          JSON.stringify(err.details),
        ).toContain(path);
      expect(await h.getMonitor(key, monitor.id)).toStrictEqual(before);
      expect(svc.scheduler.scheduledCount).toBe(scheduled);
    });

    it('a text/plain PATCH is 415; malformed JSON is 400; an unknown id is 404', async () => {
      const before = await h.getMonitor(key, monitor.id);
      await expectError(
        await h.raw('PATCH', `/api/monitors/${monitor.id}`, key, '{"paused": true}', 'text/plain'),
        415,
        'unsupported_media_type',
      );
      await expectError(
        await h.raw('PATCH', `/api/monitors/${monitor.id}`, key, '{"paused": ', 'application/json'),
        400,
        'invalid_request',
      );
      await expectError(
        await svc.call('PATCH', '/api/monitors/mon_0000000000', key.key, { paused: true }),
        404,
        'not_found',
      );
      expect(await h.getMonitor(key, monitor.id)).toStrictEqual(before);
    });
  });

  describe('run and captures', () => {
    let key: IssuedKey;
    let monitor: MonitorJson;
    let first: CaptureJson;

    beforeAll(async () => {
      key = svc.createKey('run');
      monitor = await h.createOk(key, { url: stableUrl(), schedule: YEARLY, paused: true });
    });

    it('run → 202; runs while a capture is pending say alreadyPending and queue nothing more', async () => {
      const gate = closeGate();
      const runs: {
        status: number;
        body: { monitorId: string; status: string; reason: string; queuedAt: string; alreadyPending: boolean };
      }[] = [];
      const runNow = async () => {
        const res = await h.run(key, monitor.id);
        runs.push({ status: res.status, body: (await res.json()) as (typeof runs)[number]['body'] });
        return res;
      };
      try {
        const res = await runNow();
        expect(res.status).toBe(202);
        expect(res.headers.get('location')).toBe(`/api/monitors/${monitor.id}/captures`);
        expect(runs[0]!.body).toStrictEqual({
          monitorId: monitor.id,
          status: 'queued',
          reason: 'manual',
          queuedAt: expect.stringMatching(ISO) as unknown,
          alreadyPending: false,
        });
        await runNow(); // straight away: queued or already rendering
        // The page is held: the capture is certainly still running now.
        await until('the capture to request the held page', () => gate.arrived > 0, 30_000);
        await runNow();
        expect(runs[2]!.body).toMatchObject({
          monitorId: monitor.id,
          status: 'running',
          reason: 'manual',
          alreadyPending: true,
        });
      } finally {
        gate.release();
        stableGate = undefined;
      }
      await h.settle(monitor.id);
      for (const r of runs) expect(r.status).toBe(202);
      // A pending answer names the pending capture job: the same queuedAt as the run that queued it.
      for (const r of runs.filter((x) => x.body.alreadyPending)) expect(r.body.queuedAt).toBe(runs[0]!.body.queuedAt);
      const fresh = runs.filter((r) => !r.body.alreadyPending).length;
      expect(fresh).toBeLessThan(runs.length);
      const captures = await h.capturesOf(key, monitor.id);
      expect(captures).toHaveLength(fresh);
      first = captures[0]!;
    });

    it('the first capture is the baseline: 1280×800, manual, unchanged, an image and no diff', async () => {
      expect(first).toStrictEqual({
        id: expect.stringMatching(/^cap_[0-9a-f]+$/) as unknown,
        monitorId: monitor.id,
        status: 'succeeded',
        reason: 'manual',
        takenAt: expect.stringMatching(ISO) as unknown,
        durationMs: expect.any(Number) as unknown,
        width: 1280,
        height: 800,
        changed: false,
        confirmed: false,
        diffPixels: 0,
        diffRatio: 0,
        regions: [],
        baselineId: null,
        imageUrl: `${svc.url}/api/captures/${first.id}/image`,
        summary: null,
        textChanges: [],
        textChangesTotal: 0,
        conditions: [],
        conditionErrors: [],
        conditionsMet: null,
        // An HTML page: the browser read it (docs/monitors.md, "What a monitor reads").
        content: { kind: 'html', mediaType: 'text/html', bytes: null },
      });
      expect(first.durationMs).toBeGreaterThan(0);

      const image = await svc.call('GET', `/api/captures/${first.id}/image`, key.key);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/png');
      const bytes = await bytesOf(image);
      expect(isPng(bytes)).toBe(true);
      const png = decodePng(bytes);
      expect({ width: png.width, height: png.height }).toEqual({ width: 1280, height: 800 });
      // It is the page: its background, far from the heading.
      expect(png.pixel(640, 600)).toEqual({ ...STABLE_BG, a: 255 });
      expect(png.pixel(1270, 790)).toEqual({ ...STABLE_BG, a: 255 });
      // imageUrl is absolute and is that same route.
      const viaUrl = await fetch(first.imageUrl!, { headers: { authorization: `Bearer ${key.key}` } });
      expect(Buffer.compare(await bytesOf(viaUrl), bytes)).toBe(0);

      await expectError(await svc.call('GET', `/api/captures/${first.id}/diff`, key.key), 404, 'not_found');

      const m = await h.getMonitor(key, monitor.id);
      expect(m.lastStatus).toBe((await h.capturesOf(key, monitor.id)).length === 1 ? 'baseline' : 'unchanged');
      expect(m.lastRunAt).toMatch(ISO);
      expect(m).not.toHaveProperty('nextRunAt'); // still paused
      expect(m).not.toHaveProperty('lastChangeAt');
    });

    it('a capture of the unchanged page compares with the previous one: diffPixels 0, no diffUrl', async () => {
      const latest = await h.runOnce(key, monitor.id);
      const all = await h.capturesOf(key, monitor.id);
      expect(all[0]!.id).toBe(first.id);
      for (let i = 1; i < all.length; i++) {
        const c = all[i]!;
        expect(c).toMatchObject({
          status: 'succeeded',
          reason: 'manual',
          width: 1280,
          height: 800,
          changed: false,
          confirmed: false,
          diffPixels: 0,
          diffRatio: 0,
          regions: [],
          baselineId: all[i - 1]!.id,
        });
        expect(c).not.toHaveProperty('diffUrl');
        expect(Date.parse(c.takenAt)).toBeGreaterThanOrEqual(Date.parse(all[i - 1]!.takenAt));
      }
      expect(all[1]!.baselineId).toBe(first.id);
      const diff = await expectError(
        await svc.call('GET', `/api/captures/${latest.id}/diff`, key.key),
        404,
        'not_found',
      );
      expect(diff.message).toMatch(/nothing differed/);
      const m = await h.getMonitor(key, monitor.id);
      expect(m.lastStatus).toBe('unchanged');
      expect(m).not.toHaveProperty('lastChangeAt');
    });

    it('GET /api/captures/{id} equals the list item', async () => {
      for (const c of await h.capturesOf(key, monitor.id)) {
        const res = await svc.call('GET', `/api/captures/${c.id}`, key.key);
        expect(res.status).toBe(200);
        expect(await res.json()).toStrictEqual(c);
      }
      await expectError(await svc.call('GET', '/api/captures/cap_0000000000', key.key), 404, 'not_found');
      await expectError(await svc.call('GET', '/api/captures/cap_0000000000/image', key.key), 404, 'not_found');
    });

    it('the captures list is newest first and pages with limit=1', async () => {
      await h.runOnce(key, monitor.id); // at least three
      const all = (await h.listCaptures(key, monitor.id)).items;
      expect(all.length).toBeGreaterThanOrEqual(3);
      const takenAt = all.map((c) => Date.parse(c.takenAt));
      expect(takenAt).toEqual([...takenAt].sort((a, b) => b - a));

      const seen: CaptureJson[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = await h.listCaptures(key, monitor.id, query);
        expect(page.items).toHaveLength(1);
        seen.push(page.items[0]!);
        cursor = page.nextCursor;
        expect(seen.length).toBeLessThanOrEqual(all.length);
      } while (cursor);
      expect(seen).toStrictEqual(all);
      await expectError(
        await svc.call('GET', `/api/monitors/${monitor.id}/captures?cursor=garbage`, key.key),
        400,
        'invalid_request',
      );
      await expectError(
        await svc.call('GET', `/api/monitors/${monitor.id}/captures?limit=101`, key.key),
        400,
        'invalid_request',
      );
      await expectError(await svc.call('GET', '/api/monitors/mon_0000000000/captures', key.key), 404, 'not_found');
    });

    it('changing the capture options (PATCH) makes the next capture a new baseline', async () => {
      const before = await h.capturesOf(key, monitor.id);
      const patched = await svc.call('PATCH', `/api/monitors/${monitor.id}`, key.key, {
        capture: { viewport: { width: 400, height: 300 } },
      });
      expect(patched.status).toBe(200);
      const next = await h.runOnce(key, monitor.id);
      expect(next).toMatchObject({ status: 'succeeded', baselineId: null, changed: false, width: 400, height: 300 });
      expect(before.map((c) => c.id)).not.toContain(next.id);
      expect((await h.getMonitor(key, monitor.id)).lastStatus).toBe('baseline');
      // The one after compares with the new baseline, not the old ones.
      expect((await h.runOnce(key, monitor.id)).baselineId).toBe(next.id);
    });

    it('changing diff.textSelector (which text is read) makes the next capture a new baseline; other diff settings do not', async () => {
      const compared = await h.runOnce(key, monitor.id);
      expect(compared.baselineId).not.toBeNull();
      expect(
        (await svc.call('PATCH', `/api/monitors/${monitor.id}`, key.key, { diff: { threshold: 0.2, mode: 'both' } }))
          .status,
      ).toBe(200);
      expect((await h.runOnce(key, monitor.id)).baselineId).toBe(compared.id);
      expect(
        (await svc.call('PATCH', `/api/monitors/${monitor.id}`, key.key, { diff: { textSelector: 'h1' } })).status,
      ).toBe(200);
      const fresh = await h.runOnce(key, monitor.id);
      expect(fresh).toMatchObject({ status: 'succeeded', baselineId: null, changed: false });
      expect(
        (await svc.call('PATCH', `/api/monitors/${monitor.id}`, key.key, { diff: { textSelector: null } })).status,
      ).toBe(200);
      expect((await h.runOnce(key, monitor.id)).baselineId).toBeNull();
    });
  });

  describe('a page that fails', () => {
    it('is a failed capture (render_failed, no image); after the page is fixed the next capture is the baseline', async () => {
      const key = svc.createKey('flaky');
      flakyStatus = 404;
      const monitor = await h.createOk(key, { url: `${fx.url}/flaky`, schedule: YEARLY, paused: true });

      // The browser's loads of the page (the service's own fetch of its first bytes comes before each).
      const flakyRequests = () =>
        fx.requests.filter((r) => r.path === '/flaky' && r.headers['user-agent']?.includes('Chrome')).length;
      const requestsBefore = flakyRequests();
      const failed = await h.runOnce(key, monitor.id);
      // render_failed is final: one attempt, not retried (a retry would load the page again).
      expect(flakyRequests() - requestsBefore).toBe(1);
      expect(failed).toMatchObject({
        monitorId: monitor.id,
        status: 'failed',
        reason: 'manual',
        changed: false,
        baselineId: null,
        error: { code: 'render_failed', message: expect.any(String) as unknown },
      });
      expect(failed).not.toHaveProperty('imageUrl');
      expect(failed).not.toHaveProperty('diffUrl');
      expect((await h.listCaptures(key, monitor.id)).items).toHaveLength(1);
      await expectError(await svc.call('GET', `/api/captures/${failed.id}/image`, key.key), 404, 'not_found');
      await expectError(await svc.call('GET', `/api/captures/${failed.id}/diff`, key.key), 404, 'not_found');
      const afterFailure = await h.getMonitor(key, monitor.id);
      expect(afterFailure.lastStatus).toBe('failed');
      expect(afterFailure.lastRunAt).toMatch(ISO);

      flakyStatus = 200;
      const fixed = await h.runOnce(key, monitor.id);
      expect(fixed).toMatchObject({ status: 'succeeded', baselineId: null, changed: false, width: 1280, height: 800 });
      expect(fixed.imageUrl).toBe(`${svc.url}/api/captures/${fixed.id}/image`);
      expect(fixed).not.toHaveProperty('error');
      expect((await h.getMonitor(key, monitor.id)).lastStatus).toBe('baseline');

      // A failure between two good captures is skipped over: the baseline stays the last good one.
      flakyStatus = 500;
      expect((await h.runOnce(key, monitor.id)).status).toBe('failed');
      flakyStatus = 200;
      const again = await h.runOnce(key, monitor.id);
      expect(again).toMatchObject({ status: 'succeeded', baselineId: fixed.id, changed: false, diffPixels: 0 });
    });
  });

  describe('DELETE', () => {
    it('204; the monitor, its captures and its files are gone; deleting twice is 404', async () => {
      const key = svc.createKey('delete');
      const monitor = await h.createOk(key, { url: stableUrl(), schedule: YEARLY }); // active: it is scheduled
      const capture = await h.runOnce(key, monitor.id);
      const folder = join(svc.dataDir, 'captures', monitor.id);
      expect(existsSync(folder)).toBe(true);
      expect(readdirSync(folder)).toContain(capture.id);
      const scheduled = svc.scheduler.scheduledCount;

      const res = await svc.call('DELETE', `/api/monitors/${monitor.id}`, key.key);
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');

      await expectError(await svc.call('GET', `/api/monitors/${monitor.id}`, key.key), 404, 'not_found');
      await expectError(await svc.call('GET', `/api/monitors/${monitor.id}/captures`, key.key), 404, 'not_found');
      await expectError(await svc.call('POST', `/api/monitors/${monitor.id}/run`, key.key), 404, 'not_found');
      await expectError(await svc.call('GET', `/api/captures/${capture.id}`, key.key), 404, 'not_found');
      await expectError(await svc.call('GET', `/api/captures/${capture.id}/image`, key.key), 404, 'not_found');
      expect(existsSync(folder)).toBe(false);
      expect(
        (svc.db.prepare('SELECT COUNT(*) AS n FROM captures WHERE monitor_id = ?').get(monitor.id) as { n: number }).n,
      ).toBe(0);
      expect(svc.scheduler.scheduledCount).toBe(scheduled - 1);
      expect((await h.listMonitors(key)).items).toEqual([]);

      await expectError(await svc.call('DELETE', `/api/monitors/${monitor.id}`, key.key), 404, 'not_found');
    });

    it('a capture in flight is canceled with it and records nothing', async () => {
      const key = svc.createKey('delete-running');
      const monitor = await h.createOk(key, { url: stableUrl(), schedule: YEARLY, paused: true });
      const gate = closeGate();
      try {
        expect((await h.run(key, monitor.id)).status).toBe(202);
        await until('the capture to request the held page', () => gate.arrived > 0, 30_000);
        expect((await svc.call('DELETE', `/api/monitors/${monitor.id}`, key.key)).status).toBe(204);
      } finally {
        gate.release();
        stableGate = undefined;
      }
      await h.settle(monitor.id);
      const jobs = svc.db.prepare('SELECT status FROM jobs WHERE monitor_id = ?').all(monitor.id) as {
        status: string;
      }[];
      expect(jobs).toEqual([{ status: 'canceled' }]);
      // A render that (incorrectly) survived would still be running or writing its file while the worker
      // holds its job: once the worker holds none, the files are all there will be.
      await until('the worker to finish its runs', () => svc.worker.runningCount === 0, 30_000);
      expect(existsSync(join(svc.dataDir, 'captures', monitor.id))).toBe(false);
      expect(
        (svc.db.prepare('SELECT COUNT(*) AS n FROM captures WHERE monitor_id = ?').get(monitor.id) as { n: number }).n,
      ).toBe(0);
    });
  });

  describe('capture jobs and /api/jobs', () => {
    it('capture jobs never appear in GET /api/jobs, nor by id', async () => {
      const key = svc.createKey('jobs-view');
      const monitor = await h.createOk(key, { url: stableUrl(), schedule: YEARLY, paused: true });
      await h.runOnce(key, monitor.id);
      await h.runOnce(key, monitor.id);
      const captureJobs = svc.db.prepare(`SELECT id FROM jobs WHERE key_id = ? AND kind = 'capture'`).all(key.id) as {
        id: string;
      }[];
      expect(captureJobs).toHaveLength(2);

      // A render job of the same key, so the list is shown to work at all.
      const render = await svc.call('POST', '/api/image', key.key, { url: stableUrl(), async: true });
      expect(render.status).toBe(202);
      const renderJob = (await render.json()) as { id: string };

      const list = await svc.call('GET', '/api/jobs?limit=100', key.key);
      expect(list.status).toBe(200);
      const ids = ((await list.json()) as Page<{ id: string; kind: string }>).items.map((j) => j.id);
      expect(ids).toEqual([renderJob.id]);
      for (const status of ['succeeded', 'queued', 'running']) {
        const byStatus = await svc.call('GET', `/api/jobs?status=${status}`, key.key);
        const items = ((await byStatus.json()) as Page<{ id: string; kind: string }>).items;
        expect(items.every((j) => j.kind !== 'capture' && j.id === renderJob.id)).toBe(true);
      }
      for (const { id } of captureJobs) {
        await expectError(await svc.call('GET', `/api/jobs/${id}`, key.key), 404, 'not_found');
        await expectError(await svc.call('GET', `/api/jobs/${id}/result`, key.key), 404, 'not_found');
        await expectError(await svc.call('DELETE', `/api/jobs/${id}`, key.key), 404, 'not_found');
      }
      await until('the render job to finish', async () => {
        const res = await svc.call('GET', `/api/jobs/${renderJob.id}`, key.key);
        return ['succeeded', 'failed'].includes(((await res.json()) as { status: string }).status);
      });
    });
  });
});

describe('monitors.maxPerKey', () => {
  let svc: TestService;
  let h: ReturnType<typeof api>;

  beforeAll(async () => {
    svc = await startTestService({ monitors: { maxPerKey: 2 } });
    h = api(svc);
  });
  afterAll(async () => {
    await svc?.close();
  });

  const body = () => ({ url: `${fx.url}/stable`, schedule: YEARLY, paused: true });

  it('2 are created, the 3rd is 409 conflict; after a delete, creating works again', async () => {
    const key = svc.createKey('max');
    const a = await h.createOk(key, body());
    await h.createOk(key, body());
    const err = await expectError(await h.create(key, body()), 409, 'conflict');
    expect(err.message).toMatch(/maxPerKey/);
    expect((await h.listMonitors(key)).items).toHaveLength(2);

    // The limit is per key.
    await h.createOk(svc.createKey('other'), body());

    expect((await svc.call('DELETE', `/api/monitors/${a.id}`, key.key)).status).toBe(204);
    await h.createOk(key, body());
    await expectError(await h.create(key, body()), 409, 'conflict');
    expect((await h.listMonitors(key)).items).toHaveLength(2);
  });

  it('creates racing for the last places never exceed the limit', async () => {
    const key = svc.createKey('race');
    const results = await Promise.all(Array.from({ length: 6 }, () => h.create(key, body())));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 409, 409, 409, 409]);
    expect((await h.listMonitors(key)).items).toHaveLength(2);
  });
});
