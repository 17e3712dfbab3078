// Monitor tags and bulk actions through the real HTTP stack and SQLite: tags are validated at and over
// their limits and compared without case; the list filters by tag (LIKE's own characters taken literally)
// and /api/tags counts them; a bulk action on a tag or on ids pauses, resumes, runs (real captures by
// Chromium) or deletes exactly the key's monitors it names, and another key's ids are reported, untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TAG_CHARS, MAX_TAGS } from '../../src/domain/tags.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { expectJson } from '../helpers/monitor-runs.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

interface Monitor {
  id: string;
  name: string;
  paused: boolean;
  tags: string[];
}
interface Bulk {
  action: string;
  matched: number;
  done: string[];
  failed: { id: string; error: { code: string; message: string } }[];
}

let svc: TestService;
let fx: FixtureServer;
let key: string;
let other: string;

beforeAll(async () => {
  [svc, fx] = await Promise.all([startTestService({ jobs: { pollIntervalMs: 100 } }), startFixtureServer()]);
  fx.route('/page', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<h1>tagged</h1>');
  });
  key = svc.createKey('tags').key;
  other = svc.createKey('other').key;
});
afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close()]);
});

const create = async (k: string, name: string, tags?: unknown) =>
  expectJson<Monitor>(
    await svc.call('POST', '/api/monitors', k, {
      name,
      url: `${fx.url}/page`,
      schedule: '0 0 1 1 *',
      ...(tags !== undefined && { tags }),
    }),
    201,
  );
const list = async (k: string, query = '') =>
  (await expectJson<{ items: Monitor[] }>(await svc.call('GET', `/api/monitors${query}`, k), 200)).items;
const bulk = (k: string, body: unknown) => svc.call('POST', '/api/monitors/bulk', k, body);

describe('tags', () => {
  it('default to none; are trimmed and kept as written; PATCH replaces them', async () => {
    const plain = await create(key, 'plain');
    expect(plain.tags).toEqual([]);
    const m = await create(key, 'tagged', [' News ', 'eu/west']);
    expect(m.tags).toEqual(['News', 'eu/west']);
    const patched = await expectJson<Monitor>(
      await svc.call('PATCH', `/api/monitors/${m.id}`, key, { tags: ['x'] }),
      200,
    );
    expect(patched.tags).toEqual(['x']);
    await svc.call('DELETE', `/api/monitors/${m.id}`, key);
    await svc.call('DELETE', `/api/monitors/${plain.id}`, key);
  });

  it('are refused past their limits, with bad characters, and when one repeats without case', async () => {
    const refused = async (tags: unknown, path: string) => {
      const res = await svc.call('POST', '/api/monitors', key, { url: `${fx.url}/page`, schedule: '0 0 1 1 *', tags });
      expect(res.status).toBe(400);
      const error = await errorOf(res);
      expect(error.details?.map((d) => d.path)).toContain(path);
      return error;
    };
    const many = Array.from({ length: MAX_TAGS }, (_, i) => `t${i}`);
    const atLimit = await create(key, 'at the limits', [...many.slice(1), 'a'.repeat(MAX_TAG_CHARS)]);
    expect(atLimit.tags).toHaveLength(MAX_TAGS);
    await svc.call('DELETE', `/api/monitors/${atLimit.id}`, key);
    await refused([...many, 'one more'], 'tags');
    await refused(['a'.repeat(MAX_TAG_CHARS + 1)], 'tags.0');
    await refused(['   '], 'tags.0');
    await refused(['a,b'], 'tags.0');
    await refused(['<script>'], 'tags.0');
    const dup = await refused(['News', 'news'], 'tags.1');
    expect(dup.details?.find((d) => d.path === 'tags.1')?.message).toMatch(/already a tag/);
  });

  it('filter the list without case, take _ literally, and are counted by /api/tags', async () => {
    const a = await create(key, 'a', ['Shop', 'sale_1']);
    const b = await create(key, 'b', ['shop']);
    const c = await create(key, 'c', ['sale11', 'blog']);
    const theirs = await create(other, 'theirs', ['shop']);
    expect((await list(key, '?tag=SHOP')).map((m) => m.id).sort()).toEqual([a.id, b.id].sort());
    // "_" is a wildcard to LIKE: sale_1 must not match sale11.
    expect((await list(key, '?tag=sale_1')).map((m) => m.id)).toEqual([a.id]);
    expect((await svc.call('GET', '/api/monitors?tag=sale%25', key)).status).toBe(400); // % is no tag character
    expect(await list(key, '?tag=sho')).toEqual([]);
    // Paging goes on inside the filter.
    const first = await expectJson<{ items: Monitor[]; nextCursor?: string }>(
      await svc.call('GET', '/api/monitors?tag=shop&limit=1', key),
      200,
    );
    expect(first.items).toHaveLength(1);
    const second = await expectJson<{ items: Monitor[] }>(
      await svc.call('GET', `/api/monitors?tag=shop&limit=1&cursor=${first.nextCursor}`, key),
      200,
    );
    expect([...first.items, ...second.items].map((m) => m.id).sort()).toEqual([a.id, b.id].sort());
    expect((await svc.call('GET', `/api/monitors?tag=${'x'.repeat(MAX_TAG_CHARS + 1)}`, key)).status).toBe(400);
    const tags = await expectJson<{ tags: { tag: string; monitors: number }[] }>(
      await svc.call('GET', '/api/tags', key),
      200,
    );
    expect(tags.tags).toEqual([
      { tag: 'blog', monitors: 1 },
      { tag: 'sale11', monitors: 1 }, // by code point, without case: '1' sorts before '_'
      { tag: 'sale_1', monitors: 1 },
      { tag: 'Shop', monitors: 2 },
    ]);
    for (const m of [a, b, c]) await svc.call('DELETE', `/api/monitors/${m.id}`, key);
    await svc.call('DELETE', `/api/monitors/${theirs.id}`, other);
  });
});

describe('bulk actions', () => {
  it('pause, resume, run and delete every monitor of a tag, and only those', async () => {
    const [one, two, untagged] = [
      await create(key, 'one', ['batch']),
      await create(key, 'two', ['Batch']),
      await create(key, 'untagged'),
    ];
    const theirs = await create(other, 'their batch', ['batch']);
    const ours = [one.id, two.id].sort();

    const paused = await expectJson<Bulk>(await bulk(key, { action: 'pause', tag: 'batch' }), 200);
    expect(paused).toMatchObject({ action: 'pause', matched: 2, failed: [] });
    expect(paused.done.sort()).toEqual(ours);
    const states = async (k: string) => Object.fromEntries((await list(k)).map((m) => [m.id, m.paused]));
    expect(await states(key)).toMatchObject({ [one.id]: true, [two.id]: true, [untagged.id]: false });
    expect((await states(other))[theirs.id]).toBe(false);

    const resumed = await expectJson<Bulk>(await bulk(key, { action: 'resume', tag: 'BATCH' }), 200);
    expect(resumed.done.sort()).toEqual(ours);
    expect(await states(key)).toMatchObject({ [one.id]: false, [two.id]: false });

    const ran = await expectJson<Bulk>(await bulk(key, { action: 'run', tag: 'batch' }), 200);
    expect(ran.done.sort()).toEqual(ours);
    for (const id of ours)
      await until(`a capture of ${id}`, async () => {
        const { items } = await expectJson<{ items: { status: string }[] }>(
          await svc.call('GET', `/api/monitors/${id}/captures`, key),
          200,
        );
        return items[0]?.status === 'succeeded';
      });

    const deleted = await expectJson<Bulk>(await bulk(key, { action: 'delete', tag: 'batch' }), 200);
    expect(deleted.done.sort()).toEqual(ours);
    expect((await list(key)).map((m) => m.id)).toEqual([untagged.id]);
    expect((await list(other)).map((m) => m.id)).toEqual([theirs.id]);
    await svc.call('DELETE', `/api/monitors/${untagged.id}`, key);
    await svc.call('DELETE', `/api/monitors/${theirs.id}`, other);
  });

  it("by ids: another key's and unknown ids are reported not_found and left alone", async () => {
    const mine = await create(key, 'mine');
    const theirs = await create(other, 'theirs');
    const result = await expectJson<Bulk>(
      await bulk(key, { action: 'pause', ids: [mine.id, theirs.id, 'mon_nope'] }),
      200,
    );
    expect(result).toMatchObject({ matched: 3, done: [mine.id] });
    expect(result.failed.map((f) => [f.id, f.error.code])).toEqual([
      [theirs.id, 'not_found'],
      ['mon_nope', 'not_found'],
    ]);
    expect((await list(other))[0]).toMatchObject({ id: theirs.id, paused: false });
    await svc.call('DELETE', `/api/monitors/${mine.id}`, key);
    await svc.call('DELETE', `/api/monitors/${theirs.id}`, other);
  });

  it('a tag with no monitors matches none; bad requests are 400s naming the field', async () => {
    expect(await expectJson<Bulk>(await bulk(key, { action: 'run', tag: 'nothing' }), 200)).toEqual({
      action: 'run',
      matched: 0,
      done: [],
      failed: [],
    });
    const refused = async (body: unknown, path: string) => {
      const res = await bulk(key, body);
      expect(res.status).toBe(400);
      expect((await errorOf(res)).details?.map((d) => d.path)).toContain(path);
    };
    await refused({ action: 'pause' }, 'tag');
    await refused({ action: 'pause', tag: 'a', ids: ['mon_x'] }, 'tag');
    await refused({ action: 'archive', tag: 'a' }, 'action');
    await refused({ action: 'pause', ids: [] }, 'ids');
    await refused({ action: 'pause', ids: ['mon_a', 'mon_a'] }, 'ids');
    const hundred = Array.from({ length: 100 }, (_, i) => `mon_${i}`);
    expect((await bulk(key, { action: 'pause', ids: hundred })).status).toBe(200);
    await refused({ action: 'pause', ids: [...hundred, 'mon_100'] }, 'ids');
  });
});
