// The captures store's contract: what any backend's CaptureStore must do, written against the
// Backend and Stores interfaces only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/stores/backend.js';
import type { NewCapture } from '../../src/stores/captures.js';
import { capture, newKey, newMonitor } from './monitor-fixtures.js';

type Open = () => Promise<{ backend: Backend; close(): Promise<void> }>;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

export function capturesContract(open: Open): void {
  describe('captures store', () => {
    let backend: Backend;
    let opened: Awaited<ReturnType<Open>>;
    let key: string;
    beforeEach(async () => {
      opened = await open();
      backend = opened.backend;
      key = await newKey(backend);
      await newMonitor(backend, key, 'mon_a', at(0));
    });
    afterEach(() => opened.close());
    const captures = () => backend.stores.captures;
    const add = (...list: NewCapture[]) => Promise.all(list.map((c) => captures().insert(c)));

    it('keeps regions, text changes and conditions as objects; getOwned only for the key of its monitor', async () => {
      const full = capture('cap_1', 'mon_a', at(1), {
        diffKey: 'mon_a/cap_1.diff.png',
        textKey: 'mon_a/cap_1.txt',
        baselineId: 'cap_0',
        changed: true,
        confirmed: true,
        diffPixels: 42,
        diffRatio: 0.25,
        regions: [
          {
            x: 1,
            y: 2,
            width: 3,
            height: 4,
            pixels: 12,
            elements: [{ selector: '#p', tag: 'p', before: 'a', after: 'b' }],
          },
        ],
        ignoredBoxes: [{ x: 0, y: 0, width: 10, height: 10 }],
        truncated: true,
        textChanges: [
          {
            kind: 'changed',
            before: 'price 10',
            after: 'price 12',
            box: { x: 0, y: 5, width: 50, height: 10 },
            selector: '#price',
            words: [{ value: 'price ' }, { value: '10', removed: true }, { value: '12', added: true }],
          },
        ],
        textChangesTotal: 3,
        conditions: [{ index: 0, selector: '.price', test: 'numberBelow', met: true, value: 12 }],
        conditionErrors: ['notifyWhen[1] (#x): nothing matched'],
        conditionsMet: true,
        storedBytes: 500,
      });
      await add(full);
      const { storedBytes: _, ...record } = full;
      expect(await captures().getOwned(key, 'cap_1')).toStrictEqual({ ...record, createdAt: at(1) });
      const other = await newKey(backend, 'other');
      expect(await captures().getOwned(other, 'cap_1')).toBeUndefined();
      expect(await captures().getOwned(key, 'cap_missing')).toBeUndefined();
    });

    it('a failed capture keeps its error; conditionsMet false and null stay apart', async () => {
      await add(
        capture('cap_f', 'mon_a', at(1), {
          status: 'failed',
          reason: 'manual',
          imageKey: null,
          width: null,
          height: null,
          sha256: null,
          error: { code: 'render_failed', message: 'net::ERR' },
        }),
        capture('cap_n', 'mon_a', at(2), { conditionsMet: false }),
      );
      const failed = (await captures().getOwned(key, 'cap_f'))!;
      expect([failed.status, failed.reason, failed.error]).toEqual([
        'failed',
        'manual',
        { code: 'render_failed', message: 'net::ERR' },
      ]);
      expect((await captures().getOwned(key, 'cap_n'))!.conditionsMet).toBe(false);
      expect((await captures().getOwned(key, 'cap_n'))!.error).toBeNull();
    });

    it("list: the monitor's captures only, newest first (ties by id, descending), paged by the last one seen", async () => {
      await newMonitor(backend, key, 'mon_b', at(0));
      await add(
        capture('cap_1', 'mon_a', at(1)),
        capture('cap_2', 'mon_a', at(2)),
        capture('cap_3', 'mon_a', at(2)),
        capture('cap_4', 'mon_a', at(3)),
        capture('cap_x', 'mon_b', at(4)),
      );
      const ids = async (q: Parameters<ReturnType<typeof captures>['list']>[1]) =>
        (await captures().list('mon_a', q)).map((c) => c.id);
      expect(await ids({ limit: 10 })).toEqual(['cap_4', 'cap_3', 'cap_2', 'cap_1']);
      expect(await ids({ limit: 2 })).toEqual(['cap_4', 'cap_3']);
      expect(await ids({ limit: 5, before: { createdAt: at(2), id: 'cap_3' } })).toEqual(['cap_2', 'cap_1']);
    });

    it('baseline: the newest successful capture of that spec version', async () => {
      await add(
        capture('cap_1', 'mon_a', at(1)),
        capture('cap_2', 'mon_a', at(2)),
        capture('cap_3', 'mon_a', at(3), { status: 'failed', imageKey: null }),
        capture('cap_4', 'mon_a', at(4), { specVersion: 2 }),
      );
      expect((await captures().baseline('mon_a', 1))?.id).toBe('cap_2');
      expect((await captures().baseline('mon_a', 2))?.id).toBe('cap_4');
      expect(await captures().baseline('mon_a', 3)).toBeUndefined();
    });

    it('suspect and filter_missing captures keep their image and error, are never the baseline, and are a last status', async () => {
      await add(
        capture('cap_1', 'mon_a', at(1)),
        capture('cap_2', 'mon_a', at(2), {
          status: 'suspect',
          error: { code: 'bot_check', message: 'the page is a bot check (reCAPTCHA), not the page itself' },
        }),
        capture('cap_3', 'mon_a', at(3), {
          status: 'filter_missing',
          error: { code: 'filter_missing', message: 'diff.filters.0 matched nothing' },
        }),
      );
      const suspect = (await captures().getOwned(key, 'cap_2'))!;
      expect([suspect.status, suspect.imageKey, suspect.error?.code]).toEqual([
        'suspect',
        'mon_a/cap_2.png',
        'bot_check',
      ]);
      expect((await captures().getOwned(key, 'cap_3'))!.status).toBe('filter_missing');
      expect((await captures().baseline('mon_a', 1))?.id).toBe('cap_1');
      for (const status of ['suspect', 'filter_missing'] as const) {
        await backend.stores.monitors.recordRun('mon_a', status, new Date(at(4)));
        expect((await backend.stores.monitors.get('mon_a'))?.lastStatus).toBe(status);
      }
    });

    it("latestStatuses: the monitor's newest statuses, newest first (ties by id), at most `limit`", async () => {
      await newMonitor(backend, key, 'mon_b', at(0));
      await add(
        capture('cap_1', 'mon_a', at(1)),
        capture('cap_2', 'mon_a', at(2), { status: 'filter_missing' }),
        capture('cap_4', 'mon_a', at(3), { status: 'failed', imageKey: null }),
        capture('cap_3', 'mon_a', at(3), { status: 'suspect' }),
        capture('cap_5', 'mon_b', at(9), { status: 'filter_missing' }),
      );
      expect(await captures().latestStatuses('mon_a', 10)).toEqual([
        'failed',
        'suspect',
        'filter_missing',
        'succeeded',
      ]);
      expect(await captures().latestStatuses('mon_a', 2)).toEqual(['failed', 'suspect']);
      expect(await captures().latestStatuses('mon_c', 3)).toEqual([]);
    });

    it('prune keeps the newest `keep` and the baseline, and says which rows and files went', async () => {
      await newMonitor(backend, key, 'mon_b', at(0));
      await add(
        capture('cap_1', 'mon_a', at(1), { diffKey: 'mon_a/cap_1.diff.png', textKey: 'mon_a/cap_1.txt' }),
        capture('cap_2', 'mon_a', at(2)),
        capture('cap_3', 'mon_a', at(3), { imageKey: null, status: 'failed' }),
        capture('cap_4', 'mon_a', at(4)),
        capture('cap_5', 'mon_a', at(5)),
        capture('cap_b', 'mon_b', at(0)),
      );
      const removed = await captures().prune('mon_a', 2, 'cap_2');
      expect(removed.ids.sort()).toEqual(['cap_1', 'cap_3']);
      expect(removed.keys.sort()).toEqual(['mon_a/cap_1.diff.png', 'mon_a/cap_1.png', 'mon_a/cap_1.txt']);
      expect((await captures().list('mon_a', { limit: 10 })).map((c) => c.id)).toEqual(['cap_5', 'cap_4', 'cap_2']);
      expect(await captures().exists('cap_b')).toBe(true);
      expect((await captures().prune('mon_a', 1, undefined)).ids.sort()).toEqual(['cap_2', 'cap_4']);
    });

    it("storedBytesOfKey sums the key's captures only", async () => {
      const other = await newKey(backend, 'other');
      await newMonitor(backend, other, 'mon_o', at(0));
      expect(await captures().storedBytesOfKey(key)).toBe(0);
      await add(
        capture('cap_1', 'mon_a', at(1), { storedBytes: 100 }),
        capture('cap_2', 'mon_a', at(2), { storedBytes: 50 }),
        capture('cap_o', 'mon_o', at(1), { storedBytes: 1000 }),
      );
      expect(await captures().storedBytesOfKey(key)).toBe(150);
      expect(await captures().storedBytesOfKey(other)).toBe(1000);
    });

    it('evictOldest: oldest first until under the limit, sparing each current baseline and keepId', async () => {
      await newMonitor(backend, key, 'mon_b', at(0));
      await add(
        capture('cap_a1', 'mon_a', at(1), { storedBytes: 100, diffKey: 'mon_a/cap_a1.diff.png' }),
        capture('cap_b1', 'mon_b', at(2), { storedBytes: 100 }), // mon_b's baseline: spared
        capture('cap_a0', 'mon_a', at(3), { storedBytes: 0 }), // holds no counted bytes: never a victim
        capture('cap_a2', 'mon_a', at(4), { storedBytes: 100 }),
        capture('cap_a3', 'mon_a', at(5), { storedBytes: 100, status: 'failed' }),
        capture('cap_a4', 'mon_a', at(6), { storedBytes: 100 }), // mon_a's baseline: spared
      );
      expect(await captures().evictOldest(key, 500, 'cap_a4')).toEqual({ ids: [], keys: [] }); // 500: not over
      const first = await captures().evictOldest(key, 350, 'cap_a4');
      expect(first).toEqual({
        ids: ['cap_a1', 'cap_a2'],
        keys: ['mon_a/cap_a1.png', 'mon_a/cap_a1.diff.png', 'mon_a/cap_a2.png'],
      });
      expect(await captures().storedBytesOfKey(key)).toBe(300);
      // keepId spared too; the spared ones alone are over: fewer go than needed.
      const second = await captures().evictOldest(key, 0, 'cap_a3');
      expect(second.ids).toEqual([]);
      expect(await captures().storedBytesOfKey(key)).toBe(300);
      expect((await captures().evictOldest(key, 0, 'none')).ids).toEqual(['cap_a3']);
    });

    it("evictOldest: after a new baseline was asked for, the old version's newest capture is no longer spared", async () => {
      await add(
        capture('cap_1', 'mon_a', at(1), { storedBytes: 100 }),
        capture('cap_2', 'mon_a', at(2), { storedBytes: 100 }), // baseline of version 1
      );
      const m = (await backend.stores.monitors.get('mon_a'))!;
      await backend.stores.monitors.update('mon_a', m.settings, m.baseUrl, true, new Date(at(3))); // version 2
      expect((await captures().evictOldest(key, 0, 'none')).ids).toEqual(['cap_1', 'cap_2']);
    });

    it('exists and holdsFile (its image, diff image or text, not another capture’s)', async () => {
      await add(
        capture('cap_1', 'mon_a', at(1), { diffKey: 'mon_a/cap_1.diff.png', textKey: 'mon_a/cap_1.txt' }),
        capture('cap_2', 'mon_a', at(2)),
      );
      expect(await captures().exists('cap_1')).toBe(true);
      expect(await captures().exists('cap_9')).toBe(false);
      for (const file of ['mon_a/cap_1.png', 'mon_a/cap_1.diff.png', 'mon_a/cap_1.txt'])
        expect(await captures().holdsFile('cap_1', file)).toBe(true);
      expect(await captures().holdsFile('cap_1', 'mon_a/cap_2.png')).toBe(false);
      expect(await captures().holdsFile('cap_9', 'mon_a/cap_1.png')).toBe(false);
    });
  });
}
