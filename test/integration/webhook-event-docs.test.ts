// /docs shows an example body of every webhook event type (issue #14, point 3). The examples are made by the
// code that makes the real events, and this test holds them to it: it makes the service send each event
// for real (captures of a fixture page that changes and then fails, a test event, an async job that
// succeeds and one that fails), verifies each with the reference `standardwebhooks` package, and compares
// the keys of the example on /docs with the keys of the real body, nested objects and array items
// included. The page's node:crypto verification snippet is run on a real delivery too.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { VERIFY_CRYPTO } from '../helpers/docs-snippets.js';
import { EVENT_TYPES } from '../../src/webhooks/outbox.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type Hit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

let svc: TestService;
let fx: FixtureServer;
let hooks: WebhookReceiver;
let owner: { key: string; webhookSecret: string };
/** The real body of each event type, as the receiver got it. */
const real = new Map<string, { hit: Hit; body: Json }>();
let docsHtml: string;

const page = { price: '24.99', status: 200 };
const pageHtml = () => `<!doctype html><html><body style="margin:0;font:20px sans-serif">
  <h1>Plans</h1><p id="price">Price: $${page.price}</p>
  ${page.price === '24.99' ? '' : '<div style="width:200px;height:80px;background:#e5534b"></div>'}</body></html>`;

beforeAll(async () => {
  [svc, fx, hooks] = await Promise.all([
    startTestService({
      jobs: { pollIntervalMs: 100 },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    }),
    startFixtureServer(),
    startWebhookReceiver(),
  ]);
  owner = svc.createKey('event-docs');
  fx.route('/plans', (_req, res) => {
    res.writeHead(page.status, { 'content-type': 'text/html' }).end(pageHtml());
  });
  docsHtml = await (await fetch(`${svc.url}/docs`)).text();

  const created = await svc.call('POST', '/api/monitors', owner.key, {
    name: 'Plans',
    url: `${fx.url}/plans`,
    schedule: '0 0 1 1 *',
    capture: { viewport: { width: 400, height: 300 } },
    diff: { confirm: false },
    notify: ['change', 'failure', 'capture'],
    notifyWhen: [{ selector: '#price', numberBelow: 20 }],
    webhookUrl: hooks.url,
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  let expected = 0;
  /** Capture now, and wait for the events it sends (`events` of them). */
  const capture = async (events: number) => {
    expect((await svc.call('POST', `/api/monitors/${id}/run`, owner.key)).status).toBe(202);
    expected += events;
    await hooks.waitForHits(expected);
  };
  await capture(1); // the baseline: capture.completed without a baseline
  await capture(1); // unchanged: the capture.completed the docs show
  const unchanged = hooks.hits.at(-1)!;
  page.price = '19.99';
  await capture(2); // changed, and the rule newly met: monitor.changed and capture.completed
  page.status = 500;
  await capture(1); // capture.failed
  expect((await svc.call('POST', `/api/monitors/${id}/test-webhook`, owner.key)).status).toBe(202);
  expected += 1;
  await hooks.waitForHits(expected);

  // monitor.filter_missing: a filter that matches nothing, told after one capture (notify: failure only).
  const missing = await svc.call('POST', '/api/monitors', owner.key, {
    name: 'Plans, filtered',
    url: `${fx.url}/plans-ok-missing`,
    schedule: '0 0 1 1 *',
    capture: { viewport: { width: 400, height: 300 } },
    diff: { confirm: false, filters: [{ css: '#gone' }], filterMissingAfter: 1 },
    notify: ['failure'],
    webhookUrl: hooks.url,
  });
  expect(missing.status).toBe(201);
  fx.route('/plans-ok-missing', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Plans</h1>');
  });
  const missingId = ((await missing.json()) as { id: string }).id;
  expect((await svc.call('POST', `/api/monitors/${missingId}/run`, owner.key)).status).toBe(202);
  expected += 1;
  await hooks.waitForHits(expected);

  for (const [url, events] of [
    [`${fx.url}/plans-ok`, 1],
    [`${fx.url}/status/404`, 1],
  ] as const) {
    if (url.endsWith('plans-ok'))
      fx.route('/plans-ok', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Invoice</h1>');
      });
    const res = await svc.call('POST', '/api/pdf', owner.key, { url, async: true, webhookUrl: hooks.url });
    expect(res.status).toBe(202);
    expected += events;
    await hooks.waitForHits(expected);
  }

  // channel.test goes to a channel, not to a webhookUrl: here a JSON webhook channel, whose body carries the
  // event as alerts[0] (unsigned: a channel's message is not a signed webhook).
  const channelHook = await startWebhookReceiver();
  try {
    const channel = await svc.call('POST', '/api/channels', owner.key, {
      name: 'Docs',
      type: 'webhook',
      url: channelHook.url,
    });
    expect(channel.status).toBe(201);
    const channelId = ((await channel.json()) as { id: string }).id;
    expect((await svc.call('POST', `/api/channels/${channelId}/test`, owner.key)).status).toBe(202);
    const [hit] = await channelHook.waitForHits(1);
    const { alerts } = JSON.parse(hit!.body) as { alerts: Json[] };
    real.set('channel.test', { hit: hit!, body: alerts[0]! });
  } finally {
    await channelHook.close();
  }

  for (const hit of hooks.hits) {
    const event = verifyHit(owner.webhookSecret, hit); // throws unless signed with the key's secret
    // capture.completed: the unchanged capture's, the kind the docs show.
    if (event.type === 'capture.completed' && hit !== unchanged) continue;
    real.set(event.type, { hit, body: JSON.parse(hit.body) as Json });
  }
}, 120_000);
afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close(), hooks?.close()]);
});

const unescape = (text: string) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The example body /docs shows for `type`. */
function documented(type: string): Json {
  const pattern = new RegExp(`aria-label="Example ${type.replace('.', '\\.')} body"><code>([\\s\\S]*?)</code></pre>`);
  const match = pattern.exec(docsHtml);
  if (!match) throw new Error(`/docs shows no example body of ${type}`);
  return JSON.parse(unescape(match[1]!)) as Json;
}

/**
 * Where two bodies differ in shape: keys missing on either side, at every depth. Array items are merged (the
 * union of their keys); an empty array matches any array, since an example and a real event need not have
 * the same number of regions or text changes. Values themselves are not compared: they are examples.
 */
function shapeDifferences(doc: Json, got: Json, path = 'body'): string[] {
  if (Array.isArray(doc) && Array.isArray(got)) {
    if (!doc.length || !got.length) return [];
    const merge = (items: Json[]) =>
      items.every((i) => i !== null && typeof i === 'object' && !Array.isArray(i))
        ? (Object.assign({}, ...items) as Json)
        : items[0]!;
    return shapeDifferences(merge(doc), merge(got), `${path}[]`);
  }
  const isObject = (v: Json) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObject(doc) && isObject(got)) {
    const a = doc as Record<string, Json>;
    const b = got as Record<string, Json>;
    return [
      ...Object.keys(a)
        .filter((k) => !(k in b))
        .map((k) => `${path}.${k} is documented but not sent`),
      ...Object.keys(b)
        .filter((k) => !(k in a))
        .map((k) => `${path}.${k} is sent but not documented`),
      ...Object.keys(a)
        .filter((k) => k in b)
        .flatMap((k) => shapeDifferences(a[k]!, b[k]!, `${path}.${k}`)),
    ];
  }
  if (isObject(doc) !== isObject(got) || Array.isArray(doc) !== Array.isArray(got)) {
    // null stands for an absent object or list (a baseline has no baselineId, a failed job no result).
    if (doc === null || got === null) return [];
    return [`${path} is ${JSON.stringify(doc)?.slice(0, 20)} in the docs but ${JSON.stringify(got)?.slice(0, 20)}`];
  }
  return [];
}

it('every event type was sent for real, signed with the key secret', () => {
  expect([...real.keys()].sort()).toEqual([...EVENT_TYPES].sort());
});

it.each(EVENT_TYPES)('/docs shows an example %s body with the keys of the real one', (type) => {
  const doc = documented(type);
  const { body } = real.get(type)!;
  expect((doc as { type: string }).type).toBe(type);
  expect(shapeDifferences(doc, body)).toEqual([]);
});

it('the real monitor.changed carries the parts its example shows: a region with elements, a text change, a rule', () => {
  const data = (real.get('monitor.changed')!.body as { data: Record<string, Json[]> }).data;
  expect(data.regions!.length).toBeGreaterThan(0);
  expect(data.textChanges!.length).toBeGreaterThan(0);
  expect(data.conditions).toHaveLength(1);
});

it("the docs' node:crypto snippet accepts a real delivery and refuses a tampered one", () => {
  const source = VERIFY_CRYPTO.replace(/^import .*$/m, '');
  // The snippet is documentation text: it runs here exactly as a reader would paste it.
  type Verify = (secret: string, headers: Record<string, string>, body: string) => boolean;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- see above
  const load = new Function('createHmac', 'timingSafeEqual', `${source}\nreturn verify;`) as (
    hmac: typeof createHmac,
    equal: typeof timingSafeEqual,
  ) => Verify;
  const verify = load(createHmac, timingSafeEqual);
  const { hit } = real.get('monitor.test')!;
  // A fresh signature: the snippet refuses timestamps over 5 minutes old, and this one is seconds old.
  expect(verify(owner.webhookSecret, hit.headers, hit.body)).toBe(true);
  expect(verify(owner.webhookSecret, hit.headers, hit.body.replace('"test":true', '"test":false'))).toBe(false);
  const otherSecret = svc.createKey('other').webhookSecret;
  expect(verify(otherSecret, hit.headers, hit.body)).toBe(false);
});

it('lists the deliveries of every event type under the monitor or the job', async () => {
  await until(
    'every delivery to have succeeded',
    async () => {
      const res = await svc.call('GET', '/api/webhook-deliveries?limit=100', owner.key);
      const items = ((await res.json()) as { items: { eventType: string; status: string }[] }).items;
      // Every webhook POST, and the channel.test delivery to the channel.
      return items.length === hooks.hits.length + 1 && items.every((d) => d.status === 'succeeded');
    },
    10_000,
  );
});
