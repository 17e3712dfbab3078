// The feeds store's contract: what any backend's FeedStore must do, written against the Backend and
// Stores interfaces only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/stores/backend.js';
import { capture, newKey, newMonitor } from './monitor-fixtures.js';

type Open = () => Promise<{ backend: Backend; close(): Promise<void> }>;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const hash = (n: number) => n.toString(16).padStart(64, '0');

export function feedsContract(open: Open): void {
  describe('feeds store', () => {
    let backend: Backend;
    let opened: Awaited<ReturnType<Open>>;
    let key: string;
    let otherKey: string;
    beforeEach(async () => {
      opened = await open();
      backend = opened.backend;
      key = await newKey(backend, 'a');
      otherKey = await newKey(backend, 'b');
      await newMonitor(backend, key, 'mon_a', at(0).toISOString());
      await newMonitor(backend, key, 'mon_b', at(0).toISOString());
    });
    afterEach(() => opened.close());
    const feeds = () => backend.stores.feeds;
    const add = (id: string, tokenHash: string, minutes: number, over: { keyId?: string; monitorId?: string } = {}) =>
      feeds().insert(
        {
          id,
          keyId: over.keyId ?? key,
          scope: over.monitorId ? 'monitor' : 'key',
          monitorId: over.monitorId ?? null,
          tag: null,
          tokenHash,
        },
        at(minutes),
      );

    it('lists a key’s feeds newest first, gets only its own, counts them', async () => {
      const made = await add('fd_1', hash(1), 1, { monitorId: 'mon_a' });
      expect(made).toEqual({
        id: 'fd_1',
        keyId: key,
        scope: 'monitor',
        monitorId: 'mon_a',
        tag: null,
        createdAt: at(1).toISOString(),
        rotatedAt: null,
      });
      await add('fd_2', hash(2), 2);
      await add('fd_3', hash(3), 3, { keyId: otherKey });
      expect((await feeds().list(key)).map((f) => f.id)).toEqual(['fd_2', 'fd_1']);
      expect(await feeds().countByKey(key)).toBe(2);
      expect(await feeds().getOwned(key, 'fd_1')).toEqual(made);
      expect(await feeds().getOwned(otherKey, 'fd_1')).toBeUndefined();
    });

    it('finds a feed by its token hash while its key is active; a rotation replaces the hash', async () => {
      await add('fd_1', hash(1), 1);
      expect((await feeds().findActiveByTokenHash(hash(1)))?.id).toBe('fd_1');
      expect(await feeds().findActiveByTokenHash(hash(9))).toBeUndefined();
      expect(await feeds().rotate(otherKey, 'fd_1', hash(2), at(5))).toBeUndefined();
      const rotated = await feeds().rotate(key, 'fd_1', hash(2), at(5));
      expect(rotated?.rotatedAt).toBe(at(5).toISOString());
      expect(await feeds().findActiveByTokenHash(hash(1))).toBeUndefined();
      expect((await feeds().findActiveByTokenHash(hash(2)))?.id).toBe('fd_1');
      await backend.stores.keys.revoke(key, at(6));
      expect(await feeds().findActiveByTokenHash(hash(2))).toBeUndefined();
    });

    it('refuses a second feed with the same token hash', async () => {
      await add('fd_1', hash(1), 1);
      await expect(add('fd_2', hash(1), 2)).rejects.toThrow();
    });

    it('deletes only the key’s own feed; a deleted monitor takes its feeds; a purged key all of them', async () => {
      await add('fd_1', hash(1), 1);
      await add('fd_2', hash(2), 2, { monitorId: 'mon_a' });
      expect(await feeds().delete(otherKey, 'fd_1')).toBe(false);
      expect(await feeds().delete(key, 'fd_1')).toBe(true);
      expect(await feeds().delete(key, 'fd_1')).toBe(false);
      await backend.stores.monitors.delete('mon_a');
      expect(await feeds().list(key)).toEqual([]);
      await add('fd_3', hash(3), 3);
      await backend.transaction((tx) => tx.keyData.deleteAll(key));
      expect(await feeds().findActiveByTokenHash(hash(3))).toBeUndefined();
    });

    it('changedCaptures: the changes of the given monitors whose rules held, newest first, at most limit', async () => {
      const c = backend.stores.captures;
      await c.insert(capture('cap_1', 'mon_a', at(1).toISOString(), { changed: false }));
      await c.insert(capture('cap_2', 'mon_a', at(2).toISOString(), { changed: true }));
      await c.insert(capture('cap_3', 'mon_b', at(3).toISOString(), { changed: true }));
      await c.insert(capture('cap_4', 'mon_a', at(4).toISOString(), { changed: true, conditionsMet: false }));
      await c.insert(capture('cap_5', 'mon_a', at(5).toISOString(), { changed: true, conditionsMet: true }));
      const ids = async (monitors: string[], limit = 50) =>
        (await feeds().changedCaptures(monitors, limit)).map((r) => r.id);
      expect(await ids(['mon_a'])).toEqual(['cap_5', 'cap_2']);
      expect(await ids(['mon_a', 'mon_b'])).toEqual(['cap_5', 'cap_3', 'cap_2']);
      expect(await ids(['mon_a', 'mon_b'], 2)).toEqual(['cap_5', 'cap_3']);
      expect(await ids([])).toEqual([]);
    });
  });
}
