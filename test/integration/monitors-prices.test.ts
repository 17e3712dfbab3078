// Prices and stock (issue 27): fixture product pages marked up each way a shop does it (JSON-LD,
// microdata, RDFa, OpenGraph, the monitor's own selectors), captured by real Chromium through the HTTP
// API; the capture's price, currency, availability and priceSource are read right, and the price rules,
// regex rules, while rules and all/any groups decide monitor.changed, verified with `standardwebhooks`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSONLD_SCRIPTS } from '../../src/render/page-reads/product.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

interface CaptureJson {
  id: string;
  status: string;
  changed: boolean;
  error?: { message: string };
  price?: number | null;
  currency?: string | null;
  availability?: string | null;
  priceSource?: string;
  conditions: { index: number; path: string; selector: string | null; test: string; met: boolean; value: unknown }[];
  conditionErrors: string[];
  conditionsMet: boolean | null;
}
type Event = ReturnType<typeof verifyHit>;

const YEARLY = '0 0 1 1 *';
const SETTINGS = {
  webhooks: { retryScheduleMs: [200, 200] },
  jobs: { pollIntervalMs: 100 },
  rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
};

let svc: TestService;
let owner: { key: string; webhookSecret: string };
let fx: FixtureServer;
let hooks: WebhookReceiver;

beforeAll(async () => {
  [svc, fx, hooks] = await Promise.all([startTestService(SETTINGS), startFixtureServer(), startWebhookReceiver()]);
  owner = svc.createKey('monitor-prices');
});
afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close(), hooks?.close()]);
});

/** A page whose html is rebuilt from its state at each request. */
function page<S>(path: string, state: S, html: (s: S) => string): { url: string; state: S } {
  fx.route(path, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(state));
  });
  return { url: `${fx.url}${path}`, state };
}

const body = (lang: string, head: string, content: string) =>
  `<!doctype html><html lang="${lang}"><head><meta charset="utf-8">${head}</head>
  <body style="margin:0;background:#fff;font:24px sans-serif;color:#222"><h1 style="margin:16px">Blue widget</h1>
  ${content}</body></html>`;

async function createMonitor(fields: Record<string, unknown>): Promise<string> {
  const res = await svc.call('POST', '/api/monitors', owner.key, {
    schedule: YEARLY,
    capture: { viewport: { width: 480, height: 320 } },
    webhookUrl: hooks.url,
    notify: ['change', 'capture'],
    ...fields,
    diff: { confirm: false, ...(fields.diff as object | undefined) },
  });
  if (res.status !== 201) throw new Error(`POST /api/monitors → ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

async function capturesOf(monitorId: string): Promise<CaptureJson[]> {
  const res = await svc.call('GET', `/api/monitors/${monitorId}/captures?limit=100`, owner.key);
  return ((await res.json()) as { items: CaptureJson[] }).items;
}

async function captureNow(monitorId: string): Promise<CaptureJson> {
  const known = new Set((await capturesOf(monitorId)).map((c) => c.id));
  expect((await svc.call('POST', `/api/monitors/${monitorId}/run`, owner.key)).status).toBe(202);
  const capture = await until(
    `a new capture of ${monitorId}`,
    async () => (await capturesOf(monitorId)).find((c) => !known.has(c.id)),
    60_000,
    100,
  );
  expect(capture.status, capture.error?.message).toBe('succeeded');
  return capture;
}

const eventsOf = (captureId: string): Event[] =>
  hooks.hits.map((hit) => verifyHit(owner.webhookSecret, hit)).filter((e) => e.data.captureId === captureId);

/**
 * The capture's events once its capture.completed arrived: monitor.changed is written to the outbox in the
 * same transaction and first, and every monitor.changed delivery of the monitor has arrived.
 */
async function settledTypes(monitorId: string, captureId: string): Promise<string[]> {
  await until('capture.completed', () => eventsOf(captureId).some((e) => e.type === 'capture.completed'), 30_000);
  const res = await svc.call('GET', `/api/webhook-deliveries?monitorId=${monitorId}&limit=100`, owner.key);
  const recorded = ((await res.json()) as { items: { eventType: string }[] }).items.filter(
    (d) => d.eventType === 'monitor.changed',
  ).length;
  await until(
    'the monitor.changed deliveries',
    () =>
      hooks.hits
        .map((hit) => verifyHit(owner.webhookSecret, hit))
        .filter((e) => e.type === 'monitor.changed' && e.data.monitorId === monitorId).length === recorded,
    30_000,
  );
  return eventsOf(captureId)
    .map((e) => e.type)
    .sort();
}

const product = (c: CaptureJson) => [c.price, c.currency, c.availability, c.priceSource];
const TOLD = ['capture.completed', 'monitor.changed'];
const NOT_TOLD = ['capture.completed'];

describe('JSON-LD (en-US, USD): priceDropsBy 10 % and priceBelow 20', () => {
  const shop = { price: '24.99' };
  let monitorId: string;
  let url: string;

  beforeAll(async () => {
    ({ url } = page('/jsonld', shop, (s) =>
      body(
        'en-US',
        `<script type="application/ld+json">${JSON.stringify({
          '@context': 'https://schema.org',
          '@type': 'Product',
          name: 'Blue widget',
          // No @type on the offer: common, and read because it is a Product's offers.
          offers: {
            price: s.price,
            priceCurrency: 'USD',
            availability: 'https://schema.org/InStock',
          },
        })}</script>`,
        `<p style="margin:16px;font-size:40px">$${s.price}</p>`,
      ),
    ));
    monitorId = await createMonitor({ url, notifyWhen: [{ priceDropsBy: { percent: 10 } }, { priceBelow: 20 }] });
  });

  it('reads the offer on the baseline; nothing is met yet', async () => {
    const baseline = await captureNow(monitorId);
    expect(product(baseline)).toEqual([24.99, 'USD', 'InStock', 'json-ld']);
    expect(baseline.conditions).toEqual([
      { index: 0, path: '0', selector: null, test: 'priceDropsBy', met: false, value: 24.99 },
      { index: 1, path: '1', selector: null, test: 'priceBelow', met: false, value: 24.99 },
    ]);
    expect(baseline.conditionsMet).toBe(false);
  });

  it('24.99 → 19.99: both rules fire, monitor.changed carries the price', async () => {
    shop.price = '19.99';
    const capture = await captureNow(monitorId);
    expect(capture).toMatchObject({ changed: true, conditionsMet: true, price: 19.99 });
    expect(capture.conditions.map((c) => c.met)).toEqual([true, true]);
    expect(await settledTypes(monitorId, capture.id)).toEqual(TOLD);
    const changed = eventsOf(capture.id).find((e) => e.type === 'monitor.changed')!;
    expect(changed.data).toMatchObject({
      price: 19.99,
      currency: 'USD',
      availability: 'InStock',
      priceSource: 'json-ld',
      conditionsMet: true,
    });
  });

  it('a further drop (19.99 → 17.49) fires again', async () => {
    shop.price = '17.49';
    const capture = await captureNow(monitorId);
    expect(capture).toMatchObject({ changed: true, conditionsMet: true, price: 17.49 });
    expect(await settledTypes(monitorId, capture.id)).toEqual(TOLD);
  });

  it('a rise (17.49 → 18.99) does not', async () => {
    shop.price = '18.99';
    const capture = await captureNow(monitorId);
    expect(capture).toMatchObject({ changed: true, conditionsMet: false, price: 18.99 });
    expect(capture.conditions.map((c) => c.met)).toEqual([false, true]);
    expect(await settledTypes(monitorId, capture.id)).toEqual(NOT_TOLD);
  });
});

describe('microdata (de-DE, "1.299,00 €"): backInStock', () => {
  it('reads the price from the text in German, and fires once when the stock comes back', async () => {
    const shop = { stock: 'OutOfStock', words: 'Ausverkauft', price: '1.299,00 €' };
    const { url } = page('/microdata', shop, (s) =>
      body(
        'de-DE',
        '',
        `<div itemscope itemtype="https://schema.org/Product"><div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
          <p itemprop="price" style="margin:16px">${s.price}</p><meta itemprop="priceCurrency" content="EUR">
          <link itemprop="availability" href="https://schema.org/${s.stock}"><p style="margin:16px">${s.words}</p></div></div>`,
      ),
    );
    const monitorId = await createMonitor({ url, notifyWhen: [{ backInStock: true }] });
    const baseline = await captureNow(monitorId);
    expect(product(baseline)).toEqual([1299, 'EUR', 'OutOfStock', 'microdata']);
    Object.assign(shop, { stock: 'InStock', words: 'Auf Lager' });
    const back = await captureNow(monitorId);
    expect(product(back)).toEqual([1299, 'EUR', 'InStock', 'microdata']);
    expect(back.conditions).toEqual([
      { index: 0, path: '0', selector: null, test: 'backInStock', met: true, value: 'InStock' },
    ]);
    expect(await settledTypes(monitorId, back.id)).toEqual(TOLD);
    shop.price = '1.199,00 €'; // a change, still in stock: not back again
    const later = await captureNow(monitorId);
    expect(later).toMatchObject({ changed: true, conditionsMet: false, price: 1199 });
    expect(await settledTypes(monitorId, later.id)).toEqual(NOT_TOLD);
  });
});

describe('each markup read right', () => {
  const cases: [string, string, unknown[]][] = [
    [
      'RDFa (GBP)',
      body(
        'en-GB',
        '',
        `<div vocab="https://schema.org/" typeof="Product"><div property="offers" typeof="Offer">
          <span property="price" content="899.00">Eight hundred and ninety-nine pounds</span><meta property="priceCurrency" content="GBP">
          <link property="availability" href="https://schema.org/LimitedAvailability"></div></div>`,
      ),
      [899, 'GBP', 'LimitedAvailability', 'rdfa'],
    ],
    [
      'OpenGraph (JPY, no decimals)',
      body(
        'ja-JP',
        `<meta property="og:type" content="product"><meta property="product:price:amount" content="12800">
         <meta property="product:price:currency" content="JPY"><meta property="product:availability" content="in stock">`,
        '<p>¥12,800</p>',
      ),
      [12800, 'JPY', 'InStock', 'opengraph'],
    ],
    [
      '@graph with an AggregateOffer (the lowest offer)',
      body(
        'en-US',
        `<script type="application/ld+json">${JSON.stringify({
          '@context': 'https://schema.org',
          '@graph': [
            { '@type': 'WebPage', name: 'Widgets' },
            {
              '@type': ['Product'],
              offers: {
                '@type': 'AggregateOffer',
                lowPrice: '15.50',
                highPrice: '30',
                priceCurrency: 'USD',
                offers: [
                  { '@type': 'Offer', price: '30.00', availability: 'http://schema.org/InStock' },
                  { '@type': 'Offer', price: 15.5, availability: 'http://schema.org/LimitedAvailability' },
                ],
              },
            },
          ],
        })}</script>`,
        '<p>From $15.50</p>',
      ),
      [15.5, 'USD', 'LimitedAvailability', 'json-ld'],
    ],
    [
      'no structured data: nothing read',
      body('en', '', '<p class="price">$5.00</p>'),
      [undefined, undefined, undefined, undefined],
    ],
  ];

  it.each(cases)('%s', async (name, html, expected) => {
    const { url } = page(`/markup-${encodeURIComponent(name)}`, {}, () => html);
    const capture = await captureNow(await createMonitor({ url }));
    expect(product(capture)).toEqual(expected);
  });

  it('the user\'s selectors on a page without structured data (de-CH, "CHF 1’299.50", "Nur noch 2 Stück")', async () => {
    const { url } = page('/selector-chf', {}, () =>
      body(
        'de-CH',
        '',
        '<p class="preis" style="margin:16px">CHF 1’299.50</p><p class="lager">Nur noch 2 Stück, auf Lager</p>',
      ),
    );
    const monitorId = await createMonitor({ url, diff: { priceSelector: '.preis', availabilitySelector: '.lager' } });
    expect(product(await captureNow(monitorId))).toEqual([1299.5, 'CHF', 'LimitedAvailability', 'selector']);
  });

  it('a lying page: JSON.parse redefined to return hostile values; they are refused and OpenGraph is used', async () => {
    const { url } = page('/lying-jsonld', {}, () =>
      body(
        'en',
        `<script>JSON.parse = () => ({ '@type': 'Offer', price: -5, priceCurrency: { length: 1e9 }, availability: 1 });</script>
         <script type="application/ld+json">{"@type":"Offer","price":"10.00","priceCurrency":"USD"}</script>
         <meta property="product:price:amount" content="12.00"><meta property="product:price:currency" content="EUR">`,
        '<p>€12.00</p>',
      ),
    );
    expect(product(await captureNow(await createMonitor({ url })))).toEqual([12, 'EUR', null, 'opengraph']);
  });

  it(`a 10 MB JSON-LD script is skipped, and only the first ${MAX_JSONLD_SCRIPTS} of 1000 scripts are read`, async () => {
    const huge = `{"@type":"Offer","price":"1.00","priceCurrency":"USD","pad":"${'x'.repeat(10_000_000)}"}`;
    const offer = (price: number) => `<script type="application/ld+json">{"@type":"Offer","price":${price}}</script>`;
    const scripts = Array.from({ length: 1000 }, (_, i) => offer(i < MAX_JSONLD_SCRIPTS ? 500 - i : 1));
    const { url } = page('/many-scripts', {}, () =>
      body('en', `<script type="application/ld+json">${huge}</script>${scripts.join('')}`, '<p>Widgets</p>'),
    );
    const started = Date.now();
    const capture = await captureNow(await createMonitor({ url }));
    // The huge script (price 1) is not read; scripts 2..50 are (the lowest, 500 - 48); the rest (price 1) are not.
    expect(product(capture)).toEqual([500 - (MAX_JSONLD_SCRIPTS - 2), null, null, 'json-ld']);
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});

describe('rules: textMatches with flags, while, any/all', () => {
  it('textMatches in an any group: the case-sensitive one fails, the default (ignore case) one fires', async () => {
    const shop = { note: 'Ships next month' };
    const { url } = page('/regex', shop, (s) => body('en', '', `<p class="note" style="margin:16px">${s.note}</p>`));
    const monitorId = await createMonitor({
      url,
      notifyWhen: [
        {
          any: [
            { selector: '.note', textMatches: 'SHIPS IN', flags: '' },
            { selector: '.note', textMatches: 'ships in \\d+ days' },
          ],
        },
      ],
    });
    expect((await captureNow(monitorId)).conditionsMet).toBe(false);
    shop.note = 'Ships in 3 days';
    const capture = await captureNow(monitorId);
    expect(capture.conditions.map((c) => [c.path, c.test, c.met])).toEqual([
      ['0.any.0', 'textMatches', false],
      ['0.any.1', 'textMatches', true],
    ]);
    expect(await settledTypes(monitorId, capture.id)).toEqual(TOLD);
  });

  it('while: the stock only has to hold; a price rule in an all group with an any of words', async () => {
    const shop = { price: '25.00', stock: 'In stock' };
    const { url } = page('/while', shop, (s) =>
      body(
        'en-US',
        `<meta property="product:price:amount" content="${s.price}"><meta property="product:price:currency" content="USD">`,
        `<p style="margin:16px">$${s.price}</p><p class="stock" style="margin:16px">${s.stock}</p>`,
      ),
    );
    const monitorId = await createMonitor({
      url,
      notifyWhen: [
        { selector: '.stock', textContains: 'in stock', while: true },
        {
          all: [
            { priceBelow: 20 },
            {
              any: [
                { selector: 'h1', textContains: 'widget' },
                { selector: 'h1', textContains: 'gadget' },
              ],
            },
          ],
        },
      ],
    });
    const steps: [Partial<typeof shop>, boolean][] = [
      [{}, false], // baseline: price above 20
      [{ price: '19.00', stock: 'Sold out' }, false], // the price rule became true, but the while rule does not hold
      [{ stock: 'In stock' }, false], // only the while rule became true: not news
      [{ price: '18.00' }, true], // a further drop below 20 while in stock
    ];
    for (const [change, told] of steps) {
      Object.assign(shop, change);
      const capture = await captureNow(monitorId);
      expect(capture.conditionsMet, JSON.stringify(change)).toBe(told);
      if (capture.changed) expect(await settledTypes(monitorId, capture.id)).toEqual(told ? TOLD : NOT_TOLD);
    }
    const last = (await capturesOf(monitorId))[0]!;
    expect(last.conditions.map((c) => [c.index, c.path, c.met])).toEqual([
      [0, '0', true],
      [1, '1.all.0', true],
      [2, '1.all.1.any.0', true],
      [3, '1.all.1.any.1', false],
    ]);
  });
});

describe('bad rules: 400 naming the field', () => {
  const post = (notifyWhen: unknown) =>
    svc.call('POST', '/api/monitors', owner.key, { url: `${fx.url}/x`, schedule: YEARLY, notifyWhen });
  const paths = async (notifyWhen: unknown) => {
    const res = await post(notifyWhen);
    expect(res.status).toBe(400);
    return ((await res.json()) as { error: { details: { path: string }[] } }).error.details.map((d) => d.path);
  };

  it('patterns, flags, priceOutside, selectors, depth, count', async () => {
    expect(await paths([{ priceBelow: 1 }, { any: [{ selector: 'p', textMatches: '(?<=a)b' }] }])).toEqual([
      'notifyWhen.1.any.0.textMatches',
    ]);
    expect(await paths([{ selector: 'p', textMatches: 'a', flags: 'x' }])).toEqual(['notifyWhen.0.flags']);
    expect(await paths([{ priceOutside: [5, 1] }])).toEqual(['notifyWhen.0.priceOutside']);
    expect(await paths([{ selector: '.p', priceBelow: 5 }])).toEqual(['notifyWhen.0.selector']);
    expect(await paths([{ all: [{ textNotMatches: 'x' }] }])).toEqual(['notifyWhen.0.all.0.selector']);
    expect(await paths([{ all: [{ any: [{ all: [{ any: [{ outOfStock: true }] }] }] }] }])).toEqual([
      'notifyWhen.0.all.0.any.0.all.0.any',
    ]);
    expect(await paths([{ any: Array.from({ length: 21 }, () => ({ backInStock: true })) }])).toEqual([
      'notifyWhen.0.any',
    ]);
    const deep = { all: [{ any: [{ all: [{ outOfStock: true }] }] }] };
    expect((await post([deep, { any: Array.from({ length: 19 }, (_, i) => ({ priceBelow: i + 1 })) }])).status).toBe(
      201,
    );
  });
});
