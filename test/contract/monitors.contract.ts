// The monitors store's contract: what any backend's MonitorStore must do, written against the
// Backend and Stores interfaces only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/stores/backend.js';
import { capture, newKey, newMonitor, settings } from './monitor-fixtures.js';

type Open = () => Promise<{ backend: Backend; close(): Promise<void> }>;

const T0 = '2026-03-01T10:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000);

export function monitorsContract(open: Open): void {
  describe('monitors store', () => {
    let backend: Backend;
    let opened: Awaited<ReturnType<Open>>;
    let key: string;
    beforeEach(async () => {
      opened = await open();
      backend = opened.backend;
      key = await newKey(backend);
    });
    afterEach(() => opened.close());
    const monitors = () => backend.stores.monitors;

    it('keeps the settings as objects and starts with no run state', async () => {
      await newMonitor(backend, key, 'mon_a', T0);
      expect(await monitors().get('mon_a')).toStrictEqual({
        id: 'mon_a',
        keyId: key,
        settings: settings(),
        baseUrl: 'http://pagewatch.test',
        specVersion: 1,
        lastRunAt: null,
        nextRunAt: null,
        lastStatus: null,
        lastChangeAt: null,
        skippedRuns: 0,
        createdAt: T0,
        updatedAt: T0,
      });
      await newMonitor(backend, key, 'mon_b', T0, { webhookUrl: 'https://hooks.test/x', paused: true });
      const b = (await monitors().get('mon_b'))!;
      expect(b.settings.webhookUrl).toBe('https://hooks.test/x');
      expect(b.settings.paused).toBe(true);
      expect('webhookUrl' in (await monitors().get('mon_a'))!.settings).toBe(false);
      expect(await monitors().get('mon_missing')).toBeUndefined();
    });

    it("getOwned: another key's monitor is as good as missing", async () => {
      const other = await newKey(backend, 'other');
      await newMonitor(backend, key, 'mon_a', T0);
      expect((await monitors().getOwned(key, 'mon_a'))?.id).toBe('mon_a');
      expect(await monitors().getOwned(other, 'mon_a')).toBeUndefined();
    });

    it("list: the key's monitors only, newest first (ties by id, descending), paged by the last one seen", async () => {
      const other = await newKey(backend, 'other');
      await newMonitor(backend, key, 'mon_1', at(0).toISOString());
      await newMonitor(backend, key, 'mon_2', at(1).toISOString());
      await newMonitor(backend, key, 'mon_3', at(1).toISOString()); // same time as mon_2: the id decides
      await newMonitor(backend, key, 'mon_4', at(2).toISOString());
      await newMonitor(backend, other, 'mon_x', at(3).toISOString());
      const ids = async (q: Parameters<ReturnType<typeof monitors>['list']>[1]) =>
        (await monitors().list(key, q)).map((m) => m.id);
      expect(await ids({ limit: 10 })).toEqual(['mon_4', 'mon_3', 'mon_2', 'mon_1']);
      expect(await ids({ limit: 2 })).toEqual(['mon_4', 'mon_3']);
      expect(await ids({ limit: 2, before: { createdAt: at(1).toISOString(), id: 'mon_3' } })).toEqual([
        'mon_2',
        'mon_1',
      ]);
      expect(await ids({ limit: 10, before: { createdAt: at(0).toISOString(), id: 'mon_1' } })).toEqual([]);
    });

    it('list by tag: without case, "_" taken literally; tags counts them per key', async () => {
      const other = await newKey(backend);
      await newMonitor(backend, key, 'mon_a', T0, { tags: ['Shop', 'sale_1'] });
      await newMonitor(backend, key, 'mon_b', at(1).toISOString(), { tags: ['shop'] });
      await newMonitor(backend, key, 'mon_c', at(2).toISOString(), { tags: ['sale11'] });
      await newMonitor(backend, other, 'mon_d', at(3).toISOString(), { tags: ['shop'] });
      const ids = async (tag: string) => (await monitors().list(key, { tag, limit: 10 })).map((m) => m.id);
      expect(await ids('SHOP')).toEqual(['mon_b', 'mon_a']);
      expect(await ids('sale_1')).toEqual(['mon_a']);
      expect(await ids('sale')).toEqual([]);
      expect((await monitors().get('mon_a'))?.settings.tags).toEqual(['Shop', 'sale_1']);
      expect(await monitors().tags(key)).toEqual([
        { tag: 'sale11', monitors: 1 },
        { tag: 'sale_1', monitors: 1 },
        { tag: 'Shop', monitors: 2 },
      ]);
    });

    it('active: unpaused monitors of every key, oldest first; all: paused ones too', async () => {
      const other = await newKey(backend, 'other');
      await newMonitor(backend, key, 'mon_b', at(1).toISOString());
      await newMonitor(backend, other, 'mon_a', at(0).toISOString());
      await newMonitor(backend, key, 'mon_p', at(2).toISOString(), { paused: true });
      expect((await monitors().active()).map((m) => m.id)).toEqual(['mon_a', 'mon_b']);
      expect((await monitors().all()).map((m) => m.id)).toEqual(['mon_a', 'mon_b', 'mon_p']);
    });

    it('counts per key and by pause state', async () => {
      const other = await newKey(backend, 'other');
      expect(await monitors().counts()).toEqual({ active: 0, paused: 0 });
      await newMonitor(backend, key, 'mon_1', T0);
      await newMonitor(backend, key, 'mon_2', T0, { paused: true });
      await newMonitor(backend, other, 'mon_3', T0);
      expect(await monitors().countByKey(key)).toBe(2);
      expect(await monitors().countByKey(other)).toBe(1);
      expect(await monitors().counts()).toEqual({ active: 2, paused: 1 });
    });

    it('update replaces the settings; a new baseline bumps specVersion, otherwise it stays', async () => {
      await newMonitor(backend, key, 'mon_a', T0, { webhookUrl: 'https://hooks.test/x' });
      const changed = settings({ name: 'renamed', schedule: '0 * * * *', notify: ['capture'] });
      await monitors().update('mon_a', changed, 'http://elsewhere.test', false, at(5));
      let m = (await monitors().get('mon_a'))!;
      expect(m.settings).toStrictEqual(changed); // webhookUrl gone
      expect(m.baseUrl).toBe('http://elsewhere.test');
      expect(m.specVersion).toBe(1);
      expect(m.updatedAt).toBe(at(5).toISOString());
      expect(m.createdAt).toBe(T0);
      await monitors().update('mon_a', settings({ url: 'https://other.test/' }), 'http://x', true, at(6));
      m = (await monitors().get('mon_a'))!;
      expect(m.specVersion).toBe(2);
      expect(m.settings.url).toBe('https://other.test/');
    });

    it('rewriteCapture changes the stored capture options only: no new baseline, no new updatedAt', async () => {
      await newMonitor(backend, key, 'mon_a', T0);
      const capture = { ...settings().capture, headers: { 'X-Token': 'enc:v1:resealed' } };
      await monitors().rewriteCapture('mon_a', capture);
      const m = (await monitors().get('mon_a'))!;
      expect(m.settings.capture).toStrictEqual(capture);
      expect(m.specVersion).toBe(1);
      expect(m.updatedAt).toBe(T0);
    });

    it('delete removes the monitor and its captures', async () => {
      await newMonitor(backend, key, 'mon_a', T0);
      await backend.stores.captures.insert(capture('cap_1', 'mon_a', T0));
      await monitors().delete('mon_a');
      expect(await monitors().get('mon_a')).toBeUndefined();
      expect(await backend.stores.captures.exists('cap_1')).toBe(false);
    });

    it('nextRuns: the soonest next runs of unpaused monitors, limited', async () => {
      await newMonitor(backend, key, 'mon_1', T0);
      await newMonitor(backend, key, 'mon_2', T0);
      await newMonitor(backend, key, 'mon_3', T0);
      await newMonitor(backend, key, 'mon_p', T0, { paused: true });
      await newMonitor(backend, key, 'mon_none', T0);
      await monitors().setNextRun('mon_1', at(30));
      await monitors().setNextRun('mon_2', at(10));
      await monitors().setNextRun('mon_3', at(20));
      await monitors().setNextRun('mon_p', at(1));
      expect(await monitors().nextRuns(2)).toEqual([at(10).toISOString(), at(20).toISOString()]);
      await monitors().setNextRun('mon_2', null);
      expect(await monitors().nextRuns(5)).toEqual([at(20).toISOString(), at(30).toISOString()]);
      expect((await monitors().get('mon_2'))!.nextRunAt).toBeNull();
    });

    it('setNextRunIfActive sets nothing for a paused monitor, a revoked key or a missing monitor', async () => {
      await newMonitor(backend, key, 'mon_a', T0);
      await newMonitor(backend, key, 'mon_p', T0, { paused: true });
      expect(await monitors().setNextRunIfActive('mon_a', at(5))).toBe(true);
      expect((await monitors().get('mon_a'))!.nextRunAt).toBe(at(5).toISOString());
      expect(await monitors().setNextRunIfActive('mon_p', at(5))).toBe(false);
      expect((await monitors().get('mon_p'))!.nextRunAt).toBeNull();
      expect(await monitors().setNextRunIfActive('mon_missing', at(5))).toBe(false);
      await backend.stores.keys.revoke(key);
      expect(await monitors().setNextRunIfActive('mon_a', at(10))).toBe(false);
      expect((await monitors().get('mon_a'))!.nextRunAt).toBe(at(5).toISOString());
    });

    it('claimTick: a tick is taken once, never an earlier one, never within the minimum gap', async () => {
      await newMonitor(backend, key, 'mon_a', T0);
      expect(await monitors().claimTick('mon_a', at(5), 60_000)).toBe(true);
      expect(await monitors().claimTick('mon_a', at(5), 60_000)).toBe(false); // the same tick, again
      expect(await monitors().claimTick('mon_a', at(4))).toBe(false); // an earlier one
      expect(await monitors().claimTick('mon_a', at(5.5), 60_000)).toBe(false); // 30 s after: inside the gap
      expect(await monitors().claimTick('mon_a', at(6), 60_000)).toBe(true); // exactly the gap: taken
      expect(await monitors().claimTick('mon_a', at(6.5))).toBe(true); // no gap asked: any later tick
    });

    it('claimTick: never for a paused monitor, a revoked key or a missing monitor', async () => {
      await newMonitor(backend, key, 'mon_p', T0, { paused: true });
      expect(await monitors().claimTick('mon_p', at(5))).toBe(false);
      expect(await monitors().claimTick('mon_missing', at(5))).toBe(false);
      await newMonitor(backend, key, 'mon_a', T0);
      await backend.stores.keys.revoke(key);
      expect(await monitors().claimTick('mon_a', at(5))).toBe(false);
    });

    it('recordSkip counts; recordRun sets the last run, and the last change only when changed', async () => {
      await newMonitor(backend, key, 'mon_a', T0);
      await monitors().recordSkip('mon_a');
      await monitors().recordSkip('mon_a');
      expect((await monitors().get('mon_a'))!.skippedRuns).toBe(2);
      await monitors().recordRun('mon_a', 'baseline', at(1));
      let m = (await monitors().get('mon_a'))!;
      expect([m.lastRunAt, m.lastStatus, m.lastChangeAt]).toEqual([at(1).toISOString(), 'baseline', null]);
      await monitors().recordRun('mon_a', 'changed', at(2));
      await monitors().recordRun('mon_a', 'failed', at(3));
      m = (await monitors().get('mon_a'))!;
      expect([m.lastRunAt, m.lastStatus, m.lastChangeAt]).toEqual([at(3).toISOString(), 'failed', at(2).toISOString()]);
    });

    it("a transaction's writes are seen inside it, and undone when it throws", async () => {
      await expect(
        backend.transaction(async (tx) => {
          await tx.monitors.insert({ id: 'mon_t', keyId: key, settings: settings(), baseUrl: 'http://x' }, at(0));
          expect(await tx.monitors.countByKey(key)).toBe(1);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await monitors().get('mon_t')).toBeUndefined();
      await backend.transaction((tx) =>
        tx.monitors.insert({ id: 'mon_t', keyId: key, settings: settings(), baseUrl: 'http://x' }, at(0)),
      );
      expect((await monitors().get('mon_t'))?.id).toBe('mon_t');
    });
  });
}
