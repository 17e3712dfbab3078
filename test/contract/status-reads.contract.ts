// The status page's cluster figures, for any backend: failing monitors (not paused), the webhook
// backlog, deliveries ended in a window, and the bytes the records say are kept on disk.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/stores/backend.js';
import { capture, newKey, newMonitor } from './monitor-fixtures.js';
import { at, seedDelivery, seedMonitor, seedSucceededJob } from './seed.js';

export function statusReadsContract(open: () => Promise<{ backend: Backend; close(): Promise<void> }>) {
  describe('status reads', () => {
    let opened: { backend: Backend; close(): Promise<void> };
    let backend: Backend;
    let keyId: string;
    beforeEach(async () => {
      opened = await open();
      backend = opened.backend;
      keyId = await newKey(backend);
    });
    afterEach(() => opened.close());
    const reads = () => backend.stores.statusReads;

    it('everything is zero on an empty database', async () => {
      expect(await reads().failingMonitors()).toBe(0);
      expect(await reads().deliveryBacklog()).toEqual({ pending: 0, retrying: 0, oldestPendingAt: null });
      expect(await reads().deliveriesEndedSince(at(0))).toEqual({ succeeded: 0, failed: 0 });
      expect(await reads().storedBytes()).toEqual({ captures: 0, results: 0 });
    });

    it('failing monitors: those whose last run failed, not paused', async () => {
      const failing = await seedMonitor(backend, keyId, at(0));
      const recovered = await seedMonitor(backend, keyId, at(0));
      await seedMonitor(backend, keyId, at(0)); // never ran
      await newMonitor(backend, keyId, 'mon_paused', at(0).toISOString(), { paused: true });
      await backend.stores.monitors.recordRun(failing, 'failed', at(1000));
      await backend.stores.monitors.recordRun(recovered, 'failed', at(1000));
      await backend.stores.monitors.recordRun(recovered, 'unchanged', at(2000));
      await backend.stores.monitors.recordRun('mon_paused', 'failed', at(1000));
      expect(await reads().failingMonitors()).toBe(1);
    });

    it('the backlog counts pending deliveries, those retrying, and the oldest; ended ones count by the window', async () => {
      const deliveries = backend.stores.deliveries;
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_retry' });
      await seedDelivery(backend, keyId, at(1000), { id: 'dlv_new' });
      await seedDelivery(backend, keyId, at(2000), { id: 'dlv_ok' });
      await seedDelivery(backend, keyId, at(3000), { id: 'dlv_dead' });
      const claimed = await deliveries.claimDue(10, 60_000, at(5000));
      const attempt = (status: 'pending' | 'succeeded' | 'failed', ms: number) => ({
        startedAt: at(ms),
        durationMs: 5,
        responseStatus: status === 'succeeded' ? 200 : 500,
        status,
        nextAttemptAt: status === 'pending' ? at(ms + 60_000) : undefined,
      });
      const byId = (id: string) => claimed.find((d) => d.id === id)!;
      await deliveries.recordAttempt(byId('dlv_retry'), attempt('pending', 6000));
      await deliveries.recordAttempt(byId('dlv_ok'), attempt('succeeded', 7000));
      await deliveries.recordAttempt(byId('dlv_dead'), attempt('failed', 8000));
      // dlv_new was claimed but never attempted: still pending, no attempt yet.

      expect(await reads().deliveryBacklog()).toEqual({
        pending: 2,
        retrying: 1,
        oldestPendingAt: at(0).toISOString(),
      });
      expect(await reads().deliveriesEndedSince(at(0))).toEqual({ succeeded: 1, failed: 1 });
      expect(await reads().deliveriesEndedSince(at(7500))).toEqual({ succeeded: 0, failed: 1 });
      expect(await reads().deliveriesEndedSince(at(9000))).toEqual({ succeeded: 0, failed: 0 });
    });

    it('stored bytes: the captures kept, and the results of jobs not yet removed', async () => {
      await newMonitor(backend, keyId, 'mon_a', at(0).toISOString());
      await backend.stores.captures.insert(capture('cap_1', 'mon_a', at(1).toISOString(), { storedBytes: 100 }));
      await backend.stores.captures.insert(capture('cap_2', 'mon_a', at(2).toISOString(), { storedBytes: 250 }));
      const kept = await seedSucceededJob(backend, keyId, at(10)); // a 10-byte result
      const removed = await seedSucceededJob(backend, keyId, at(20));
      await backend.stores.jobs.markResultRemoved(removed, at(30));
      expect(kept).not.toBe(removed);
      expect(await reads().storedBytes()).toEqual({ captures: 350, results: 10 });
    });
  });
}
