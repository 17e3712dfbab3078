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
  alerts: { event: string; timestamp: string; data: Record<string, unknown> }[];
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
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><body><p>${name}: a watched page</p>${block}</body>`);
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
    expect(got.alerts[0]).toMatchObject({ event: 'monitor.changed', data: { monitorId: id, changed: true } });
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
    // Redeliver: due now on the service's clock, sent again with the same alert, the retries started over.
    expect((await svc.call('POST', `/api/webhook-deliveries/${failing!.id}/redeliver`, owner)).status).toBe(202);
    await bad.waitForHits(4);
    expect(alertsOf(bad.hits[3]!).alerts[0]!.data.monitorId).toBe(id);
    await until('the redelivery recorded', async () => (await detail(failing!.id)).attempts === 4);
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
    expect(digest.alerts.map((a) => a.event)).toEqual(['monitor.changed', 'monitor.changed', 'monitor.changed']);
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

  it('a digest that fails is retried as one message, and each of its deliveries logs both attempts', async () => {
    clock.set('2026-03-02T12:10:00.000Z');
    const hook = await receiver((res, _hit, index) => res.writeHead(index === 0 ? 503 : 204).end());
    const hourly = await channel(owner, { name: 'Hourly, flaky', url: hook.url, digest: 'hourly' });
    const id = await monitor(owner, 'hourly-flaky', { notify: ['capture'], channels: [hourly] });
    await capture(owner, id);
    await capture(owner, id);
    clock.set('2026-03-02T13:00:00.000Z');
    await hook.waitForHits(1);
    await until('the failed attempt recorded on both', async () =>
      (await deliveries(hourly)).every((d) => d.attempts === 1 && d.status === 'pending' && !d.heldFor),
    );
    const retryAt = (await deliveries(hourly)).map((d) => d.nextAttemptAt);
    expect(new Set(retryAt).size).toBe(1); // due together
    clock.advance(2000);
    const [, retry] = await hook.waitForHits(2);
    expect(alertsOf(retry!).alerts).toHaveLength(2);
    await until('both succeeded at the second attempt', async () =>
      (await deliveries(hourly)).every((d) => d.attempts === 2 && d.status === 'succeeded'),
    );
    for (const d of await deliveries(hourly))
      expect((await detail(d.id)).history!.map((a) => a.responseStatus)).toEqual([503, 204]);
    await tenPolls();
    expect(hook.hits).toHaveLength(2);
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

  it("410 Gone from a channel's receiver fails that channel's other pending deliveries, not another's", async () => {
    clock.set('2026-03-05T23:00:00.000Z');
    // Both channels on one origin, so both show the same masked url: a channel is stopped by its id.
    const posts = { gone: 0, twin: 0 };
    fx.route('/gone-hook', (_req, res) => {
      posts.gone++;
      res.writeHead(410).end();
    });
    fx.route('/twin-hook', (_req, res) => {
      posts.twin++;
      res.writeHead(204).end();
    });
    const quietHours = { start: '22:00', end: '07:00' };
    const goneId = await channel(owner, { name: 'Gone', url: `${fx.url}/gone-hook`, quietHours });
    const twinId = await channel(owner, { name: 'Twin', url: `${fx.url}/twin-hook`, quietHours });
    const id = await monitor(owner, 'gone', { notify: ['capture'], channels: [goneId, twinId] });
    await capture(owner, id); // held for both until 07:00
    expect((await deliveries(goneId))[0]).toMatchObject({ status: 'pending', heldFor: 'quiet_hours' });
    // The test message goes now, and is answered 410.
    expect((await svc.call('POST', `/api/channels/${goneId}/test`, owner)).status).toBe(202);
    const held = await until('the held delivery failed', async () => {
      const d = (await deliveries(goneId)).find((x) => x.eventType === 'capture.completed')!;
      return d.status === 'failed' && d;
    });
    expect(held.attempts).toBe(0);
    const [test] = (await deliveries(goneId)).filter((x) => x.eventType === 'channel.test');
    expect(test).toMatchObject({ status: 'failed', lastResponseStatus: 410 });
    // The other channel's delivery still waits for its release, and then goes.
    expect((await deliveries(twinId))[0]).toMatchObject({ status: 'pending', heldFor: 'quiet_hours' });
    clock.set('2026-03-06T07:00:00.000Z');
    await until('the twin channel was sent its alert', () => posts.twin === 1);
    await tenPolls();
    expect(posts).toEqual({ gone: 1, twin: 1 });
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
