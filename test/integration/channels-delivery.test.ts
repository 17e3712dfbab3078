// Channel deliveries through the outbox (issue 28, "Channels" and "Digests and quiet hours"): every alert a
// monitor's webhook would get is recorded for each of its channels in the same transaction and sent by the
// dispatcher; a failing channel is retried (the delivery log shows each attempt) while another succeeds;
// hourly and daily digests gather alerts into ONE message at their release, on the wall clock of the
// monitor's time zone; quiet hours hold alerts until they end; default channels alert the monitors of
// their own key only. Time is a TestClock for the whole service: the test moves it on instead of waiting.
// Captures are real (Chromium, a fixture page that changes); receivers are loopback `webhook` channels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { expectJson } from '../helpers/monitor-runs.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { TestClock } from '../helpers/test-clock.js';
import { sleep, until } from '../helpers/until.js';
import { startWebhookReceiver, type Answer, type Hit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

interface DeliveryJson {
  id: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  channelId?: string;
  heldFor?: string;
  lastResponseStatus: number | null;
  history?: { attempt: number; responseStatus: number | null }[];
}
interface Alerts {
  alerts: { type: string; timestamp: string; data: Record<string, unknown> }[];
}

const clock = new TestClock('2026-03-01T12:00:00.000Z');
let svc: TestService;
let fx: FixtureServer;
let owner: string;
const receivers: WebhookReceiver[] = [];
/** Which variant each watched page shows (A: plain; B: with a red block). */
const pages = new Map<string, 'A' | 'B'>();

beforeAll(async () => {
  [svc, fx] = await Promise.all([
    startTestService(
      {
        webhooks: { retryScheduleMs: [1000, 1000] },
        jobs: { pollIntervalMs: 100 },
        rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
      },
      { clock },
    ),
    startFixtureServer(),
  ]);
  owner = svc.createKey('channel-deliveries').key;
});
afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close(), ...receivers.map((r) => r.close())]);
});

async function receiver(answer?: Answer): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver(answer);
  receivers.push(r);
  return r;
}

async function channel(key: string, body: Record<string, unknown>): Promise<string> {
  return (
    await expectJson<{ id: string }>(await svc.call('POST', '/api/channels', key, { type: 'webhook', ...body }), 201)
  ).id;
}

async function monitor(key: string, name: string, body: Record<string, unknown>): Promise<string> {
  pages.set(name, 'A');
  fx.route(`/${name}`, (_req, res) => {
    const block =
      pages.get(name) === 'B' ? '<div style="width:120px;height:80px;background:#f00;margin:10px"></div>' : '';
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><body><p>${name}</p>${block}</body>`);
  });
  const created = await svc.call('POST', '/api/monitors', key, {
    name,
    url: `${fx.url}/${name}`,
    schedule: '0 0 1 1 *',
    paused: true,
    capture: { viewport: { width: 320, height: 200 } },
    diff: { confirm: false },
    ...body,
  });
  return (await expectJson<{ id: string }>(created, 201)).id;
}

async function captureCount(key: string, monitorId: string): Promise<number> {
  const list = await expectJson<{ items: unknown[] }>(
    await svc.call('GET', `/api/monitors/${monitorId}/captures?limit=100`, key),
    200,
  );
  return list.items.length;
}

/** Capture now (the clock a second on, so captures never share a time) and wait until it is recorded. */
async function capture(key: string, monitorId: string): Promise<void> {
  clock.advance(1000);
  const before = await captureCount(key, monitorId);
  await expectJson(await svc.call('POST', `/api/monitors/${monitorId}/run`, key), 202);
  await until(`a capture of ${monitorId}`, async () => (await captureCount(key, monitorId)) > before, 45_000, 100);
}

async function deliveries(channelId: string, key = owner): Promise<DeliveryJson[]> {
  const res = await svc.call('GET', `/api/webhook-deliveries?channelId=${channelId}&limit=100`, key);
  return (await expectJson<{ items: DeliveryJson[] }>(res, 200)).items;
}

const detail = async (id: string) =>
  expectJson<DeliveryJson>(await svc.call('GET', `/api/webhook-deliveries/${id}`, owner), 200);
const alertsOf = (hit: Hit) => JSON.parse(hit.body) as Alerts;

/** Nothing arrives: ten dispatcher polls (jobs.pollIntervalMs 100 ms) with the due time not reached. */
const tenPolls = () => sleep(1000);

describe('alerts to channels', () => {
  it('a change reaches two channels; the failing one is retried and logged without holding up the other', async () => {
    const good = await receiver();
    const bad = await receiver((res) => res.writeHead(500).end('down'));
    const goodId = await channel(owner, { name: 'Good', url: good.url });
    const badId = await channel(owner, { name: 'Bad', url: bad.url });
    const id = await monitor(owner, 'two-channels', { notify: ['change'], channels: [goodId, badId] });
    await capture(owner, id); // the baseline: no change, nothing told (notify: change)
    pages.set('two-channels', 'B');
    await capture(owner, id); // changed: monitor.changed to both channels

    const [hit] = await good.waitForHits(1);
    const got = alertsOf(hit!);
    expect(got.alerts).toHaveLength(1);
    expect(got.alerts[0]).toMatchObject({ type: 'monitor.changed', data: { monitorId: id, changed: true } });
    await bad.waitForHits(1);
    await until('the good delivery succeeded', async () => (await deliveries(goodId))[0]?.status === 'succeeded');

    // The failing channel: attempt 1 failed, the next is due a retry delay later (fake time).
    const [failing] = await deliveries(badId);
    expect(failing).toMatchObject({
      eventType: 'monitor.changed',
      status: 'pending',
      attempts: 1,
      lastResponseStatus: 500,
    });
    for (const n of [2, 3]) {
      // Once the attempt before is recorded (its retry due a delay after it), move past that delay.
      await until(`attempt ${n - 1} recorded`, async () => (await detail(failing!.id)).attempts === n - 1);
      clock.advance(2000);
      await bad.waitForHits(n);
    }
    const last = await until('the bad delivery failed for good', async () => {
      const d = await detail(failing!.id);
      return d.status === 'failed' && d;
    });
    expect(last.history!.map((a) => [a.attempt, a.responseStatus])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
    ]);
    // Every POST to the failing channel carried the same alert; the good channel got its one message only.
    for (const h of bad.hits) expect(alertsOf(h).alerts[0]!.data.monitorId).toBe(id);
    expect(good.hits).toHaveLength(1);
    const okDetail = await detail((await deliveries(goodId))[0]!.id);
    expect(okDetail.history).toHaveLength(1);
  });

  it('hourly digest: three changes in an hour are one message on the hour, with three alerts', async () => {
    clock.set('2026-03-02T10:05:00.000Z');
    const hook = await receiver();
    const hourly = await channel(owner, { name: 'Hourly', url: hook.url, digest: 'hourly' });
    const id = await monitor(owner, 'hourly', { notify: ['change'], channels: [hourly] });
    await capture(owner, id); // baseline
    for (const variant of ['B', 'A', 'B'] as const) {
      pages.set('hourly', variant);
      clock.advance(60_000);
      await capture(owner, id);
    }
    const held = await deliveries(hourly);
    expect(held).toHaveLength(3);
    for (const d of held)
      expect(d).toMatchObject({
        status: 'pending',
        heldFor: 'digest',
        nextAttemptAt: '2026-03-02T11:00:00.000Z',
        attempts: 0,
      });
    clock.set('2026-03-02T10:59:59.000Z');
    await tenPolls();
    expect(hook.hits).toHaveLength(0);

    clock.set('2026-03-02T11:00:00.000Z');
    const [hit] = await hook.waitForHits(1);
    const digest = alertsOf(hit!);
    expect(digest.alerts.map((a) => a.type)).toEqual(['monitor.changed', 'monitor.changed', 'monitor.changed']);
    expect(new Set(digest.alerts.map((a) => a.data.captureId)).size).toBe(3);
    // oldest first
    const times = digest.alerts.map((a) => a.timestamp);
    expect([...times].sort()).toEqual(times);
    await until('each delivery of the digest recorded the one attempt', async () =>
      (await deliveries(hourly)).every((d) => d.status === 'succeeded' && d.attempts === 1),
    );
    await tenPolls();
    expect(hook.hits).toHaveLength(1);
  });

  it('daily digest at 09:00 in the monitor time zone (Asia/Tokyo)', async () => {
    clock.set('2026-03-03T01:00:00.000Z'); // 10:00 in Tokyo: today's 09:00 has passed
    const hook = await receiver();
    const daily = await channel(owner, { name: 'Daily', url: hook.url, digest: 'daily', digestAt: '09:00' });
    const id = await monitor(owner, 'tokyo', { notify: ['capture'], channels: [daily], timezone: 'Asia/Tokyo' });
    await capture(owner, id);
    const [d] = await deliveries(daily);
    expect(d).toMatchObject({
      eventType: 'capture.completed',
      heldFor: 'digest',
      nextAttemptAt: '2026-03-04T00:00:00.000Z', // 09:00 JST the next day
    });
    clock.set('2026-03-03T23:59:00.000Z');
    await tenPolls();
    expect(hook.hits).toHaveLength(0);
    clock.set('2026-03-04T00:00:00.000Z');
    const [hit] = await hook.waitForHits(1);
    expect(alertsOf(hit!).alerts.map((a) => a.data.monitorId)).toEqual([id]);
  });

  it('quiet hours hold alerts until they end, then release them together', async () => {
    clock.set('2026-03-04T23:30:00.000Z');
    const hook = await receiver();
    const quiet = await channel(owner, { name: 'Quiet', url: hook.url, quietHours: { start: '22:00', end: '07:00' } });
    const id = await monitor(owner, 'quiet', { notify: ['capture'], channels: [quiet] });
    await capture(owner, id);
    await capture(owner, id);
    const held = await deliveries(quiet);
    expect(held.map((d) => [d.heldFor, d.nextAttemptAt])).toEqual([
      ['quiet_hours', '2026-03-05T07:00:00.000Z'],
      ['quiet_hours', '2026-03-05T07:00:00.000Z'],
    ]);
    clock.set('2026-03-05T06:59:00.000Z');
    await tenPolls();
    expect(hook.hits).toHaveLength(0);
    clock.set('2026-03-05T07:00:00.000Z');
    const [hit] = await hook.waitForHits(1);
    expect(alertsOf(hit!).alerts).toHaveLength(2);
    // After quiet hours, an alert goes at once.
    await capture(owner, id);
    await hook.waitForHits(2);
    expect(alertsOf(hook.hits[1]!).alerts).toHaveLength(1);
  });

  it("default channels alert their key's monitors that list none, and never another key's", async () => {
    const hook = await receiver();
    const otherKey = svc.createKey('channel-deliveries-other').key;
    const fallback = await channel(owner, { name: 'Default', url: hook.url, default: true });
    const theirs = await monitor(otherKey, 'other-key', { notify: ['capture'] });
    await capture(otherKey, theirs);
    const mine = await monitor(owner, 'defaults', { notify: ['capture'] });
    await capture(owner, mine);
    const [hit] = await hook.waitForHits(1);
    expect(alertsOf(hit!).alerts[0]!.data.monitorId).toBe(mine);
    await tenPolls();
    expect(hook.hits).toHaveLength(1);
    expect((await deliveries(fallback)).map((d) => d.channelId)).toEqual([fallback]);
    const otherLog = await expectJson<{ items: DeliveryJson[] }>(
      await svc.call('GET', '/api/webhook-deliveries?limit=100', otherKey),
      200,
    );
    expect(otherLog.items).toEqual([]);
  });
});
