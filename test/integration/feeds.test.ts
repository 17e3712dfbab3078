// Feeds (issue 28, item 3), end to end: the real service (real Chromium, real SQLite) watching fixture pages
// the test changes between captures, and the Atom feed read without a key and parsed with a feed library
// (@rowanmanning/feed-parser); the crops its entries show decoded with pngjs. Rotation, revocation, a
// revoked key, another key, another monitor, malformed tokens and the limits are each tried.
import { parseFeed } from '@rowanmanning/feed-parser';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { at, doc, switchablePage, type Box } from '../helpers/monitors-diff-fixtures.js';
import { expectJson, monitorRuns } from '../helpers/monitor-runs.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';
import { SyncKeys } from '../helpers/sync-keys.js';

interface Capture {
  id: string;
  status: string;
  changed: boolean;
  takenAt: string;
  width: number;
  height: number;
  regions: Box[];
}
interface Monitor {
  id: string;
  name: string;
}
interface FeedView {
  id: string;
  scope: 'monitor' | 'tag' | 'key';
  monitorId?: string;
  tag?: string;
  createdAt: string;
  rotatedAt?: string;
}
type FeedCreated = FeedView & { url: string };

let svc: TestService;
let fx: FixtureServer;
let owner: { id: string; key: string };
let other: { id: string; key: string };

beforeAll(async () => {
  [svc, fx] = await Promise.all([
    startTestService({
      jobs: { pollIntervalMs: 100 },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    }),
    startFixtureServer(),
  ]);
  owner = svc.createKey('feeds-owner');
  other = svc.createKey('feeds-other');
});
afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close()]);
});

const { capture } = monitorRuns<Capture>(
  () => svc,
  () => owner.key,
);

const PRICE: Box = { x: 100, y: 300, width: 300, height: 30 };
const shop = (title: string, price: string) =>
  doc(
    `<h1 style="${at({ x: 100, y: 100, width: 700, height: 60 }, 'font:40px sans-serif')}">${title}</h1>` +
      `<p class="price" style="${at(PRICE, 'font:16px/30px sans-serif')}">Price: <strong>${price}</strong></p>`,
  );

const createMonitor = async (name: string, url: string, key = owner.key): Promise<Monitor> =>
  expectJson<Monitor>(
    await svc.call('POST', '/api/monitors', key, { name, url, schedule: '0 0 1 1 *', paused: true }),
    201,
  );
const createFeed = (body: unknown, key = owner.key) => svc.call('POST', '/api/feeds', key, body);
const listFeeds = async (key = owner.key) =>
  (await expectJson<{ feeds: FeedView[] }>(await svc.call('GET', '/api/feeds', key), 200)).feeds;
/** Read without any key, as a feed reader does. */
const read = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers });

async function readFeed(url: string) {
  const res = await read(url);
  const xml = await res.text();
  expect(res.status, xml.slice(0, 300)).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
  return parseFeed(xml);
}

/** The crop a feed serves is the region with 24 px of margin, clipped to the image, scaled to ≤ 600 px wide. */
function expectedCropSize(c: Capture): { width: number; height: number } {
  const r = c.regions[0]!;
  const x0 = Math.max(0, Math.floor(r.x) - 24);
  const y0 = Math.max(0, Math.floor(r.y) - 24);
  const x1 = Math.min(c.width, Math.ceil(r.x + r.width) + 24);
  const y1 = Math.min(c.height, Math.ceil(r.y + r.height) + 24, y0 + 1600);
  const scale = Math.min(1, 600 / (x1 - x0));
  return { width: Math.round((x1 - x0) * scale), height: Math.round((y1 - y0) * scale) };
}

describe('feeds of changes', () => {
  let kettle: Monitor;
  let toaster: Monitor;
  let kettleChange: Capture;
  let toasterChange: Capture;

  beforeAll(async () => {
    const kettlePage = switchablePage(fx, '/feeds/kettle', shop('Blue kettle', '$24.99'));
    const toasterPage = switchablePage(fx, '/feeds/toaster', shop('Red toaster', '$40.00'));
    kettle = await createMonitor('Kettle', kettlePage.url);
    toaster = await createMonitor('Toaster', toasterPage.url);
    await capture(kettle);
    await capture(toaster);
    kettlePage.set(shop('Blue kettle', '$19.99'));
    toasterPage.set(shop('Red toaster', '$35.00'));
    kettleChange = await capture(kettle);
    toasterChange = await capture(toaster);
    expect(kettleChange.changed).toBe(true);
    expect(toasterChange.changed).toBe(true);
    expect(kettleChange.regions.length).toBeGreaterThan(0);
  }, 120_000);

  it("a monitor's feed: made with its URL shown once, read without a key, parsed as Atom with the change", async () => {
    const created = await expectJson<FeedCreated>(await createFeed({ scope: 'monitor', monitorId: kettle.id }), 201);
    expect(created).toMatchObject({ scope: 'monitor', monitorId: kettle.id });
    expect(created.id).toMatch(/^fd_[0-9a-f]{16}$/);
    expect(created.url).toMatch(new RegExp(`^${svc.url}/feeds/[A-Za-z0-9_-]{43}$`));
    // The list never shows the URL (only a hash of the token is kept).
    const listed = (await listFeeds()).find((f) => f.id === created.id)!;
    expect(listed).toEqual({ id: created.id, scope: 'monitor', monitorId: kettle.id, createdAt: created.createdAt });
    expect(JSON.stringify(await listFeeds())).not.toContain(created.url.split('/').pop());

    const feed = await readFeed(created.url);
    expect(feed.meta.type).toBe('atom');
    expect(feed.title).toBe('Pagewatch: Kettle');
    expect(feed.items).toHaveLength(1); // the baseline is no change
    const [entry] = feed.items;
    expect(entry!.id).toBe(`urn:pagewatch:capture:${kettleChange.id}`);
    expect(entry!.title).toBe('Kettle: Changed');
    expect(entry!.url).toBe(`${svc.url}/monitors#/monitors/${kettle.id}/captures/${kettleChange.id}`);
    expect(entry!.updated?.getTime()).toBeGreaterThan(0);
    const content = entry!.content!;
    expect(content).toContain('Price: $24.99 → $19.99');
    expect(content).toMatch(/<del>[^<]*24\.99[^<]*<\/del>/);
    expect(content).toMatch(/<ins>[^<]*19\.99[^<]*<\/ins>/);

    // The crop: a PNG of the first region with its margin, fetched without a key.
    const src = /<img src="([^"]+)"/.exec(content)?.[1];
    expect(src).toBe(`${created.url}/crops/${kettleChange.id}.png`);
    const res = await read(src!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const png = PNG.sync.read(Buffer.from(await res.arrayBuffer()));
    expect({ width: png.width, height: png.height }).toEqual(expectedCropSize(kettleChange));
    expect(png.width).toBeLessThanOrEqual(600);
  });

  it('answers 304 to a reader that has the current version (ETag, Last-Modified), private to the reader', async () => {
    const { url } = await expectJson<FeedCreated>(await createFeed({ scope: 'monitor', monitorId: kettle.id }), 201);
    const first = await read(url);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const etag = first.headers.get('etag')!;
    const modified = first.headers.get('last-modified')!;
    expect(etag).toMatch(/^".+"$/);
    expect(new Date(modified).toISOString().slice(0, 19)).toBe(kettleChange.takenAt.slice(0, 19));
    // fetch adds "Cache-Control: no-cache" to a conditional request (the Fetch standard), which asks the
    // server for a full answer; a feed reader sends none: say so, as max-age=0.
    const revalidate = (h: Record<string, string>) => read(url, { 'cache-control': 'max-age=0', ...h });
    const notModified = await revalidate({ 'if-none-match': etag });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');
    expect((await revalidate({ 'if-modified-since': modified })).status).toBe(304);
    expect((await revalidate({ 'if-none-match': '"other"' })).status).toBe(200);
  });

  it("a key's feed has every monitor's changes, newest first; a monitor's feed only its own", async () => {
    const all = await expectJson<FeedCreated>(await createFeed({ scope: 'key' }), 201);
    const feed = await readFeed(all.url);
    expect(feed.title).toBe('Pagewatch: all monitors');
    expect(feed.items.map((i) => i.id)).toEqual([
      `urn:pagewatch:capture:${toasterChange.id}`,
      `urn:pagewatch:capture:${kettleChange.id}`,
    ]);
    const only = await expectJson<FeedCreated>(await createFeed({ scope: 'monitor', monitorId: toaster.id }), 201);
    expect((await readFeed(only.url)).items.map((i) => i.title)).toEqual(['Toaster: Changed']);
  });

  it("a crop of a capture outside the feed's scope (another monitor, a baseline, unknown) is 404", async () => {
    const { url } = await expectJson<FeedCreated>(await createFeed({ scope: 'monitor', monitorId: kettle.id }), 201);
    expect((await read(`${url}/crops/${toasterChange.id}.png`)).status).toBe(404);
    const baseline = (
      await expectJson<{ items: Capture[] }>(
        await svc.call('GET', `/api/monitors/${kettle.id}/captures?limit=5`, owner.key),
        200,
      )
    ).items.find((c) => !c.changed)!;
    expect((await read(`${url}/crops/${baseline.id}.png`)).status).toBe(404);
    expect((await read(`${url}/crops/cap_0000000000000000.png`)).status).toBe(404);
    expect((await read(`${url}/crops/${kettleChange.id}.jpg`)).status).toBe(404);
    expect((await read(`${url}/crops/${kettleChange.id}.png`)).status).toBe(200);
  });

  it('rotate: the old URL is 404 at once, the new one works; delete: 404', async () => {
    const made = await expectJson<FeedCreated>(await createFeed({ scope: 'monitor', monitorId: kettle.id }), 201);
    const rotated = await expectJson<FeedCreated>(
      await svc.call('POST', `/api/feeds/${made.id}/rotate`, owner.key),
      200,
    );
    expect(rotated.id).toBe(made.id);
    expect(rotated.url).not.toBe(made.url);
    expect(rotated.rotatedAt).toEqual(expect.any(String));
    const old = await read(made.url);
    expect(old.status).toBe(404);
    expect((await errorOf(old)).code).toBe('not_found');
    expect((await read(`${made.url}/crops/${kettleChange.id}.png`)).status).toBe(404);
    expect((await readFeed(rotated.url)).items).toHaveLength(1);
    expect((await listFeeds()).find((f) => f.id === made.id)?.rotatedAt).toBe(rotated.rotatedAt);

    expect((await svc.call('DELETE', `/api/feeds/${made.id}`, owner.key)).status).toBe(204);
    expect((await read(rotated.url)).status).toBe(404);
    expect((await read(`${rotated.url}/crops/${kettleChange.id}.png`)).status).toBe(404);
    expect((await svc.call('DELETE', `/api/feeds/${made.id}`, owner.key)).status).toBe(404);
    expect((await listFeeds()).some((f) => f.id === made.id)).toBe(false);
  });

  it('another key cannot list, rotate, delete, or make a feed of the owner’s monitor', async () => {
    const made = await expectJson<FeedCreated>(await createFeed({ scope: 'monitor', monitorId: kettle.id }), 201);
    expect(await listFeeds(other.key)).toEqual([]);
    const rotate = await svc.call('POST', `/api/feeds/${made.id}/rotate`, other.key);
    expect(rotate.status).toBe(404);
    expect((await errorOf(rotate)).code).toBe('not_found');
    expect((await svc.call('DELETE', `/api/feeds/${made.id}`, other.key)).status).toBe(404);
    const steal = await createFeed({ scope: 'monitor', monitorId: kettle.id }, other.key);
    expect(steal.status).toBe(400);
    expect((await errorOf(steal)).details).toEqual([
      { path: 'monitorId', message: `no monitor ${kettle.id} for this key` },
    ]);
    // The other key's own feed of everything is empty: none of the owner's changes.
    const theirs = await expectJson<FeedCreated>(await createFeed({ scope: 'key' }, other.key), 201);
    expect((await readFeed(theirs.url)).items).toEqual([]);
    expect((await read(`${theirs.url}/crops/${kettleChange.id}.png`)).status).toBe(404);
    // The owner's feed still works.
    expect((await read(made.url)).status).toBe(200);
    // /api/feeds needs a key.
    expect((await fetch(`${svc.url}/api/feeds`)).status).toBe(401);
  });

  it("a revoked key's feeds are 404", async () => {
    const doomed = svc.createKey('feeds-doomed');
    const monitor = await createMonitor('Doomed', `${fx.url}/feeds/kettle`, doomed.key);
    const made = await expectJson<FeedCreated>(
      await createFeed({ scope: 'monitor', monitorId: monitor.id }, doomed.key),
      201,
    );
    expect((await read(made.url)).status).toBe(200);
    expect(new SyncKeys(svc.db).revoke(doomed.id)).toBe(true);
    expect((await read(made.url)).status).toBe(404);
  });

  it("a deleted monitor's feeds go with it", async () => {
    const monitor = await createMonitor('Short-lived', `${fx.url}/feeds/kettle`);
    const made = await expectJson<FeedCreated>(await createFeed({ scope: 'monitor', monitorId: monitor.id }), 201);
    expect((await read(made.url)).status).toBe(200);
    expect((await svc.call('DELETE', `/api/monitors/${monitor.id}`, owner.key)).status).toBe(204);
    expect((await read(made.url)).status).toBe(404);
    expect((await listFeeds()).some((f) => f.id === made.id)).toBe(false);
  });

  it('malformed, unknown and hostile tokens are 404, never 500', async () => {
    const tokens = [
      'abc',
      'A'.repeat(42),
      'A'.repeat(43), // well formed, unknown
      'A'.repeat(44),
      'A'.repeat(5000),
      '%00',
      '..%2F..%2Fapi%2Ffeeds',
      "'%20OR%201=1--",
    ];
    for (const token of tokens) {
      const res = await read(`${svc.url}/feeds/${token}`);
      expect(res.status, token.slice(0, 50)).toBe(404);
      expect((await errorOf(res)).code).toBe('not_found');
      expect((await read(`${svc.url}/feeds/${token}/crops/${kettleChange.id}.png`)).status).toBe(404);
    }
  });

  // A tag's feed shows its monitors' changes, matched case-insensitively, and no other monitor's.
  it("a tag's feed shows only the changes of monitors with that tag", async () => {
    const page = switchablePage(fx, '/feeds/tagged', shop('Green kettle', '$10.00'));
    const tagged = await expectJson<Monitor>(
      await svc.call('POST', '/api/monitors', owner.key, {
        name: 'Tagged',
        url: page.url,
        schedule: '0 0 1 1 *',
        paused: true,
        tags: ['Kitchen'],
      }),
      201,
    );
    await capture(tagged);
    page.set(shop('Green kettle', '$12.00'));
    const change = await capture(tagged);
    const made = await expectJson<FeedCreated>(await createFeed({ scope: 'tag', tag: 'kitchen' }), 201);
    expect(made).toMatchObject({ scope: 'tag', tag: 'kitchen' });
    const feed = await readFeed(made.url);
    expect(feed.title).toBe('Pagewatch: monitors tagged kitchen');
    expect(feed.items.map((i) => i.id)).toEqual([`urn:pagewatch:capture:${change.id}`]);
    expect((await read(`${made.url}/crops/${kettleChange.id}.png`)).status).toBe(404);
  });
});

describe('POST /api/feeds validation and limits', () => {
  const details = async (res: Response) => {
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.code).toBe('invalid_request');
    return err.details!.map((d) => d.path);
  };

  it('names the field that is missing, extra or wrong', async () => {
    expect(await details(await createFeed({ scope: 'monitor' }))).toEqual(['monitorId']);
    expect(await details(await createFeed({ scope: 'tag' }))).toEqual(['tag']);
    expect(await details(await createFeed({ scope: 'key', tag: 'x' }))).toEqual(['tag']);
    expect(await details(await createFeed({ scope: 'tag', tag: 'x', monitorId: 'mon_1' }))).toEqual(['monitorId']);
    expect(await details(await createFeed({ scope: 'everything' }))).toEqual(['scope']);
    expect(await details(await createFeed({ scope: 'key', extra: 1 }))).toEqual(['extra']);
    expect(await details(await createFeed({ scope: 'monitor', monitorId: 'mon_nope' }))).toEqual(['monitorId']);
  });

  it('a tag is 1–40 characters of letters, digits, spaces and -_.:/ (trimmed)', async () => {
    const made = await expectJson<FeedCreated>(await createFeed({ scope: 'tag', tag: `  ${'t'.repeat(40)} ` }), 201);
    expect(made.tag).toBe('t'.repeat(40));
    expect(await details(await createFeed({ scope: 'tag', tag: 't'.repeat(41) }))).toEqual(['tag']);
    expect(await details(await createFeed({ scope: 'tag', tag: '   ' }))).toEqual(['tag']);
    expect(await details(await createFeed({ scope: 'tag', tag: 'a<b' }))).toEqual(['tag']);
    await expectJson(await createFeed({ scope: 'tag', tag: 'Café: rue/12_a-b.c' }), 201);
  });

  it('a key has at most 100 feeds: the 100th is made, the 101st is 409 conflict', async () => {
    const key = svc.createKey('feeds-cap');
    for (let i = 0; i < 100; i++) await expectJson(await createFeed({ scope: 'key' }, key.key), 201);
    const over = await createFeed({ scope: 'key' }, key.key);
    expect(over.status).toBe(409);
    expect((await errorOf(over)).code).toBe('conflict');
    expect(await listFeeds(key.key)).toHaveLength(100);
  });
});
