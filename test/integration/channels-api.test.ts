// Channels through the API (issue 28, "Channels"): create, read, change, delete and test a key's channels;
// every limit at and just over its edge; write-only parts sealed at rest and shown masked; a monitor's
// `channels` field checked against the key's channels; and key isolation — another key cannot see, change,
// test, attach or list deliveries of your channels (404s and 400s like other resources).
// Sending is through the real outbox to a loopback receiver (a `webhook` channel).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { expectJson } from '../helpers/monitor-runs.js';

interface ChannelJson {
  id: string;
  name: string;
  type: string;
  to?: string[];
  url?: string;
  token?: string;
  headers?: Record<string, string>;
  templates: Record<string, string>;
  digest: string;
  digestAt: string;
  quietHours?: { start: string; end: string };
  default: boolean;
  createdAt: string;
  updatedAt: string;
}
interface DeliveryJson {
  id: string;
  eventType: string;
  url: string;
  status: string;
  attempts: number;
  channelId?: string;
  channelType?: string;
  heldFor?: string;
}

let svc: TestService;
let receiver: WebhookReceiver;
let owner: string;
let other: string;
const MASK = '••••';

beforeAll(async () => {
  [svc, receiver] = await Promise.all([
    startTestService({
      jobs: { pollIntervalMs: 100 },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    }),
    startWebhookReceiver(),
  ]);
  owner = svc.createKey('channels-owner').key;
  other = svc.createKey('channels-other').key;
});
afterAll(async () => {
  await Promise.all([svc?.close(), receiver?.close()]);
});

const create = (body: Record<string, unknown>, key = owner) => svc.call('POST', '/api/channels', key, body);
const made = async (body: Record<string, unknown>, key = owner) =>
  expectJson<ChannelJson>(await create(body, key), 201);
const webhook = (over: Record<string, unknown> = {}) => ({
  name: 'Ops hook',
  type: 'webhook',
  url: `${receiver.url}/secret-path-123`,
  ...over,
});
/** The 400's details, as "path: message" lines. */
async function refused(res: Response): Promise<string[]> {
  expect(res.status).toBe(400);
  const error = await errorOf(res);
  expect(error.code).toBe('invalid_request');
  return (error.details ?? []).map((d) => `${d.path}: ${d.message}`);
}

describe('create, read, list', () => {
  it('creates a channel with its defaults and shows write-only parts masked', async () => {
    const res = await create(webhook({ headers: { 'X-Token': 'hdr-secret-456' } }));
    const c = await expectJson<ChannelJson>(res, 201);
    expect(res.headers.get('location')).toBe(`/api/channels/${c.id}`);
    expect(c.id).toMatch(/^chn_[0-9a-f]{20}$/);
    expect(c).toMatchObject({
      name: 'Ops hook',
      type: 'webhook',
      url: `${new URL(receiver.url).origin}/${MASK}`,
      headers: { 'X-Token': MASK },
      templates: {},
      digest: 'off',
      digestAt: '09:00',
      default: false,
    });
    expect(c).not.toHaveProperty('quietHours');
    expect(await expectJson(await svc.call('GET', `/api/channels/${c.id}`, owner), 200)).toEqual(c);
    // Sealed at rest: neither the url's path nor the header value is in the database in the clear.
    const row = svc.db.prepare('SELECT settings, secrets FROM channels WHERE id = ?').get(c.id) as Record<
      string,
      string
    >;
    expect(JSON.stringify(row)).not.toMatch(/secret-path-123|hdr-secret-456/);
    expect(row.secrets).toMatch(/^enc:v1:/);
  });

  it('an email channel shows its recipients; ntfy its token masked; the list is newest first', async () => {
    const key = svc.createKey('channels-list').key;
    const email = await made({ name: 'Mail', type: 'email', to: ['a@example.com', 'b@example.com'] }, key);
    expect(email.to).toEqual(['a@example.com', 'b@example.com']);
    expect(email).not.toHaveProperty('url');
    const ntfy = await made(
      { name: 'Phone', type: 'ntfy', url: 'http://127.0.0.1:9/alerts', token: 'tk_1', digest: 'hourly' },
      key,
    );
    expect([ntfy.token, ntfy.url, ntfy.digest]).toEqual([MASK, `http://127.0.0.1:9/${MASK}`, 'hourly']);
    const list = await expectJson<{ channels: ChannelJson[] }>(await svc.call('GET', '/api/channels', key), 200);
    expect(list.channels.map((c) => c.id)).toEqual([ntfy.id, email.id]);
  });
});

describe('validation, at and just over every edge', () => {
  it('needs what its type needs, and refuses what it does not take', async () => {
    expect(await refused(await create({ name: 'Mail', type: 'email' }))).toEqual([
      'to: an email channel needs its recipients',
    ]);
    expect(await refused(await create({ name: 'Chat', type: 'slack' }))).toEqual([
      'url: a slack channel needs its url',
    ]);
    expect(await refused(await create(webhook({ type: 'slack', token: 't' })))).toEqual([
      'token: only ntfy channels take a token',
    ]);
    expect(await refused(await create(webhook({ type: 'discord', headers: { A: 'b' } })))).toEqual([
      'headers: only webhook channels take headers',
    ]);
    expect(await refused(await create(webhook({ type: 'pager' })))).toHaveLength(1);
    expect((await refused(await create(webhook({ url: 'ftp://127.0.0.1/x' }))))[0]).toMatch(/^url: /);
    expect((await refused(await create(webhook({ extra: 1 }))))[0]).toMatch(/extra/);
    expect(
      await refused(await create({ name: 'Mail', type: 'email', to: ['a@example.com'], url: receiver.url })),
    ).toEqual(['url: an email channel has no url: it is sent by the SMTP settings']);
  });

  it('recipients: 1 to 20 addresses', async () => {
    const to = (n: number) => Array.from({ length: n }, (_, i) => `user${i}@example.com`);
    expect((await create({ name: 'M', type: 'email', to: to(20) })).status).toBe(201);
    expect((await refused(await create({ name: 'M', type: 'email', to: to(21) })))[0]).toMatch(/^to: /);
    expect((await refused(await create({ name: 'M', type: 'email', to: [] })))[0]).toMatch(/^to: /);
    expect((await refused(await create({ name: 'M', type: 'email', to: ['not-an-address'] })))[0]).toMatch(/^to\.0: /);
  });

  it('name: 1 to 200 characters; headers: at most 20', async () => {
    expect((await create(webhook({ name: 'n'.repeat(200) }))).status).toBe(201);
    expect((await refused(await create(webhook({ name: 'n'.repeat(201) }))))[0]).toMatch(/^name: /);
    expect((await refused(await create(webhook({ name: '  ' }))))[0]).toMatch(/^name: /);
    const headers = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`X-H${i}`, 'v']));
    expect((await create(webhook({ headers: headers(20) }))).status).toBe(201);
    expect(await refused(await create(webhook({ headers: headers(21) })))).toEqual(['headers: at most 20 headers']);
    expect((await refused(await create(webhook({ headers: { 'Bad Name': 'v' } }))))[0]).toMatch(/^headers\.Bad Name: /);
  });

  it('times of day: 00:00 to 23:59; quiet hours must not be empty', async () => {
    expect((await create(webhook({ digest: 'daily', digestAt: '23:59' }))).status).toBe(201);
    expect((await create(webhook({ digest: 'daily', digestAt: '00:00' }))).status).toBe(201);
    expect((await refused(await create(webhook({ digestAt: '24:00' }))))[0]).toMatch(/^digestAt: .*HH:MM/);
    expect((await refused(await create(webhook({ digestAt: '9:00' }))))[0]).toMatch(/^digestAt: /);
    expect((await refused(await create(webhook({ digest: 'weekly' }))))[0]).toMatch(/^digest: /);
    expect((await create(webhook({ quietHours: { start: '22:00', end: '07:00' } }))).status).toBe(201);
    expect(await refused(await create(webhook({ quietHours: { start: '22:00', end: '22:00' } })))).toEqual([
      'quietHours.end: start and end must differ',
    ]);
    expect((await refused(await create(webhook({ quietHours: { start: '22:60', end: '07:00' } }))))[0]).toMatch(
      /^quietHours\.start: /,
    );
  });

  it('a url the egress policy refuses is a 400 on the url field', async () => {
    expect(await refused(await create(webhook({ url: 'http://127.0.0.2:9/hook' })))).toEqual([
      'url: not allowed by the egress policy',
    ]);
  });

  it('a key has at most 100 channels (409 at the 101st)', async () => {
    const key = svc.createKey('channels-cap').key;
    for (let i = 0; i < 100; i++) expect((await create(webhook({ name: `c${i}` }), key)).status).toBe(201);
    const res = await create(webhook({ name: 'one too many' }), key);
    expect(res.status).toBe(409);
    expect((await errorOf(res)).message).toMatch(/100 channels/);
  });
});

describe('change and delete', () => {
  it('PATCH merges into the channel as shown: left-out and masked write-only values are kept', async () => {
    const c = await made(webhook({ headers: { 'X-Token': 'keep-me' } }));
    const renamed = await expectJson<ChannelJson>(
      await svc.call('PATCH', `/api/channels/${c.id}`, owner, {
        name: 'Renamed',
        quietHours: { start: '01:00', end: '02:00' },
      }),
      200,
    );
    expect(renamed).toMatchObject({ name: 'Renamed', url: c.url, headers: { 'X-Token': MASK } });
    // Sent back whole as shown (masks included): nothing changes but what was changed.
    const { id: _i, createdAt: _c, updatedAt: _u, ...shown } = renamed;
    const again = await expectJson<ChannelJson>(
      await svc.call('PATCH', `/api/channels/${c.id}`, owner, { ...shown, quietHours: null }),
      200,
    );
    expect(again).not.toHaveProperty('quietHours');
    // The kept url and header still send: the test message reaches the full url with the header.
    const before = receiver.hits.length;
    expect((await svc.call('POST', `/api/channels/${c.id}/test`, owner)).status).toBe(202);
    const hits = await receiver.waitForHits(before + 1);
    expect(hits.at(-1)!.headers['x-token']).toBe('keep-me');
    // A mask with nothing stored behind it, a type change: 400.
    expect(
      await refused(await svc.call('PATCH', `/api/channels/${c.id}`, owner, { headers: { 'X-Other': MASK } })),
    ).toEqual([
      'headers.X-Other: "••••" stands for a value already stored, and none is stored here: send the real value',
    ]);
    expect(await refused(await svc.call('PATCH', `/api/channels/${c.id}`, owner, { type: 'slack' }))).toEqual([
      'type: this channel is a webhook channel',
    ]);
    // A new url is checked by the egress policy.
    expect(
      await refused(await svc.call('PATCH', `/api/channels/${c.id}`, owner, { url: 'http://127.0.0.2:9/x' })),
    ).toEqual(['url: not allowed by the egress policy']);
  });

  it('DELETE removes it, and takes it out of the monitors that list it', async () => {
    const a = await made(webhook({ name: 'A' }));
    const b = await made(webhook({ name: 'B' }));
    const monitor = await expectJson<{ id: string; channels?: string[] }>(
      await svc.call('POST', '/api/monitors', owner, {
        url: 'http://127.0.0.1:9/page',
        schedule: '0 0 1 1 *',
        paused: true,
        channels: [a.id, b.id],
      }),
      201,
    );
    expect(monitor.channels).toEqual([a.id, b.id]);
    expect((await svc.call('DELETE', `/api/channels/${a.id}`, owner)).status).toBe(204);
    expect((await svc.call('GET', `/api/channels/${a.id}`, owner)).status).toBe(404);
    expect((await svc.call('DELETE', `/api/channels/${a.id}`, owner)).status).toBe(404);
    const after = await expectJson<{ channels?: string[] }>(
      await svc.call('GET', `/api/monitors/${monitor.id}`, owner),
      200,
    );
    expect(after.channels).toEqual([b.id]);
  });
});

describe("a monitor's channels", () => {
  const monitorBody = (channels: unknown) => ({
    url: 'http://127.0.0.1:9/page',
    schedule: '0 0 1 1 *',
    paused: true,
    channels,
  });

  it('lists channels of its key: unknown ids are named, at most 20, each once; null means the defaults', async () => {
    const c = await made(webhook());
    const res = await svc.call('POST', '/api/monitors', owner, monitorBody([c.id, 'chn_00000000000000000000']));
    expect(await refused(res)).toEqual(['channels.1: no channel chn_00000000000000000000']);
    expect((await refused(await svc.call('POST', '/api/monitors', owner, monitorBody([c.id, c.id]))))[0]).toMatch(
      /each channel at most once/,
    );
    const twenty = [c.id];
    for (let i = 1; i < 20; i++) twenty.push((await made(webhook({ name: `m${i}` }))).id);
    const m = await expectJson<{ id: string; channels?: string[] }>(
      await svc.call('POST', '/api/monitors', owner, monitorBody(twenty)),
      201,
    );
    expect(m.channels).toHaveLength(20);
    const extra = (await made(webhook({ name: 'm21' }))).id;
    expect((await refused(await svc.call('POST', '/api/monitors', owner, monitorBody([...twenty, extra]))))[0]).toMatch(
      /^channels: /,
    );
    const none = await expectJson<{ channels?: string[] }>(
      await svc.call('PATCH', `/api/monitors/${m.id}`, owner, { channels: [] }),
      200,
    );
    expect(none.channels).toEqual([]);
    const defaults = await expectJson<Record<string, unknown>>(
      await svc.call('PATCH', `/api/monitors/${m.id}`, owner, { channels: null }),
      200,
    );
    expect(defaults).not.toHaveProperty('channels');
  });
});

describe('test message', () => {
  it('POST /test sends channel.test at once through the outbox, whatever the digest and quiet hours', async () => {
    const c = await made(webhook({ name: 'Held', digest: 'daily', quietHours: { start: '00:00', end: '23:59' } }));
    const before = receiver.hits.length;
    const res = await svc.call('POST', `/api/channels/${c.id}/test`, owner);
    const d = await expectJson<DeliveryJson>(res, 202);
    expect(res.headers.get('location')).toBe(`/api/webhook-deliveries/${d.id}`);
    expect(d).toMatchObject({
      eventType: 'channel.test',
      channelId: c.id,
      channelType: 'webhook',
      url: c.url,
      status: 'pending',
    });
    expect(d).not.toHaveProperty('heldFor');
    const hit = (await receiver.waitForHits(before + 1)).at(-1)!;
    const body = JSON.parse(hit.body) as { alerts: { type: string; data: Record<string, unknown> }[] };
    expect(body.alerts).toHaveLength(1);
    expect(body.alerts[0]).toMatchObject({
      type: 'channel.test',
      data: { channelId: c.id, name: 'Held', test: true },
    });
    await until('the test delivery succeeded', async () => {
      const got = await expectJson<DeliveryJson>(await svc.call('GET', `/api/webhook-deliveries/${d.id}`, owner), 200);
      return got.status === 'succeeded' && got.attempts === 1;
    });
    const listed = await expectJson<{ items: DeliveryJson[] }>(
      await svc.call('GET', `/api/webhook-deliveries?channelId=${c.id}`, owner),
      200,
    );
    expect(listed.items.map((x) => x.id)).toEqual([d.id]);
    // Redeliver sends it again, the same alert, and the log counts the attempt.
    expect((await svc.call('POST', `/api/webhook-deliveries/${d.id}/redeliver`, owner)).status).toBe(202);
    const again = (await receiver.waitForHits(before + 2)).at(-1)!;
    expect((JSON.parse(again.body) as typeof body).alerts[0]!.data.channelId).toBe(c.id);
    await until('the redelivery recorded', async () => {
      const got = await expectJson<DeliveryJson>(await svc.call('GET', `/api/webhook-deliveries/${d.id}`, owner), 200);
      return got.status === 'succeeded' && got.attempts === 2;
    });
  });
});

describe('key isolation', () => {
  it('another key cannot see, change, delete, test, attach or list deliveries of your channel', async () => {
    const c = await made(webhook({ name: 'Mine' }));
    expect((await svc.call('POST', `/api/channels/${c.id}/test`, owner)).status).toBe(202);
    for (const [method, path, body] of [
      ['GET', `/api/channels/${c.id}`],
      ['PATCH', `/api/channels/${c.id}`, { name: 'taken' }],
      ['DELETE', `/api/channels/${c.id}`],
      ['POST', `/api/channels/${c.id}/test`],
    ] as const) {
      const res = await svc.call(method, path, other, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect((await errorOf(res)).code).toBe('not_found');
    }
    const list = await expectJson<{ channels: ChannelJson[] }>(await svc.call('GET', '/api/channels', other), 200);
    expect(list.channels.map((x) => x.id)).not.toContain(c.id);
    const attach = await svc.call('POST', '/api/monitors', other, {
      url: 'http://127.0.0.1:9/page',
      schedule: '0 0 1 1 *',
      paused: true,
      channels: [c.id],
    });
    expect(await refused(attach)).toEqual([`channels.0: no channel ${c.id}`]);
    const theirs = await expectJson<{ items: DeliveryJson[] }>(
      await svc.call('GET', `/api/webhook-deliveries?channelId=${c.id}`, other),
      200,
    );
    expect(theirs.items).toEqual([]);
    // Still the owner's, unchanged.
    expect((await expectJson<ChannelJson>(await svc.call('GET', `/api/channels/${c.id}`, owner), 200)).name).toBe(
      'Mine',
    );
  });
});
