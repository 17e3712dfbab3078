// Text changes, elements behind regions, diff.mode, textSelector and ignoreText (issue 11), end to end:
// the real service (real Chromium, real SQLite, the diff and text threads running dist/ code) watching
// fixture pages the test changes between captures. Captures are driven by POST /run (paused monitors
// with a yearly schedule); monitor.changed webhooks are checked with the reference standardwebhooks library.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { at, doc, overlaps, switchablePage, within, type Box } from '../helpers/monitors-diff-fixtures.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';
import { expectJson, monitorRuns } from '../helpers/monitor-runs.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

interface RegionElement {
  selector: string;
  tag: string;
  before: string | null;
  after: string | null;
}
interface Region extends Box {
  pixels?: number;
  elements?: RegionElement[];
}
interface TextChange {
  kind: 'added' | 'removed' | 'changed';
  before: string | null;
  after: string | null;
  box: Box | null;
  selector: string | null;
  words?: { value: string; added?: true; removed?: true }[];
}
interface Capture {
  id: string;
  status: 'succeeded' | 'failed';
  changed: boolean;
  baselineId: string | null;
  regions: Region[];
  textChanges?: TextChange[];
  textChangesTotal?: number;
  summary?: string | null;
  error?: { code: string; message: string };
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
  owner = svc.createKey('monitors-text');
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

/** The monitor.changed events of one monitor received so far, verified. */
const changedEvents = (monitorId: string) =>
  hooks.hits
    .map((hit) => verifyHit(owner.webhookSecret, hit))
    .filter((e) => e.type === 'monitor.changed' && e.data.monitorId === monitorId);

// ---------------------------------------------------------------------------------------------------------

describe('a shop page whose price changes (default settings)', () => {
  const PRICE: Box = { x: 100, y: 300, width: 300, height: 30 };
  const shop = (price: string) =>
    doc(
      `<h1 style="${at({ x: 100, y: 100, width: 700, height: 60 }, 'font:40px sans-serif')}">Blue kettle</h1>` +
        `<p class="price" style="${at(PRICE, 'font:16px/30px sans-serif')}">Price: <strong>${price}</strong></p>` +
        `<p id="stock" style="${at({ x: 100, y: 400, width: 300, height: 30 }, 'font:16px/30px sans-serif')}">In stock</p>`,
    );

  it('gives a "changed" text change with words, box and selector, names the element behind the region, and the webhook says it in one line', async () => {
    const page = switchablePage(fx, '/shop', shop('$24.99'));
    const monitor = await createMonitor('shop', page.url, { webhookUrl: hooks.url });
    const baseline = await capture(monitor);
    expect(baseline).toMatchObject({ changed: false, textChanges: [], textChangesTotal: 0, summary: null });

    page.set(shop('$19.99'));
    const c = await capture(monitor);
    expect(c.changed).toBe(true);
    expect(c.summary).toBe('Price: $24.99 → $19.99');
    expect(c.textChangesTotal).toBe(1);
    expect(c.textChanges).toEqual([
      {
        kind: 'changed',
        before: 'Price: $24.99',
        after: 'Price: $19.99',
        box: PRICE,
        selector: 'p.price',
        words: [{ value: 'Price: $' }, { value: '24', removed: true }, { value: '19', added: true }, { value: '.99' }],
      },
    ]);

    // Every changed region lies over the price, and names it first, with its text on both sides.
    expect(c.regions.length).toBeGreaterThan(0);
    for (const region of c.regions) {
      expect(within(region, PRICE, 2), JSON.stringify(region)).toBe(true);
      expect(region.elements?.[0]).toEqual({
        selector: 'p.price',
        tag: 'p',
        before: 'Price: $24.99',
        after: 'Price: $19.99',
      });
    }

    const [event] = await until(
      'monitor.changed for the shop',
      () => {
        const e = changedEvents(monitor.id);
        return e.length ? e : undefined;
      },
      30_000,
      100,
    );
    expect(event!.data).toMatchObject({
      captureId: c.id,
      summary: 'Price: $24.99 → $19.99',
      textChanges: c.textChanges,
      textChangesTotal: 1,
    });
    expect((event!.data.regions as Region[])[0]!.elements?.[0]?.selector).toBe('p.price');
  });
});

describe('blocks added and removed', () => {
  it('a removed paragraph and an added one are listed in reading order', async () => {
    const page = switchablePage(fx, '/paras', doc('<p>Intro</p><p class="old">Old news here</p><p>Footer</p>'));
    const monitor = await createMonitor('paras', page.url, { diff: { mode: 'text', confirm: false } });
    await capture(monitor);
    page.set(doc('<p>Intro</p><p>Footer</p><p class="fresh">A brand new paragraph</p>'));
    const c = await capture(monitor);
    expect(c.changed).toBe(true);
    expect(c.textChangesTotal).toBe(2);
    expect(c.textChanges!.map(({ kind, before, after, selector }) => ({ kind, before, after, selector }))).toEqual([
      { kind: 'removed', before: 'Old news here', after: null, selector: 'p.old' },
      { kind: 'added', before: null, after: 'A brand new paragraph', selector: 'p.fresh' },
    ]);
    expect(c.textChanges![1]!.box).toMatchObject({ x: 0, width: 1280 }); // the added one's box in this capture
  });

  it('60 changed blocks: the capture keeps 50 with a total of 60, the webhook carries 10 and says "(+59 more)"', async () => {
    const rows = (v: string) =>
      doc(
        `<ul style="font:10px/12px sans-serif;margin:0">${Array.from({ length: 60 }, (_, i) => `<li>Row ${i} ${v}</li>`).join('')}</ul>`,
      );
    const page = switchablePage(fx, '/rows', rows('before'));
    const monitor = await createMonitor('rows', page.url, {
      diff: { mode: 'text', confirm: false },
      webhookUrl: hooks.url,
    });
    await capture(monitor);
    page.set(rows('after'));
    const c = await capture(monitor);
    expect(c).toMatchObject({ changed: true, textChangesTotal: 60 });
    expect(c.textChanges).toHaveLength(50);
    expect(c.textChanges![0]).toMatchObject({
      kind: 'changed',
      before: 'Row 0 before',
      after: 'Row 0 after',
      selector: 'body > ul > li:nth-of-type(1)',
    });
    expect(c.textChanges![49]).toMatchObject({ before: 'Row 49 before', after: 'Row 49 after' });
    const [event] = await until(
      'monitor.changed for rows',
      () => {
        const e = changedEvents(monitor.id);
        return e.length ? e : undefined;
      },
      30_000,
      100,
    );
    expect(event!.data.textChangesTotal).toBe(60);
    expect(event!.data.textChanges).toEqual(c.textChanges!.slice(0, 10));
    expect(event!.data.summary).toBe('Row 0 before → after (+59 more)');
  });
});

describe('a block that only moved', () => {
  const board = (order: string[], left: number) =>
    doc(
      order
        .map(
          (t, i) =>
            `<p id="${t.toLowerCase()}" style="${at({ x: left, y: 100 + i * 60, width: 400, height: 40 }, 'font:20px sans-serif')}">${t} item</p>`,
        )
        .join(''),
    );

  it('is not a text change: mode "text" reports nothing, while the pixels moved', async () => {
    const page = switchablePage(fx, '/moved', board(['Alpha', 'Beta', 'Gamma'], 100));
    const monitor = await createMonitor('moved', page.url, { diff: { mode: 'text', confirm: false } });
    await capture(monitor);
    page.set(board(['Gamma', 'Alpha', 'Beta'], 300)); // another order and another place
    const c = await capture(monitor);
    expect(c).toMatchObject({ changed: false, textChanges: [], textChangesTotal: 0 });
    expect(c.regions.length).toBeGreaterThan(0);
  });
});

describe('ignoreText', () => {
  const dated = (date: string) => doc(`<h1>Daily report</h1><p>Updated ${date}</p><p>Nothing else changes</p>`);

  it('blanks a date, so in mode "text" a new date is no change (and without it, the same page is one)', async () => {
    const page = switchablePage(fx, '/dated', dated('2026-11-23'));
    const ignoring = await createMonitor('dated, ignoring', page.url, {
      diff: { mode: 'text', confirm: false, ignoreText: ['\\d{4}-\\d{2}-\\d{2}'] },
    });
    const plain = await createMonitor('dated, plain', page.url, { diff: { mode: 'text', confirm: false } });
    await Promise.all([capture(ignoring), capture(plain)]);
    page.set(dated('2026-11-24'));
    const [quiet, loud] = [await capture(ignoring), await capture(plain)];
    expect(quiet).toMatchObject({ changed: false, textChanges: [], textChangesTotal: 0 });
    expect(quiet.regions.length).toBeGreaterThan(0); // the pixels did change: only the text decides
    expect(loud).toMatchObject({ changed: true, textChangesTotal: 1 });
    expect(loud.textChanges![0]).toMatchObject({ before: 'Updated 2026-11-23', after: 'Updated 2026-11-24' });
  });

  it("refuses bad patterns with 400 invalid_request and the pattern's path; takes 20 patterns of 500 characters", async () => {
    const create = (ignoreText: unknown) =>
      svc.call('POST', '/api/monitors', owner.key, {
        url: `${fx.url}/x`,
        schedule: '0 0 1 1 *',
        paused: true,
        diff: { ignoreText },
      });
    const refused = async (ignoreText: unknown, path: string, message: RegExp) => {
      const res = await create(ignoreText);
      expect(res.status).toBe(400);
      const err = await errorOf(res);
      expect(err.code).toBe('invalid_request');
      const detail = err.details?.find((d) => d.path === path);
      expect(detail, JSON.stringify(err.details)).toBeDefined();
      expect(detail!.message).toMatch(message);
    };
    const longest = `a{1}${'b'.repeat(496)}`; // 500 characters, a valid and safe pattern
    expect(longest).toHaveLength(500);
    expect((await create(Array.from({ length: 20 }, () => longest))).status).toBe(201);
    await refused(
      Array.from({ length: 21 }, () => 'x'),
      'diff.ignoreText',
      /20/,
    );
    await refused(['ok', `${longest}c`], 'diff.ignoreText.1', /500/);
    await refused(['ok', '\\d+(?= visitors)'], 'diff.ignoreText.1', /lookahead "\(\?=".*RE2/);
    await refused(['(a)\\1'], 'diff.ignoreText.0', /backreference/);
    await refused(['[unclosed'], 'diff.ignoreText.0', /not a valid regular expression/);
    await refused(['x*'], 'diff.ignoreText.0', /matches the empty string/);
    await refused([''], 'diff.ignoreText.0', /.+/);
    // A PATCH goes through the same rules.
    const monitor = await createMonitor('patched', `${fx.url}/x`);
    const res = await svc.call('PATCH', `/api/monitors/${monitor.id}`, owner.key, {
      diff: { ignoreText: ['(?<=\\$)\\d+'] },
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details?.map((d) => d.path)).toContain('diff.ignoreText.0');
  });
});

describe('ignoreText patterns that backtrack on V8', () => {
  // "(?:a?|b?){27}\b" blocked the event loop for 8-15 s when it was checked with V8's RegExp. On RE2 it is
  // checked in linear time: the create is answered, and /health answers meanwhile, each within 2 s.
  // Each method sends a pattern of its own: V8 keeps a pattern's compiled code by its source, and code it
  // has tiered up runs the same search about ten times faster, which would hide the second request's cost.
  const BOUND_MS = 2000;
  const PATTERNS: Record<string, string> = { POST: '(?:a?|b?){27}\\b', PATCH: '(?:c?|d?){27}\\b' };
  it.each(['POST', 'PATCH'])('%s answers promptly and /health answers while it is processed', async (method) => {
    const body = {
      url: `${fx.url}/x`,
      schedule: '0 0 1 1 *',
      paused: true,
      diff: { ignoreText: [PATTERNS[method]!] },
    };
    const path =
      method === 'POST' ? '/api/monitors' : `/api/monitors/${(await createMonitor('to patch', `${fx.url}/x`)).id}`;
    const started = performance.now();
    const timed = async (res: Promise<Response>) => {
      const r = await res;
      return { status: r.status, ms: performance.now() - started };
    };
    const [write, health] = await Promise.all([
      timed(svc.call(method, path, owner.key, method === 'POST' ? body : { diff: body.diff })),
      timed(fetch(`${svc.url}/health`)),
    ]);
    expect([200, 201, 400]).toContain(write.status);
    expect(health.status).toBe(200);
    expect(health.ms).toBeLessThan(BOUND_MS);
    expect(write.ms).toBeLessThan(BOUND_MS);
  });
});

describe('ignoreSelectors', () => {
  // A clock inside ignoreSelectors, even inline in a paragraph that is read, is left out of the text
  // as it is left out of the pixels: in every mode it is no change, and it takes no place in the summary.
  const clocked = (time: string, price: string) =>
    doc(
      `<h1>Status</h1><p>Updated at <span class="clock">${time}</span> today</p>` +
        `<p class="price">Price: ${price}</p>`,
    );

  it('leave their text out: a ticking clock is no text change in mode "text" and not the summary in "visual"', async () => {
    const page = switchablePage(fx, '/clocked', clocked('10:01', '$24.99'));
    const text = await createMonitor('clock, text mode', page.url, {
      diff: { mode: 'text', confirm: false, ignoreSelectors: ['.clock'] },
    });
    const visual = await createMonitor('clock, visual mode', page.url, {
      webhookUrl: hooks.url,
      diff: { confirm: false, ignoreSelectors: ['.clock'] },
    });
    await Promise.all([capture(text), capture(visual)]);
    page.set(clocked('10:02', '$24.99'));
    expect(await capture(text)).toMatchObject({ changed: false, textChanges: [], textChangesTotal: 0 });
    page.set(clocked('10:03', '$19.99'));
    const priced = await capture(visual);
    expect(priced).toMatchObject({ changed: true, textChangesTotal: 1 });
    expect(priced.textChanges![0]).toMatchObject({ kind: 'changed', before: 'Price: $24.99', after: 'Price: $19.99' });
    const event = await until('the monitor.changed webhook', () =>
      changedEvents(visual.id).find((e) => e.data.captureId === priced.id),
    );
    expect(event.data.summary).toBe('Price: $24.99 → $19.99');
  });
});

describe('textSelector', () => {
  const layout = (main: string, side: string) =>
    doc(`<main id="content"><h1>Offer</h1><p>${main}</p></main><aside><p>${side}</p></aside>`);

  it('compares only the text inside its element', async () => {
    const page = switchablePage(fx, '/sections', layout('Ten percent off', 'Visitors: 100'));
    const scoped = await createMonitor('scoped', page.url, {
      diff: { mode: 'text', confirm: false, textSelector: '#content' },
    });
    const whole = await createMonitor('whole page', page.url, { diff: { mode: 'text', confirm: false } });
    await Promise.all([capture(scoped), capture(whole)]);

    page.set(layout('Ten percent off', 'Visitors: 101'));
    expect(await capture(scoped)).toMatchObject({ changed: false, textChanges: [] });
    expect(await capture(whole)).toMatchObject({
      changed: true,
      textChanges: [{ before: 'Visitors: 100', after: 'Visitors: 101' }],
    });

    page.set(layout('Twenty percent off', 'Visitors: 101'));
    const c = await capture(scoped);
    expect(c).toMatchObject({
      changed: true,
      textChangesTotal: 1,
      textChanges: [{ kind: 'changed', before: 'Ten percent off', after: 'Twenty percent off' }],
    });
  });

  it('an invalid textSelector fails the capture and says why', async () => {
    const page = switchablePage(fx, '/bad-selector', layout('a', 'b'));
    const monitor = await createMonitor('bad selector', page.url, { diff: { textSelector: 'main[' } });
    const c = await captureAny(monitor);
    expect(c.status).toBe('failed');
    expect(c.error?.message).toContain('diff.textSelector: "main[" is not a valid CSS selector');
  });
});

describe('diff.mode', () => {
  const SWATCH: Box = { x: 300, y: 300, width: 200, height: 100 };
  // The text is white on white: it changes the text, not one pixel.
  const page = (colour: string, hidden: string) =>
    doc(
      `<p style="${at({ x: 100, y: 100, width: 400, height: 40 }, 'font:20px sans-serif')}">Same words every time</p>` +
        `<div id="swatch" style="${at(SWATCH, `background:${colour}`)}"></div>` +
        `<p style="${at({ x: 100, y: 600, width: 400, height: 40 }, 'font:20px sans-serif;color:#fff')}">${hidden}</p>`,
    );

  it('"text" ignores a colour change, "visual" reports it, "both" reports it and a text change the pixels do not show', async () => {
    const fixture = switchablePage(fx, '/modes', page('#0a0', 'hidden one'));
    const monitors = {
      text: await createMonitor('mode text', fixture.url, { diff: { mode: 'text', confirm: false } }),
      visual: await createMonitor('mode visual', fixture.url, { diff: { mode: 'visual', confirm: false } }),
      both: await createMonitor('mode both', fixture.url, { diff: { mode: 'both', confirm: false } }),
    };
    for (const m of Object.values(monitors)) await capture(m);

    fixture.set(page('#a00', 'hidden one')); // pixels only
    const colour = {
      text: await capture(monitors.text),
      visual: await capture(monitors.visual),
      both: await capture(monitors.both),
    };
    expect(colour.text).toMatchObject({ changed: false, textChanges: [] });
    expect(colour.text.regions.some((r) => overlaps(r, SWATCH))).toBe(true); // the change was seen, and did not count
    expect(colour.visual.changed).toBe(true);
    expect(colour.both.changed).toBe(true);
    expect(colour.visual.regions[0]!.elements?.[0]).toMatchObject({ selector: '#swatch', tag: 'div' });

    // New baselines are the red captures; now only the (invisible) text changes.
    fixture.set(page('#a00', 'hidden two'));
    const text = {
      text: await capture(monitors.text),
      visual: await capture(monitors.visual),
      both: await capture(monitors.both),
    };
    expect(text.visual).toMatchObject({ changed: false, regions: [] });
    expect(text.visual.textChanges).toMatchObject([{ before: 'hidden one', after: 'hidden two' }]); // text explains, but does not decide
    expect(text.text.changed).toBe(true);
    expect(text.both.changed).toBe(true);
  });
});

describe('a baseline whose text is unknown', () => {
  const page = () => doc('<h1>Stable heading</h1><p>Paragraph one</p>');

  it('a baseline taken before text was kept, or whose text file is unreadable, compares no text (not every block "added")', async () => {
    const fixture = switchablePage(fx, '/legacy', page());
    const monitor = await createMonitor('legacy', fixture.url, { diff: { mode: 'both', confirm: false } });
    const first = await capture(monitor);
    // As a capture stored before migration 0009: no text file.
    svc.db.prepare('UPDATE captures SET text_key = NULL WHERE id = ?').run(first.id);
    const second = await capture(monitor);
    expect(second).toMatchObject({ changed: false, baselineId: first.id, textChanges: [], textChangesTotal: 0 });
    // A text file that is not JSON (damaged): the same, rather than a capture that fails for good.
    const { text_key: textKey } = svc.db.prepare('SELECT text_key FROM captures WHERE id = ?').get(second.id) as {
      text_key: string;
    };
    writeFileSync(join(svc.dataDir, 'captures', textKey), '{not json');
    const third = await capture(monitor);
    expect(third).toMatchObject({ changed: false, baselineId: second.id, textChanges: [], textChangesTotal: 0 });
    // And the next one, against a baseline with text, compares again.
    fixture.set(doc('<h1>Stable heading</h1><p>Paragraph two</p>'));
    expect(await capture(monitor)).toMatchObject({
      changed: true,
      textChanges: [{ kind: 'changed', before: 'Paragraph one', after: 'Paragraph two' }],
    });
  });
});
