// POST /api/monitors/{id}/test-webhook (issue #14, point 3): a monitor.test event queued through the same
// outbox and dispatcher as every other event. It reaches a real receiver signed with the key's secret
// (checked with the reference `standardwebhooks` package), is listed in the delivery log by monitorId, can
// be redelivered, obeys the egress policy at send time, and is refused clearly without a webhookUrl
// (409 conflict) and for another key's monitor (404). No capture is taken: the monitors are never run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';
import { sleep, until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

interface Delivery {
  id: string;
  eventType: string;
  url: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  lastResponseStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  webhookId: string;
  monitorId?: string;
  createdAt: string;
}
interface Key {
  id: string;
  key: string;
  webhookSecret: string;
}

const YEARLY = '0 0 1 1 *';
const SETTINGS = {
  webhooks: { retryScheduleMs: [200, 200] },
  jobs: { pollIntervalMs: 100 },
  rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
};

let svc: TestService;
let fx: FixtureServer;
let hooks: WebhookReceiver;
let owner: Key;
let other: Key;

beforeAll(async () => {
  [svc, fx, hooks] = await Promise.all([startTestService(SETTINGS), startFixtureServer(), startWebhookReceiver()]);
  owner = svc.createKey('owner');
  other = svc.createKey('other');
});
afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close(), hooks?.close()]);
});

async function createMonitor(body: Record<string, unknown>): Promise<{ id: string; name: string; url: string }> {
  const res = await svc.call('POST', '/api/monitors', owner.key, { url: `${fx.url}/page`, schedule: YEARLY, ...body });
  if (res.status !== 201) throw new Error(`POST /api/monitors → ${res.status}: ${await res.text()}`);
  return (await res.json()) as { id: string; name: string; url: string };
}

async function deliveriesOf(monitorId: string, key = owner.key): Promise<Delivery[]> {
  const res = await svc.call('GET', `/api/webhook-deliveries?monitorId=${monitorId}`, key);
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Delivery[] }).items;
}

const testWebhook = (monitorId: string, key = owner.key) =>
  svc.call('POST', `/api/monitors/${monitorId}/test-webhook`, key);

describe('a monitor with a webhookUrl', () => {
  let monitor: { id: string; name: string; url: string };
  let accepted: Delivery;
  let location: string | null;

  beforeAll(async () => {
    monitor = await createMonitor({ name: 'Test hook', webhookUrl: hooks.url, paused: true });
    const res = await testWebhook(monitor.id);
    expect(res.status).toBe(202);
    location = res.headers.get('location');
    accepted = (await res.json()) as Delivery;
  });

  it('answers 202 with the queued delivery of a monitor.test event, and its Location', () => {
    expect(accepted).toMatchObject({
      eventType: 'monitor.test',
      url: hooks.url,
      status: 'pending',
      attempts: 0,
      monitorId: monitor.id,
      webhookId: expect.stringMatching(/^msg_/) as unknown,
    });
    expect(accepted.id).toMatch(/^dlv_/);
    expect(location).toBe(`/api/webhook-deliveries/${accepted.id}`);
  });

  it('the event arrives signed with the key secret (standardwebhooks verifies it), even though the monitor is paused', async () => {
    const [hit] = await hooks.waitForHits(1);
    const event = verifyHit(owner.webhookSecret, hit!);
    expect(event.type).toBe('monitor.test');
    expect(event.data).toEqual({
      monitorId: monitor.id,
      name: 'Test hook',
      url: monitor.url,
      test: true,
      message: expect.stringContaining('no capture was taken') as unknown,
    });
    expect(hit!.headers['webhook-id']).toBe(accepted.webhookId);
    // Another key's secret does not verify it.
    expect(() => verifyHit(other.webhookSecret, hit!)).toThrow();
  });

  it('is listed in the delivery log by monitorId, succeeded with the receiver answer; no capture was taken', async () => {
    const [delivery] = await until(
      'the test delivery to succeed',
      async () => {
        const items = await deliveriesOf(monitor.id);
        return items.length === 1 && items[0]!.status === 'succeeded' && items;
      },
      10_000,
      100,
    );
    expect(delivery).toMatchObject({
      id: accepted.id,
      eventType: 'monitor.test',
      attempts: 1,
      lastResponseStatus: 204,
      nextAttemptAt: null,
    });
    const captures = await svc.call('GET', `/api/monitors/${monitor.id}/captures`, owner.key);
    expect(((await captures.json()) as { items: unknown[] }).items).toEqual([]);
  });

  it('redeliver sends the same event again, with the same webhook-id and body', async () => {
    const res = await svc.call('POST', `/api/webhook-deliveries/${accepted.id}/redeliver`, owner.key);
    expect(res.status).toBe(202);
    const [first, second] = await hooks.waitForHits(2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.body).toBe(first!.body);
    expect(verifyHit(owner.webhookSecret, second!).type).toBe('monitor.test');
  });

  it('another key sees neither the monitor (404) nor its deliveries; no key is 401', async () => {
    const res = await testWebhook(monitor.id, other.key);
    expect(res.status).toBe(404);
    expect((await errorOf(res)).code).toBe('not_found');
    expect(await deliveriesOf(monitor.id, other.key)).toEqual([]);
    expect((await fetch(`${svc.url}/api/monitors/${monitor.id}/test-webhook`, { method: 'POST' })).status).toBe(401);
    const unknown = await testWebhook('mon_00000000000000000000');
    expect(unknown.status).toBe(404);
  });
});

it('a monitor without a webhookUrl answers 409 conflict naming webhookUrl, and records no delivery', async () => {
  const monitor = await createMonitor({ name: 'No hook' });
  const res = await testWebhook(monitor.id);
  expect(res.status).toBe(409);
  const error = await errorOf(res);
  expect(error.code).toBe('conflict');
  expect(error.message).toContain('webhookUrl');
  expect(await deliveriesOf(monitor.id)).toEqual([]);
});

it('the egress policy applies at send time: a target it refuses fails the delivery unsent, without retries', async () => {
  const monitor = await createMonitor({ name: 'Blocked hook', webhookUrl: hooks.url });
  // The policy allows only 127.0.0.1 and localhost here; 127.0.0.2 is loopback, refused. The monitor was
  // created with an allowed URL (the API checks it), then the stored URL changes under it, as when an
  // operator tightens the policy after the monitor was made. Nothing listens there: a "sent" attempt
  // would fail with a network error, not with the policy's words.
  const refusedUrl = 'http://127.0.0.2:9/hook';
  svc.db.prepare('UPDATE monitors SET webhook_url = ? WHERE id = ?').run(refusedUrl, monitor.id);
  const res = await testWebhook(monitor.id);
  expect(res.status).toBe(202);
  const delivery = await until(
    'the refused delivery to fail',
    async () => (await deliveriesOf(monitor.id)).find((d) => d.status === 'failed'),
    10_000,
    100,
  );
  expect(delivery).toMatchObject({ url: refusedUrl, attempts: 1, nextAttemptAt: null, lastResponseStatus: null });
  expect(delivery.lastError).toBe('not sent: the address is not allowed by the egress policy');
  await sleep(600); // bound: the whole retry schedule (2 × 200 ms) and two dispatcher polls; no retry may come
  expect((await deliveriesOf(monitor.id))[0]!.attempts).toBe(1);
});
