// notifyWhen (issue 11, "Conditions"): a monitor's rules are read from the page at each capture (real
// Chromium, a fixture shop page), recorded on the capture (`conditions`, `conditionErrors`,
// `conditionsMet`) and decide whether a detected change is told with monitor.changed: only when every
// rule holds and one of them has just become true. Webhooks are checked with the reference
// `standardwebhooks` package. Captures are driven by hand (POST /run) on monitors with a yearly schedule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RULES } from '../../src/http/schemas/conditions.js';
import { MAX_PROBE_TEXT } from '../../src/render/page-reads/probes.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

interface ConditionResult {
  index: number;
  selector: string;
  test: string;
  met: boolean;
  value: string | number | null;
}
interface CaptureJson {
  id: string;
  status: string;
  changed: boolean;
  baselineId: string | null;
  error?: { message: string };
  conditions: ConditionResult[];
  conditionErrors: string[];
  conditionsMet: boolean | null;
}
interface Key {
  id: string;
  key: string;
  webhookSecret: string;
}
type Event = ReturnType<typeof verifyHit>;

const YEARLY = '0 0 1 1 *';
const SETTINGS = {
  webhooks: { retryScheduleMs: [200, 200] },
  jobs: { pollIntervalMs: 100 },
  rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 }, // the tests poll often
};

/** What the fixture shop shows; each test's page has its own state. */
interface Shop {
  lang: string;
  price: string;
  priceLang?: string;
  stock: string;
  banner: boolean;
  extra?: string;
}

function shopHtml(s: Shop): string {
  const priceLang = s.priceLang ? ` lang="${s.priceLang}"` : '';
  return `<!doctype html><html lang="${s.lang}"><head><meta charset="utf-8"></head>
    <body style="margin:0;background:#fff;font:20px sans-serif;color:#222">
      ${s.banner ? '<div class="banner" style="background:#c00;color:#fff;padding:12px">Sale! 20% off</div>' : ''}
      <h1 style="margin:16px">Blue widget</h1>
      <p class="price" style="margin:16px;font-size:40px"${priceLang}>${s.price}</p>
      <p class="stock" style="margin:16px">${s.stock}</p>
      ${s.extra ?? ''}
    </body></html>`;
}

let svc: TestService;
let owner: Key;
let fx: FixtureServer;
let hooks: WebhookReceiver;

beforeAll(async () => {
  [svc, fx, hooks] = await Promise.all([startTestService(SETTINGS), startFixtureServer(), startWebhookReceiver()]);
  owner = svc.createKey('monitor-conditions');
});
afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close(), hooks?.close()]);
});

function shop(path: string, initial: Partial<Shop> = {}): { url: string; state: Shop } {
  const state: Shop = { lang: 'de', price: '24,99 €', stock: 'Ausverkauft', banner: false, ...initial };
  fx.route(path, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(shopHtml(state));
  });
  return { url: `${fx.url}${path}`, state };
}

async function createMonitor(body: Record<string, unknown>): Promise<{ id: string }> {
  const res = await svc.call('POST', '/api/monitors', owner.key, {
    schedule: YEARLY,
    capture: { viewport: { width: 480, height: 360 } },
    diff: { confirm: false },
    webhookUrl: hooks.url,
    notify: ['change', 'capture'],
    ...body,
  });
  if (res.status !== 201) throw new Error(`POST /api/monitors → ${res.status}: ${await res.text()}`);
  return (await res.json()) as { id: string };
}

async function capturesOf(monitorId: string): Promise<CaptureJson[]> {
  const res = await svc.call('GET', `/api/monitors/${monitorId}/captures?limit=100`, owner.key);
  if (res.status !== 200) throw new Error(`GET captures → ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { items: CaptureJson[] }).items;
}

/** Capture now and wait until the capture is recorded. */
async function captureNow(monitorId: string): Promise<CaptureJson> {
  const known = new Set((await capturesOf(monitorId)).map((c) => c.id));
  const res = await svc.call('POST', `/api/monitors/${monitorId}/run`, owner.key);
  if (res.status !== 202) throw new Error(`POST run → ${res.status}: ${await res.text()}`);
  const capture = await until(
    `a new capture of ${monitorId}`,
    async () => (await capturesOf(monitorId)).find((c) => !known.has(c.id)),
    60_000,
    100,
  );
  expect(capture.status, capture.error?.message).toBe('succeeded');
  return capture;
}

/** The verified webhook events received so far about one capture. */
function eventsOf(captureId: string): Event[] {
  return hooks.hits.map((hit) => verifyHit(owner.webhookSecret, hit)).filter((e) => e.data.captureId === captureId);
}

/**
 * The capture's events once its capture.completed has arrived. monitor.changed and capture.completed of
 * one capture are written to the outbox in the capture's own transaction and monitor.changed first, so
 * once capture.completed is here, a monitor.changed for that capture either exists or never will be
 * sent; the delivery log (written in that same transaction) is checked too, so the bound does not rest
 * on the dispatcher's order.
 */
async function settledEventsOf(monitorId: string, captureId: string): Promise<Event[]> {
  await until(
    `capture.completed for ${captureId}`,
    () => eventsOf(captureId).some((e) => e.type === 'capture.completed'),
    30_000,
  );
  const changedDeliveries = await monitorChangedDeliveries(monitorId);
  const events = eventsOf(captureId);
  const sent = events.filter((e) => e.type === 'monitor.changed').length;
  // Every monitor.changed of this monitor recorded so far has been delivered (none is waiting to be sent).
  await until(
    'the monitor.changed deliveries to arrive',
    () =>
      hooks.hits
        .map((hit) => verifyHit(owner.webhookSecret, hit))
        .filter((e) => e.type === 'monitor.changed' && e.data.monitorId === monitorId).length === changedDeliveries,
    30_000,
  );
  expect(eventsOf(captureId).filter((e) => e.type === 'monitor.changed').length).toBe(sent);
  return eventsOf(captureId);
}

async function monitorChangedDeliveries(monitorId: string): Promise<number> {
  const res = await svc.call('GET', `/api/webhook-deliveries?monitorId=${monitorId}&limit=100`, owner.key);
  if (res.status !== 200) throw new Error(`GET deliveries → ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { items: { eventType: string }[] }).items.filter(
    (d) => d.eventType === 'monitor.changed',
  ).length;
}

const types = (events: Event[]) => events.map((e) => e.type).sort();

describe('numberBelow: the price drops below 20 (German page, "24,99 €")', () => {
  let monitorId: string;
  let page: ReturnType<typeof shop>;
  const rules = [{ selector: '.price', numberBelow: 20 }];

  beforeAll(async () => {
    page = shop('/price-drop');
    monitorId = (await createMonitor({ url: page.url, notifyWhen: rules })).id;
  });

  it('the baseline records the rule as false, with the price read in German', async () => {
    const baseline = await captureNow(monitorId);
    expect(baseline.baselineId).toBeNull();
    expect(baseline.conditions).toEqual([
      { index: 0, path: '0', selector: '.price', test: 'numberBelow', met: false, value: 24.99 },
    ]);
    expect(baseline.conditionErrors).toEqual([]);
    expect(baseline.conditionsMet).toBe(false);
    expect(types(await settledEventsOf(monitorId, baseline.id))).toEqual(['capture.completed']);
  });

  it('24,99 → 19,99: the rule becomes true, so monitor.changed carries the conditions and conditionsMet true', async () => {
    page.state.price = '19,99 €';
    const capture = await captureNow(monitorId);
    expect(capture.changed).toBe(true);
    expect(capture.conditions).toEqual([
      { index: 0, path: '0', selector: '.price', test: 'numberBelow', met: true, value: 19.99 },
    ]);
    expect(capture.conditionsMet).toBe(true);
    const events = await settledEventsOf(monitorId, capture.id);
    expect(types(events)).toEqual(['capture.completed', 'monitor.changed']);
    const changed = events.find((e) => e.type === 'monitor.changed')!;
    expect(changed.data).toMatchObject({
      changed: true,
      conditionsMet: true,
      conditionErrors: [],
      conditions: capture.conditions,
    });
  });

  it('19,99 → 18,99: a change, but the rule was already true, so no monitor.changed', async () => {
    page.state.price = '18,99 €';
    const capture = await captureNow(monitorId);
    expect(capture.changed).toBe(true);
    expect(capture.conditions[0]).toMatchObject({ met: true, value: 18.99 });
    expect(capture.conditionsMet).toBe(false);
    const events = await settledEventsOf(monitorId, capture.id);
    expect(types(events)).toEqual(['capture.completed']);
    expect(events[0]!.data).toMatchObject({ changed: true, conditionsMet: false });
    expect(await monitorChangedDeliveries(monitorId)).toBe(1); // only the drop below 20
  });
});

describe('textContains "In stock"', () => {
  it('is told when the text appears (case-insensitive) and not before', async () => {
    const page = shop('/stock', { lang: 'en', price: '$24.99', stock: 'Sold out' });
    const { id } = await createMonitor({
      url: page.url,
      notifyWhen: [{ selector: '.stock', textContains: 'in STOCK' }],
    });
    const baseline = await captureNow(id);
    expect(baseline.conditions).toEqual([
      { index: 0, path: '0', selector: '.stock', test: 'textContains', met: false, value: 'Sold out' },
    ]);
    page.state.stock = 'In stock — ships today';
    const capture = await captureNow(id);
    expect(capture.conditions).toEqual([
      { index: 0, path: '0', selector: '.stock', test: 'textContains', met: true, value: 'In stock — ships today' },
    ]);
    expect(capture.conditionsMet).toBe(true);
    expect(types(await settledEventsOf(id, capture.id))).toEqual(['capture.completed', 'monitor.changed']);
  });
});

describe('appears / disappears: a sale banner', () => {
  it('appears: false without an error while nothing matches, then true when the banner shows', async () => {
    const page = shop('/banner-appears');
    const { id } = await createMonitor({ url: page.url, notifyWhen: [{ selector: '.banner', appears: true }] });
    const baseline = await captureNow(id);
    expect(baseline.conditions).toEqual([
      { index: 0, path: '0', selector: '.banner', test: 'appears', met: false, value: null },
    ]);
    expect(baseline.conditionErrors).toEqual([]);
    page.state.banner = true;
    const capture = await captureNow(id);
    expect(capture.conditions).toEqual([
      { index: 0, path: '0', selector: '.banner', test: 'appears', met: true, value: 'Sale! 20% off' },
    ]);
    expect(capture.conditionsMet).toBe(true);
    expect(types(await settledEventsOf(id, capture.id))).toEqual(['capture.completed', 'monitor.changed']);
  });

  it('disappears: false while the banner shows, true (without an error) once nothing matches', async () => {
    const page = shop('/banner-disappears', { banner: true });
    const { id } = await createMonitor({ url: page.url, notifyWhen: [{ selector: '.banner', disappears: true }] });
    const baseline = await captureNow(id);
    expect(baseline.conditions).toEqual([
      { index: 0, path: '0', selector: '.banner', test: 'disappears', met: false, value: 'Sale! 20% off' },
    ]);
    page.state.banner = false;
    const capture = await captureNow(id);
    expect(capture.conditions).toEqual([
      { index: 0, path: '0', selector: '.banner', test: 'disappears', met: true, value: null },
    ]);
    expect(capture.conditionErrors).toEqual([]);
    expect(capture.conditionsMet).toBe(true);
    expect(types(await settledEventsOf(id, capture.id))).toEqual(['capture.completed', 'monitor.changed']);
  });
});

describe('rules that already hold on the baseline', () => {
  it('are told with the first change, since nothing was told yet', async () => {
    const page = shop('/already-true', { banner: true });
    const { id } = await createMonitor({ url: page.url, notifyWhen: [{ selector: '.banner', appears: true }] });
    const baseline = await captureNow(id);
    expect(baseline).toMatchObject({ changed: false, conditionsMet: true });
    expect(types(await settledEventsOf(id, baseline.id))).toEqual(['capture.completed']); // a baseline is no change
    page.state.price = '19,99 €';
    const capture = await captureNow(id);
    expect(capture).toMatchObject({ changed: true, conditionsMet: true });
    expect(types(await settledEventsOf(id, capture.id))).toEqual(['capture.completed', 'monitor.changed']);
    page.state.price = '18,99 €';
    const later = await captureNow(id);
    expect(later).toMatchObject({ changed: true, conditionsMet: false });
    expect(types(await settledEventsOf(id, later.id))).toEqual(['capture.completed']);
  });
});

describe('rules that cannot be read', () => {
  it('a selector that matches nothing, an invalid one, a price without a number: false with conditionErrors, no monitor.changed', async () => {
    const page = shop('/broken-rules');
    const { id } = await createMonitor({
      url: page.url,
      notifyWhen: [
        { selector: '#no-such-element', textContains: 'x' },
        { selector: 'p[', disappears: true },
        { selector: '.stock', numberBelow: 5 },
        { selector: '.price', numberChanged: true },
      ],
    });
    await captureNow(id);
    page.state.price = '19,99 €';
    const capture = await captureNow(id);
    expect(capture.changed).toBe(true);
    expect(capture.conditions).toEqual([
      { index: 0, path: '0', selector: '#no-such-element', test: 'textContains', met: false, value: null },
      { index: 1, path: '1', selector: 'p[', test: 'disappears', met: false, value: null },
      { index: 2, path: '2', selector: '.stock', test: 'numberBelow', met: false, value: 'Ausverkauft' },
      { index: 3, path: '3', selector: '.price', test: 'numberChanged', met: true, value: 19.99 },
    ]);
    expect(capture.conditionErrors).toEqual([
      'notifyWhen[0] (#no-such-element): the selector matches nothing',
      'notifyWhen[1] (p[): not a valid CSS selector',
      "notifyWhen[2] (.stock): no number in the element's text",
    ]);
    expect(capture.conditionsMet).toBe(false);
    const events = await settledEventsOf(id, capture.id);
    expect(types(events)).toEqual(['capture.completed']);
    expect(events[0]!.data).toMatchObject({ conditionErrors: capture.conditionErrors, conditionsMet: false });
  });
});

describe('what the page says is read as the page says it, and bounded', () => {
  it('numbers use the closest lang attribute; a long text is cut at the limit; a lying page breaks only its own rules', async () => {
    const atLimit = 'a'.repeat(MAX_PROBE_TEXT);
    const page = shop('/lying', {
      lang: 'en',
      price: '1.299',
      priceLang: 'de-DE', // "1.299" in a German element: 1299, not 1.299
      extra: `<p id="at-limit">${atLimit}</p><p id="over-limit">${atLimit}b</p><p id="long-lang" lang="${'x'.repeat(100)}">1.299</p>
        <p id="liar">12</p><p id="trap">3</p>
        <script>
          // innerText of #liar is not a string; reading #trap throws inside the page.
          Object.defineProperty(document.getElementById('liar'), 'innerText', { get: () => ({ length: 1e9 }) });
          Object.defineProperty(document.getElementById('trap'), 'closest', { value: () => { throw new Error('no'); } });
        </script>`,
    });
    const rules = [
      { selector: '.price', numberAbove: 1000 },
      { selector: '#at-limit', textContains: 'a' },
      { selector: '#over-limit', textContains: 'b' },
      { selector: '#long-lang', numberAbove: 1000 }, // no usable lang: the shape of "1.299" says 1299
      { selector: '#liar', appears: true },
      { selector: '#trap', appears: true },
    ];
    const { id } = await createMonitor({ url: page.url, notifyWhen: rules });
    const capture = await captureNow(id);
    expect(capture.conditions.map((c) => [c.met, typeof c.value === 'string' ? c.value.length : c.value])).toEqual([
      [true, 1299],
      [true, MAX_PROBE_TEXT],
      [false, MAX_PROBE_TEXT],
      [true, 1299],
      [true, 0],
      [false, null],
    ]);
    expect(capture.conditionErrors).toEqual(["notifyWhen[5] (#trap): the page's script prevented reading the element"]);
  });
});

describe('limits and bad rules', () => {
  const page = () => `${fx.url}/limits`;
  const rule = (i: number) => ({ selector: `.r${i}`, appears: true });
  const post = (notifyWhen: unknown) =>
    svc.call('POST', '/api/monitors', owner.key, { url: page(), schedule: YEARLY, notifyWhen });
  const details = async (res: Response) => {
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; details: { path: string; message: string }[] } };
    expect(body.error.code).toBe('invalid_request');
    return body.error.details;
  };

  it(`accepts ${MAX_RULES} rules and refuses ${MAX_RULES + 1}`, async () => {
    const ok = await post(Array.from({ length: MAX_RULES }, (_, i) => rule(i)));
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { notifyWhen: unknown[] }).notifyWhen).toHaveLength(MAX_RULES);
    const over = await details(await post(Array.from({ length: MAX_RULES + 1 }, (_, i) => rule(i))));
    expect(over.map((d) => d.path)).toEqual(['notifyWhen']);
  });

  it('refuses a rule with two tests, naming the second; a rule without a test; an unknown field', async () => {
    const two = await details(await post([rule(0), { selector: '.price', numberBelow: 20, numberAbove: 10 }]));
    expect(two).toEqual([
      { path: 'notifyWhen.1.numberAbove', message: 'a rule takes exactly one test; this one already has numberBelow' },
    ]);
    const none = await details(await post([{ selector: '.price' }]));
    expect(none).toEqual([
      { path: 'notifyWhen.0', message: expect.stringContaining('a rule needs one test') as unknown },
    ]);
    const unknown = await details(await post([{ selector: '.price', numberBelow: 20, numberUnder: 5 }]));
    expect(unknown).toEqual([
      {
        path: 'notifyWhen.0.numberUnder',
        message: 'notifyWhen.0.numberUnder is not a field this request takes: check its spelling, or remove it.',
      },
    ]);
  });

  it('refuses wrong types per field', async () => {
    const bad = await details(
      await post([
        { selector: '', appears: true },
        { selector: '.a', numberBelow: '20' },
        { selector: '.a', appears: false },
        { selector: '.a', textContains: '   ' },
      ]),
    );
    expect(bad.map((d) => d.path)).toEqual([
      'notifyWhen.0.selector',
      'notifyWhen.1.numberBelow',
      'notifyWhen.2.appears',
      'notifyWhen.3.textContains',
    ]);
  });
});
