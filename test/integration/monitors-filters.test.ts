// diff.filters, ignoreText's case rule and filter_missing (issue 27), end to end: the real service (real
// Chromium, real SQLite, the diff, text and filter threads running dist/ code) watching fixture pages the
// test changes between captures. Captures are driven by POST /run (paused monitors with a yearly
// schedule); webhooks are checked with the reference standardwebhooks library.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { at, doc, switchablePage } from '../helpers/monitors-diff-fixtures.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';
import { expectJson, monitorRuns } from '../helpers/monitor-runs.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

interface TextChange {
  kind: 'added' | 'removed' | 'changed';
  before: string | null;
  after: string | null;
  selector: string | null;
}
interface Capture {
  id: string;
  status: 'succeeded' | 'failed' | 'suspect' | 'filter_missing';
  changed: boolean;
  baselineId: string | null;
  regions: unknown[];
  textChanges?: TextChange[];
  textChangesTotal?: number;
  imageUrl?: string;
  error?: { code: string; message: string } | null;
}
interface Monitor {
  id: string;
  name: string;
}

let svc: TestService;
let fx: FixtureServer;
let owner: { key: string; webhookSecret: string };
let hooks: WebhookReceiver;

beforeAll(async () => {
  [svc, fx, hooks] = await Promise.all([
    startTestService({
      jobs: { pollIntervalMs: 100 },
      webhooks: { retryScheduleMs: [200, 200] },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 }, // the tests poll often
    }),
    startFixtureServer(),
    startWebhookReceiver(),
  ]);
  owner = svc.createKey('monitors-filters');
});
afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close(), hooks?.close()]);
});

const json = expectJson;
const { captureAny, capture } = monitorRuns<Capture>(
  () => svc,
  () => owner.key,
);

const createMonitor = async (name: string, url: string, options: Record<string, unknown> = {}): Promise<Monitor> =>
  json<Monitor>(
    await svc.call('POST', '/api/monitors', owner.key, { name, url, schedule: '0 0 1 1 *', paused: true, ...options }),
    201,
  );

const events = (monitorId: string, type: string) =>
  hooks.hits
    .map((hit) => verifyHit(owner.webhookSecret, hit))
    .filter((e) => e.type === type && e.data.monitorId === monitorId);

const TEXT = { mode: 'text', confirm: false };
const brief = (c: Capture) => c.textChanges?.map(({ kind, before, after }) => ({ kind, before, after }));

// ---------------------------------------------------------------------------------------------------------

describe('css: every match', () => {
  // Three prices and, apart, a news line and a coloured box that change without mattering.
  const shop = (prices: string[], news: string, colour: string) =>
    doc(
      `<ul style="${at({ x: 20, y: 20, width: 300, height: 120 }, 'font:16px/30px sans-serif;list-style:none;padding:0')}">` +
        prices.map((p, i) => `<li class="price" id="p${i}">Price ${p}</li>`).join('') +
        `</ul>` +
        `<p id="news" style="${at({ x: 20, y: 300, width: 600, height: 30 }, 'font:16px/30px sans-serif')}">${news}</p>` +
        `<div style="${at({ x: 400, y: 20, width: 200, height: 200 }, `background:${colour}`)}"></div>`,
    );

  it('three prices: one changing is a change (text and visual); the rest of the page changing is not', async () => {
    const page = switchablePage(fx, '/css-prices', shop(['$10', '$20', '$30'], 'Today: sunny', 'red'));
    const filters = [{ css: '.price' }];
    const text = await createMonitor('css text', page.url, { diff: { ...TEXT, filters } });
    const visual = await createMonitor('css visual', page.url, { diff: { mode: 'visual', confirm: false, filters } });
    const plain = await createMonitor('css plain', page.url, { diff: { mode: 'visual', confirm: false } });
    await Promise.all([capture(text), capture(visual), capture(plain)]);

    page.set(shop(['$10', '$20', '$30'], 'Tomorrow: rain', 'blue'));
    const quiet = await capture(text);
    expect(quiet).toMatchObject({ changed: false, textChangesTotal: 0 });
    expect(await capture(visual)).toMatchObject({ changed: false, textChangesTotal: 0 });
    expect((await capture(plain)).changed).toBe(true); // the same page change, unfiltered, is one

    page.set(shop(['$10', '$20', '$35'], 'Tomorrow: rain', 'blue'));
    const changed = await capture(text);
    expect(changed).toMatchObject({ changed: true, baselineId: quiet.id, textChangesTotal: 1 });
    expect(changed.textChanges![0]).toMatchObject({ kind: 'changed', before: 'Price $30', after: 'Price $35' });
    expect(changed.textChanges![0]!.selector).toContain('p2');
    const seen = await capture(visual);
    expect(seen.changed).toBe(true);
    expect(seen.regions.length).toBeGreaterThan(0);
  });

  it('other filters start a new baseline', async () => {
    const page = switchablePage(fx, '/css-rebase', shop(['$1', '$2', '$3'], 'x', 'red'));
    const monitor = await createMonitor('rebase', page.url, { diff: { ...TEXT, filters: [{ css: '.price' }] } });
    await capture(monitor);
    expect((await capture(monitor)).baselineId).not.toBeNull();
    await json(
      await svc.call('PATCH', `/api/monitors/${monitor.id}`, owner.key, { diff: { filters: [{ css: '#news' }] } }),
      200,
    );
    expect(await capture(monitor)).toMatchObject({ baselineId: null, changed: false });
  });
});

describe('xpath and remove', () => {
  it('xpath: the text nodes it selects stand for their elements', async () => {
    const page = (stock: string, other: string) =>
      doc(`<div><span data-kind="stock">${stock}</span> <em>${other}</em></div><p>${other}</p>`);
    const site = switchablePage(fx, '/xpath', page('In stock', 'a'));
    const monitor = await createMonitor('xpath', site.url, {
      diff: { ...TEXT, filters: [{ xpath: '//span[@data-kind="stock"]/text()' }] },
    });
    await capture(monitor);
    site.set(page('In stock', 'b'));
    expect(await capture(monitor)).toMatchObject({ changed: false, textChangesTotal: 0 });
    site.set(page('Sold out', 'b'));
    const c = await capture(monitor);
    expect(c.changed).toBe(true);
    expect(brief(c)).toEqual([{ kind: 'changed', before: 'In stock', after: 'Sold out' }]);
  });

  it('an XPath the page cannot use (it does not select nodes) fails the capture, naming the filter', async () => {
    const site = switchablePage(fx, '/xpath-count', doc('<p>a</p>'));
    const monitor = await createMonitor('xpath count', site.url, {
      diff: { ...TEXT, filters: [{ xpath: 'count(//p)' }] },
    });
    const c = await captureAny(monitor);
    expect(c.status).toBe('failed');
    expect(c.error?.message).toContain('diff.filters[0] (xpath "count(//p)")');
  });

  it('remove: what it matches inside the kept part is left out', async () => {
    const page = (body: string, ad: string) =>
      doc(`<main id="main"><p>${body}</p><aside class="ad">${ad}</aside></main><footer>${ad}</footer>`);
    const site = switchablePage(fx, '/remove', page('Article', 'Buy now'));
    const monitor = await createMonitor('remove', site.url, {
      diff: { ...TEXT, filters: [{ css: '#main' }, { remove: '.ad' }] },
    });
    await capture(monitor);
    site.set(page('Article', 'Sale!'));
    expect(await capture(monitor)).toMatchObject({ changed: false, textChangesTotal: 0 });
    site.set(page('Article, updated', 'Sale!'));
    const c = await capture(monitor);
    expect(brief(c)).toEqual([{ kind: 'changed', before: 'Article', after: 'Article, updated' }]);
  });
});

describe('text filters', () => {
  it('extract with the "i" flag keeps only its capture group', async () => {
    const page = (total: string, time: string) => doc(`<p>TOTAL: ${total} (as of ${time})</p>`);
    const site = switchablePage(fx, '/extract', page('10', '09:00'));
    const monitor = await createMonitor('extract', site.url, {
      diff: { ...TEXT, filters: [{ extract: 'total: (\\d+)', flags: 'i' }] },
    });
    await capture(monitor);
    site.set(page('10', '10:00'));
    expect(await capture(monitor)).toMatchObject({ changed: false, textChangesTotal: 0 });
    site.set(page('11', '10:00'));
    expect(brief(await capture(monitor))).toEqual([{ kind: 'changed', before: '10', after: '11' }]);
  });

  // Each pair differs only in what the filter neutralises: no change with it, a change without it.
  it.each([
    // Lines long enough that the page is not "almost empty" (a suspect capture, never compared).
    ['unique', { unique: true }, '<p>apples</p><p>bananas</p>', '<p>apples</p><p>bananas</p><p>apples</p>'],
    ['ignoreCase', { ignoreCase: true }, '<p>Price: TEN</p>', '<p>price: ten</p>'],
    ['ignoreWhitespace', { ignoreWhitespace: true }, '<p>12 500 €</p>', '<p>12500 €</p>'],
  ])('%s', async (name, filter, before, after) => {
    const site = switchablePage(fx, `/pair-${name}`, doc(before));
    const filtered = await createMonitor(`${name} on`, site.url, { diff: { ...TEXT, filters: [filter] } });
    const unfiltered = await createMonitor(`${name} off`, site.url, { diff: TEXT });
    await Promise.all([capture(filtered), capture(unfiltered)]);
    site.set(doc(after));
    expect(await capture(filtered)).toMatchObject({ changed: false, textChangesTotal: 0 });
    expect((await capture(unfiltered)).changed).toBe(true);
  });
});

describe('ignoreText case', () => {
  const page = (line: string) => doc(`<h1>Report</h1><p>${line}</p>`);
  it('a plain pattern ignores case; {flags: ""} does not', async () => {
    const site = switchablePage(fx, '/ignore-case', page('Updated 09:00'));
    const plain = await createMonitor('ignore plain', site.url, {
      diff: { ...TEXT, ignoreText: ['updated \\d\\d:\\d\\d'] },
    });
    const exact = await createMonitor('ignore exact', site.url, {
      diff: { ...TEXT, ignoreText: [{ pattern: 'updated \\d\\d:\\d\\d', flags: '' }] },
    });
    await Promise.all([capture(plain), capture(exact)]);
    site.set(page('UPDATED 10:00'));
    expect(await capture(plain)).toMatchObject({ changed: false, textChangesTotal: 0 });
    expect(brief(await capture(exact))).toEqual([{ kind: 'changed', before: 'Updated 09:00', after: 'UPDATED 10:00' }]);
  });
});

describe('filter_missing', () => {
  const shop = (price: string | null) =>
    doc(`<h1>Kettle</h1>${price === null ? '<p>Temporarily unavailable</p>' : `<p class="price">${price}</p>`}`);

  it('a filter that matches nothing: filter_missing, not a change; 3 in a row send one monitor.filter_missing; then the last good baseline', async () => {
    const site = switchablePage(fx, '/missing', shop('$24.99'));
    const monitor = await createMonitor('missing', site.url, {
      webhookUrl: hooks.url,
      notify: ['change', 'failure', 'capture'],
      diff: { ...TEXT, filters: [{ css: 'h1' }, { remove: 'h1' }, { css: '.price' }] },
    });
    const baseline = await capture(monitor);

    site.set(shop(null));
    const missing: Capture[] = [];
    for (let i = 0; i < 4; i++) missing.push(await captureAny(monitor));
    for (const c of missing) {
      expect(c).toMatchObject({
        status: 'filter_missing',
        changed: false,
        baselineId: null,
        error: { code: 'filter_missing', message: 'diff.filters[2] (css ".price") matched nothing' },
      });
      expect(c.imageUrl).toMatch(/^http/);
    }
    const shown = await json<{ lastStatus: string }>(
      await svc.call('GET', `/api/monitors/${monitor.id}`, owner.key),
      200,
    );
    expect(shown.lastStatus).toBe('filter_missing');

    // The 4th capture's capture.completed comes after the 3rd's monitor.filter_missing was recorded.
    await until(
      'capture.completed of the 4th',
      () => events(monitor.id, 'capture.completed').some((e) => e.data.captureId === missing[3]!.id) || undefined,
    );
    const told = await until('monitor.filter_missing', () => {
      const e = events(monitor.id, 'monitor.filter_missing');
      return e.length ? e : undefined;
    });
    expect(told).toHaveLength(1);
    expect(told[0]!.data).toEqual({
      monitorId: monitor.id,
      captureId: missing[2]!.id,
      url: site.url,
      status: 'filter_missing',
      reason: 'manual',
      takenAt: (missing[2] as Capture & { takenAt: string }).takenAt,
      error: { code: 'filter_missing', message: 'diff.filters[2] (css ".price") matched nothing' },
      missingCount: 3,
    });

    site.set(shop('$19.99'));
    const back = await capture(monitor);
    expect(back).toMatchObject({ changed: true, baselineId: baseline.id });
    expect(brief(back)).toEqual([{ kind: 'changed', before: '$24.99', after: '$19.99' }]);
    expect(events(monitor.id, 'monitor.filter_missing')).toHaveLength(1);
  });

  it('with diff.textSelector, a match outside its element does not count', async () => {
    const site = switchablePage(
      fx,
      '/missing-scope',
      doc('<main id="main"><p>Story</p></main><p class="price">$5</p>'),
    );
    const monitor = await createMonitor('missing scope', site.url, {
      diff: { ...TEXT, textSelector: '#main', filters: [{ css: '.price' }] },
    });
    expect(await captureAny(monitor)).toMatchObject({
      status: 'filter_missing',
      error: { code: 'filter_missing', message: 'diff.filters[0] (css ".price") matched nothing' },
    });
  });

  it('an extract that matches nothing is filter_missing too', async () => {
    const site = switchablePage(fx, '/missing-extract', doc('<p>Total: 5</p>'));
    const monitor = await createMonitor('missing extract', site.url, {
      diff: { ...TEXT, filters: [{ extract: 'Total: \\d+' }] },
    });
    await capture(monitor);
    site.set(doc('<p>No total today</p>'));
    expect(await captureAny(monitor)).toMatchObject({
      status: 'filter_missing',
      changed: false,
      error: { code: 'filter_missing', message: 'diff.filters[0] (extract "Total: \\\\d+") matched nothing' },
    });
  });
});

describe('refused filters', () => {
  const create = (filters: unknown) =>
    svc.call('POST', '/api/monitors', owner.key, {
      url: `${fx.url}/x`,
      schedule: '0 0 1 1 *',
      paused: true,
      diff: { filters },
    });
  const refused = async (filters: unknown, path: string, message: RegExp) => {
    const res = await create(filters);
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.code).toBe('invalid_request');
    const detail = err.details?.find((d) => d.path === path);
    expect(detail, JSON.stringify(err.details)).toBeDefined();
    expect(detail!.message).toMatch(message);
  };

  it('a JSONPath, XPath or regex that does not compile is a 400 naming the filter', async () => {
    await refused([{ css: 'p' }, { jsonPath: '$.items[?(@.price <<)]' }], 'diff.filters.1.jsonPath', /JSONPath/);
    await refused([{ xpath: '//li[' }], 'diff.filters.0.xpath', /XPath/);
    await refused(
      [{ sort: true }, { sort: true }, { extract: '(unclosed' }],
      'diff.filters.2.extract',
      /regular expression/,
    );
  });

  it('20 filters are taken, 21 refused', async () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => ({ css: `.c${i}` }));
    expect((await create(list(20))).status).toBe(201);
    await refused(list(21), 'diff.filters', /20/);
  });
});
