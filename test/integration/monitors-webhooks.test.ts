// A monitor's webhooks and retention (issue #5, "Webhooks" and "Retention"): monitor.changed,
// capture.completed and capture.failed are sent to the monitor's webhookUrl as `notify` says, signed
// (Standard Webhooks, checked by the reference `standardwebhooks` package) with the owning key's secret,
// with thin data whose absolute image URLs fetch the right PNGs; they are listed in the delivery log,
// retried with one webhook-id, and never recorded without a webhookUrl. Retention keeps the newest
// `keep` captures (plus the current baseline) and removes the rest, rows and files.
// Captures are driven by hand (POST /run) on monitors with a yearly schedule.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decodePng, type Rgba } from '../helpers/png.js';
import { bytesOf, startTestService, type TestService } from '../helpers/service.js';
import { sleep, until } from '../helpers/until.js';
import {
  startWebhookReceiver,
  verifyHit,
  type Answer,
  type Hit,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

interface CaptureJson {
  id: string;
  monitorId: string;
  status: 'succeeded' | 'failed';
  reason: string;
  takenAt: string;
  changed: boolean;
  confirmed: boolean;
  diffPixels: number;
  diffRatio: number;
  regions: { x: number; y: number; width: number; height: number }[];
  baselineId: string | null;
  imageUrl?: string;
  diffUrl?: string;
  error?: { code: string; message: string };
}
interface MonitorJson {
  id: string;
  notify: string[];
  webhookUrl?: string;
}
interface Delivery {
  id: string;
  eventType: string;
  url: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  lastResponseStatus: number | null;
  webhookId: string;
  monitorId?: string;
}
interface Key {
  id: string;
  key: string;
  webhookSecret: string;
}
type Event = ReturnType<typeof verifyHit>;

const YEARLY = '0 0 1 1 *';
const WIDTH = 320;
const HEIGHT = 200;
const SETTINGS = {
  webhooks: { retryScheduleMs: [200, 200] },
  jobs: { pollIntervalMs: 100 },
  rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 }, // the tests poll often
};

const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 255 };
const RED: Rgba = { r: 255, g: 0, b: 0, a: 255 };
/** Inside the red block of variant B (and white in variant A). */
const PROBE = { x: 60, y: 60 };

/** Variant A: a white page with a line of text. B: the same with a 120×80 red block at (20, 20). */
function pageHtml(variant: 'A' | 'B'): string {
  const block =
    variant === 'B'
      ? '<div style="position:absolute;left:20px;top:20px;width:120px;height:80px;background:#f00"></div>'
      : '';
  return `<!doctype html><html><body style="margin:0;background:#fff">
    <p style="position:absolute;left:20px;top:140px;margin:0;font:16px sans-serif;color:#333">WATCHED PAGE</p>${block}</body></html>`;
}

let svc: TestService;
let owner: Key;
let fx: FixtureServer;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  [svc, fx] = await Promise.all([startTestService(SETTINGS), startFixtureServer()]);
  owner = svc.createKey('monitor-webhooks');
});
afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close(), ...receivers.map((r) => r.close())]);
});

async function receiver(answer?: Answer): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver(answer);
  receivers.push(r);
  return r;
}

/** A fixture page the test changes: which variant it shows and with what HTTP status. */
function watchedPage(path: string): { url: string; state: { variant: 'A' | 'B'; status: number } } {
  const state = { variant: 'A' as 'A' | 'B', status: 200 };
  fx.route(path, (_req, res) => {
    res.writeHead(state.status, { 'content-type': 'text/html' }).end(pageHtml(state.variant));
  });
  return { url: `${fx.url}${path}`, state };
}

async function createMonitor(body: Record<string, unknown>): Promise<MonitorJson> {
  const res = await svc.call('POST', '/api/monitors', owner.key, {
    schedule: YEARLY,
    capture: { viewport: { width: WIDTH, height: HEIGHT } },
    ...body,
  });
  if (res.status !== 201) throw new Error(`POST /api/monitors → ${res.status}: ${await res.text()}`);
  return (await res.json()) as MonitorJson;
}

/** Every capture of the monitor, newest first. */
async function capturesOf(monitorId: string): Promise<CaptureJson[]> {
  const res = await svc.call('GET', `/api/monitors/${monitorId}/captures?limit=100`, owner.key);
  if (res.status !== 200) throw new Error(`GET captures → ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { items: CaptureJson[] }).items;
}

/** Capture now and wait for the capture to be recorded; returns it. */
async function captureNow(monitorId: string): Promise<CaptureJson> {
  const known = new Set((await capturesOf(monitorId)).map((c) => c.id));
  const res = await svc.call('POST', `/api/monitors/${monitorId}/run`, owner.key);
  if (res.status !== 202) throw new Error(`POST run → ${res.status}: ${await res.text()}`);
  expect(((await res.json()) as { alreadyPending: boolean }).alreadyPending).toBe(false);
  return until(
    `a new capture of ${monitorId}`,
    async () => (await capturesOf(monitorId)).find((c) => !known.has(c.id)),
    30_000,
    100,
  );
}

async function deliveriesOf(monitorId: string): Promise<Delivery[]> {
  const res = await svc.call('GET', `/api/webhook-deliveries?monitorId=${monitorId}`, owner.key);
  if (res.status !== 200) throw new Error(`GET deliveries → ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { items: Delivery[] }).items;
}

/** GET an image URL from a webhook with the key: a PNG of the capture's size. */
async function fetchPng(url: string): Promise<ReturnType<typeof decodePng>> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${owner.key}` } });
  expect(res.status, url).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/png');
  return decodePng(await bytesOf(res));
}

function expectAbsolute(url: unknown, path: string): void {
  expect(typeof url).toBe('string');
  const parsed = new URL(url as string); // throws if relative
  expect(parsed.origin).toBe(svc.url);
  expect(parsed.pathname).toBe(path);
}

describe('notify ["change", "failure", "capture"]: a baseline, then a change', () => {
  let hooks: WebhookReceiver;
  let monitor: MonitorJson;
  let page: ReturnType<typeof watchedPage>;
  let baseline: CaptureJson;
  let changed: CaptureJson;
  let events: { hit: Hit; event: Event }[];

  beforeAll(async () => {
    hooks = await receiver();
    page = watchedPage('/notify-all');
    monitor = await createMonitor({ url: page.url, webhookUrl: hooks.url, notify: ['change', 'failure', 'capture'] });
    baseline = await captureNow(monitor.id);
    await hooks.waitForHits(1);
    page.state.variant = 'B';
    changed = await captureNow(monitor.id);
    // Events are recorded in the outbox with their capture: once the monitor's deliveries are all sent,
    // the receiver has every hit there will be (an extra event would be an extra delivery).
    await until(
      'the three deliveries to be sent',
      async () => {
        const items = await deliveriesOf(monitor.id);
        return items.length === 3 && items.every((d) => d.status === 'succeeded');
      },
      10_000,
    );
    events = hooks.hits.map((hit) => ({ hit, event: verifyHit(owner.webhookSecret, hit) }));
  });

  it('the captures are what the events report: a baseline, then a confirmed change', () => {
    expect(monitor.notify).toEqual(['change', 'failure', 'capture']);
    expect(baseline).toMatchObject({ status: 'succeeded', reason: 'manual', changed: false, baselineId: null });
    expect(changed).toMatchObject({
      status: 'succeeded',
      reason: 'manual',
      changed: true,
      confirmed: true,
      baselineId: baseline.id,
    });
    expect(changed.diffPixels).toBeGreaterThan(0);
    expect(changed.regions.length).toBeGreaterThan(0);
  });

  it('baseline → capture.completed (changed false); change → monitor.changed and capture.completed; all signed, ids unique', () => {
    expect(events).toHaveLength(3);
    // Every hit verified with the key's secret (verifyHit throws otherwise) and carries its own webhook-id.
    const ids = events.map(({ hit }) => hit.headers['webhook-id']);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toEqual(expect.any(String));

    // The baseline's event came first: the change had not been captured yet when it arrived.
    expect(events[0]!.event).toMatchObject({
      type: 'capture.completed',
      data: {
        monitorId: monitor.id,
        captureId: baseline.id,
        url: page.url,
        status: 'succeeded',
        reason: 'manual',
        changed: false,
        baselineId: null,
      },
    });
    expect(events[0]!.event.data.baselineImageUrl).toBeUndefined();
    expect(events[0]!.event.data.diffUrl).toBeUndefined();
    expectAbsolute(events[0]!.event.data.imageUrl, `/api/captures/${baseline.id}/image`);

    const later = events.slice(1).map(({ event }) => event);
    expect(later.map((e) => e.type).sort()).toEqual(['capture.completed', 'monitor.changed']);
    for (const e of later) {
      expect(e.data).toMatchObject({
        monitorId: monitor.id,
        captureId: changed.id,
        url: page.url,
        status: 'succeeded',
        reason: 'manual',
        changed: true,
        baselineId: baseline.id,
        diffPixels: changed.diffPixels,
        diffRatio: changed.diffRatio,
        regions: changed.regions,
      });
    }
  });

  it('monitor.changed data: diffRatio, regions, and absolute imageUrl/diffUrl/baselineImageUrl that fetch the right PNGs with the key', async () => {
    const { data } = events.find(({ event }) => event.type === 'monitor.changed')!.event;
    expect(data.diffRatio).toBeGreaterThan(0);
    expect(data.diffRatio).toBeLessThanOrEqual(1);
    const regions = data.regions as CaptureJson['regions'];
    expect(regions.length).toBeGreaterThan(0);
    // The red block (20,20 120×80) lies within the reported regions.
    expect(
      regions.some((r) => r.x <= PROBE.x && PROBE.x < r.x + r.width && r.y <= PROBE.y && PROBE.y < r.y + r.height),
    ).toBe(true);

    expectAbsolute(data.imageUrl, `/api/captures/${changed.id}/image`);
    expectAbsolute(data.diffUrl, `/api/captures/${changed.id}/diff`);
    expectAbsolute(data.baselineImageUrl, `/api/captures/${baseline.id}/image`);
    const [image, diff, baselineImage] = await Promise.all([
      fetchPng(data.imageUrl as string),
      fetchPng(data.diffUrl as string),
      fetchPng(data.baselineImageUrl as string),
    ]);
    for (const png of [image, diff, baselineImage]) expect([png.width, png.height]).toEqual([WIDTH, HEIGHT]);
    expect(image.pixel(PROBE.x, PROBE.y)).toEqual(RED);
    expect(baselineImage.pixel(PROBE.x, PROBE.y)).toEqual(WHITE);

    // The URLs are the key's: without it, 401.
    expect((await fetch(data.imageUrl as string)).status).toBe(401);
  });

  it('the deliveries are listed by monitorId with their event type, succeeded, under the same webhook-ids', async () => {
    const list = await until(
      'every delivery to have succeeded',
      async () => {
        const items = await deliveriesOf(monitor.id);
        return items.length === 3 && items.every((d) => d.status === 'succeeded') && items;
      },
      10_000,
      100,
    );
    expect(list.map((d) => d.eventType).sort()).toEqual(['capture.completed', 'capture.completed', 'monitor.changed']);
    for (const d of list)
      expect(d).toMatchObject({
        monitorId: monitor.id,
        url: hooks.url,
        status: 'succeeded',
        attempts: 1,
        lastResponseStatus: 204,
      });
    expect(list.map((d) => d.webhookId).sort()).toEqual(events.map(({ hit }) => hit.headers['webhook-id']).sort());
  });
});

it('default notify (change, failure): an unchanged capture sends nothing; a failing one sends a signed capture.failed', async () => {
  const hooks = await receiver();
  const page = watchedPage('/notify-default');
  const monitor = await createMonitor({ url: page.url, webhookUrl: hooks.url });
  expect(monitor.notify).toEqual(['change', 'failure']);

  const baseline = await captureNow(monitor.id);
  const unchanged = await captureNow(monitor.id);
  expect(unchanged).toMatchObject({ status: 'succeeded', changed: false, diffPixels: 0, baselineId: baseline.id });
  // A capture's events are recorded with it, so none is coming; and the failure below proves the receiver
  // is reached: its event is the only delivery the monitor ever has.
  expect(await deliveriesOf(monitor.id)).toEqual([]);

  page.state.status = 500;
  const failed = await captureNow(monitor.id);
  expect(failed).toMatchObject({ status: 'failed', error: { code: 'render_failed' } });
  expect(failed.imageUrl).toBeUndefined();

  const [hit] = await hooks.waitForHits(1);
  const event = verifyHit(owner.webhookSecret, hit!);
  expect(event.type).toBe('capture.failed');
  expect(event.data).toMatchObject({
    monitorId: monitor.id,
    captureId: failed.id,
    url: page.url,
    status: 'failed',
    reason: 'manual',
    error: { code: 'render_failed', message: expect.any(String) as unknown },
  });
  expect(event.data.imageUrl).toBeUndefined();
  const [delivery] = await until(
    'the capture.failed delivery to succeed',
    async () => {
      const items = await deliveriesOf(monitor.id);
      return items.length === 1 && items[0]!.status === 'succeeded' && items;
    },
    10_000,
    100,
  );
  expect(hooks.hits).toHaveLength(1); // none for the unchanged capture, and no repeat of this one
  expect(delivery).toMatchObject({
    eventType: 'capture.failed',
    monitorId: monitor.id,
    webhookId: hit!.headers['webhook-id'],
  });
});

it('a receiver that answers 500 first gets the event again with the same webhook-id, and the delivery succeeds', async () => {
  const hooks = await receiver((res, _hit, i) => {
    res.writeHead(i === 0 ? 500 : 204).end();
  });
  const page = watchedPage('/notify-retry');
  const monitor = await createMonitor({ url: page.url, webhookUrl: hooks.url, notify: ['capture'] });
  const capture = await captureNow(monitor.id);

  const [first, second] = await hooks.waitForHits(2);
  const events = [first!, second!].map((hit) => verifyHit(owner.webhookSecret, hit));
  expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
  for (const e of events)
    expect(e).toMatchObject({ type: 'capture.completed', data: { monitorId: monitor.id, captureId: capture.id } });
  expect(second!.body).toBe(first!.body);

  const [delivery] = await until(
    'the retried delivery to succeed',
    async () => {
      const items = await deliveriesOf(monitor.id);
      return items.length === 1 && items[0]!.status === 'succeeded' && items;
    },
    10_000,
    100,
  );
  expect(delivery).toMatchObject({
    eventType: 'capture.completed',
    attempts: 2,
    lastResponseStatus: 204,
    webhookId: first!.headers['webhook-id'],
  });
  // Nothing more may follow a success. A bounded wait: the whole retry schedule (2 × 200 ms) plus two
  // dispatcher polls (100 ms each) — a delivery still scheduled would have been sent within it.
  await sleep(600); // bound: retry schedule (400 ms) + two dispatcher polls (200 ms), see above
  expect(hooks.hits).toHaveLength(2);
});

it('without a webhookUrl no delivery is recorded for the monitor, whatever notify says', async () => {
  const page = watchedPage('/notify-nowhere');
  const monitor = await createMonitor({ url: page.url, notify: ['change', 'failure', 'capture'] });
  expect(monitor.webhookUrl).toBeUndefined();
  await captureNow(monitor.id);
  page.state.variant = 'B';
  expect(await captureNow(monitor.id)).toMatchObject({ status: 'succeeded', changed: true });
  page.state.status = 500;
  expect(await captureNow(monitor.id)).toMatchObject({ status: 'failed' });

  expect(await deliveriesOf(monitor.id)).toEqual([]);
  expect(svc.db.prepare('SELECT COUNT(*) n FROM webhook_deliveries WHERE monitor_id = ?').get(monitor.id)).toEqual({
    n: 0,
  });
});

it('retention keep 2: only the newest captures (plus the current baseline) are kept, rows and files; pruned ids answer 404', async () => {
  const page = watchedPage('/retention');
  const monitor = await createMonitor({ url: page.url, retention: { keep: 2 }, diff: { confirm: false } });
  const folder = join(svc.dataDir, 'captures', monitor.id);
  const filesOf = (captures: CaptureJson[]) =>
    captures
      .flatMap((c) => [...(c.imageUrl ? [c.id, `${c.id}-text`] : []), ...(c.diffUrl ? [`${c.id}-diff`] : [])])
      .sort();

  const taken: CaptureJson[] = [];
  for (let i = 0; i < 5; i++) {
    page.state.variant = i % 2 === 0 ? 'A' : 'B';
    taken.push(await captureNow(monitor.id));
  }
  expect(taken.map((c) => c.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded']);
  expect(taken.map((c) => c.changed)).toEqual([false, true, true, true, true]);

  // Every capture succeeded, so the newest is the baseline: exactly the newest two are kept.
  const kept = await capturesOf(monitor.id);
  expect(kept.map((c) => c.id)).toEqual([taken[4]!.id, taken[3]!.id]);
  for (const c of kept) expect(c.diffUrl).toEqual(expect.any(String));
  const expectedFiles = filesOf(kept);
  expect(expectedFiles).toHaveLength(6); // image, diff and text blocks of each
  await until(
    "the pruned captures' files to be removed",
    () => {
      const files = readdirSync(folder).sort();
      return JSON.stringify(files) === JSON.stringify(expectedFiles) || undefined;
    },
    10_000,
    100,
  ).catch(() => {
    throw new Error(
      `capture folder holds ${JSON.stringify(readdirSync(folder).sort())}, expected ${JSON.stringify(expectedFiles)}`,
    );
  });
  for (const pruned of taken.slice(0, 3)) {
    expect((await svc.call('GET', `/api/captures/${pruned.id}`, owner.key)).status).toBe(404);
    expect((await svc.call('GET', `/api/captures/${pruned.id}/image`, owner.key)).status).toBe(404);
  }
  for (const c of kept) expect((await svc.call('GET', `/api/captures/${c.id}/image`, owner.key)).status).toBe(200);
});

// Failed captures are captures too (they are listed in the history): a page that keeps failing must not
// grow a monitor's history past retention.keep. The baseline — the last good capture — is kept besides.
it('retention keep 2 with failing captures: the newest two plus the last good capture (the baseline) are kept', async () => {
  const page = watchedPage('/retention-failing');
  const monitor = await createMonitor({ url: page.url, retention: { keep: 2 }, diff: { confirm: false } });
  const folder = join(svc.dataDir, 'captures', monitor.id);
  const first = await captureNow(monitor.id);
  page.state.variant = 'B';
  const good = await captureNow(monitor.id);
  expect(good).toMatchObject({ status: 'succeeded', changed: true, baselineId: first.id });

  page.state.status = 500;
  const failed: CaptureJson[] = [];
  const history: string[][] = [];
  for (let i = 0; i < 3; i++) {
    failed.push(await captureNow(monitor.id));
    history.push((await capturesOf(monitor.id)).map((c) => c.id));
  }
  expect(failed.map((c) => c.status)).toEqual(['failed', 'failed', 'failed']);
  // Pruned captures' files are removed after their rows' commit: wait for that.
  const kept = [good.id, `${good.id}-diff`, `${good.id}-text`].sort();
  const filesAfterFailures = await until(
    () => `only the baseline's files in ${folder}; found ${readdirSync(folder).join(', ')}`,
    () => {
      const files = readdirSync(folder).sort();
      return files.join() === kept.join() && files;
    },
    10_000,
  );

  // Failures do not move the baseline: the next good capture is still compared with the last good one.
  page.state.status = 200;
  const next = await captureNow(monitor.id);
  expect(next).toMatchObject({ status: 'succeeded', baselineId: good.id, changed: false });

  // What the history held after each failure: the newest two, plus the baseline when it is not among them.
  expect(history).toEqual([
    [failed[0]!.id, good.id],
    [failed[1]!.id, failed[0]!.id, good.id],
    [failed[2]!.id, failed[1]!.id, good.id],
  ]);
  expect(filesAfterFailures).toEqual([good.id, `${good.id}-diff`, `${good.id}-text`].sort());
});
