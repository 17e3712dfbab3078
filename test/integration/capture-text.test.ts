// GET /api/captures/{id}/text (issue 27): a capture's text blocks as compared, read back from the file
// kept beside its image, through the real service (real Chromium and SQLite) watching a fixture page.
// Owned like the image: another key's request, or an unknown id, is a 404; a failed capture has no text.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { captureNow } from '../helpers/capture-now.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';

interface Block {
  selector: string;
  tag: string;
  text: string;
  box: { x: number; y: number; width: number; height: number };
}

let svc: TestService;
let fx: FixtureServer;
let owner: string;
let other: string;

beforeAll(async () => {
  [svc, fx] = await Promise.all([
    startTestService({
      jobs: { pollIntervalMs: 100 },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    }),
    startFixtureServer(),
  ]);
  fx.route('/shop', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>
<style>body { margin: 0; font: 24px sans-serif; } h1, p { margin: 40px; }</style></head>
<body><h1>Blue kettle</h1><p class="price">Price: 24.99 EUR</p><p class="ad">Advert 123</p></body></html>`);
  });
  fx.route('/down', (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/html' });
    res.end('<p>down</p>');
  });
  owner = svc.createKey('capture-text-owner').key;
  other = svc.createKey('capture-text-other').key;
}, 60_000);
afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close()]);
});

async function monitorAt(path: string): Promise<string> {
  const res = await svc.call('POST', '/api/monitors', owner, {
    url: `${fx.url}${path}`,
    schedule: '0 0 1 1 *',
    paused: true,
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

it("answers the capture's text blocks, each with its selector, tag, text and box in image pixels", async () => {
  const capture = await captureNow(svc, owner, await monitorAt('/shop'));
  expect(capture.status).toBe('succeeded');
  const res = await svc.call('GET', `/api/captures/${capture.id}/text`, owner);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const { blocks } = (await res.json()) as { blocks: Block[] };
  expect(blocks.map((b) => b.text)).toEqual(['Blue kettle', 'Price: 24.99 EUR', 'Advert 123']);
  const price = blocks[1]!;
  expect(price).toMatchObject({ selector: 'p.price', tag: 'p' });
  expect(Object.keys(price).sort()).toEqual(['box', 'selector', 'tag', 'text']);
  // Inside the image, below the heading: real boxes, not placeholders.
  expect(price.box.y).toBeGreaterThan(blocks[0]!.box.y);
  expect(price.box.width).toBeGreaterThan(100);
  expect(price.box.x + price.box.width).toBeLessThanOrEqual(capture.width!);
});

it('is owned like the image: another key, an unknown id and a failed capture are 404', async () => {
  const capture = await captureNow(svc, owner, await monitorAt('/shop'));
  const stranger = await svc.call('GET', `/api/captures/${capture.id}/text`, other);
  expect(stranger.status).toBe(404);
  expect((await errorOf(stranger)).code).toBe('not_found');
  expect((await fetch(`${svc.url}/api/captures/${capture.id}/text`)).status).toBe(401);
  expect((await svc.call('GET', '/api/captures/cap_nothing/text', owner)).status).toBe(404);

  const failed = await captureNow(svc, owner, await monitorAt('/down'));
  expect(failed.status).toBe('failed');
  const none = await svc.call('GET', `/api/captures/${failed.id}/text`, owner);
  expect(none.status).toBe(404);
  expect((await errorOf(none)).message).toContain('has no text');
});
