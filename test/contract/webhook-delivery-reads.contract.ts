// The webhook-deliveries store's contract, continued: what the API reads (one delivery, its attempts,
// pages of a key's deliveries, counts), redelivering, and failing a revoked key's deliveries.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/stores/backend.js';
import { REVOKED_REASON, type AttemptOutcome } from '../../src/stores/webhook-deliveries.js';
import { at, seedDelivery } from './seed.js';

// `close` as a property: the suites keep it apart from its object.
type Open = () => Promise<{ backend: Backend; close: () => Promise<void> }>;

const LEASE = 60_000;

export function webhookDeliveryReadsContract(open: Open) {
  describe('webhook deliveries store: reads, redelivery, revoked keys', () => {
    let backend: Backend;
    let close: () => Promise<void>;
    let keyId: string;
    beforeEach(async () => {
      ({ backend, close } = await open());
      keyId = (await backend.stores.keys.create('owner')).id;
    });
    afterEach(() => close());
    const deliveries = () => backend.stores.deliveries;
    const get = async (id: string, key = keyId) => (await deliveries().get(key, id))!;
    const outcome = (o: Partial<AttemptOutcome> & Pick<AttemptOutcome, 'status'>): AttemptOutcome => ({
      startedAt: at(100),
      durationMs: 12,
      ...o,
    });
    /** How many 'deliveries' events `fn` emits (they are emitted synchronously, or right after a commit). */

    it('get and attempts: a delivery is found only under its own key', async () => {
      const other = (await backend.stores.keys.create('other')).id;
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_mine' });
      expect(await deliveries().get(other, 'dlv_mine')).toBeUndefined();
      expect(await deliveries().get(keyId, 'dlv_missing')).toBeUndefined();
      expect(await deliveries().attempts('dlv_mine')).toEqual([]);
    });

    it("list: the key's deliveries, newest first, filtered by job, monitor and status, a page at a time", async () => {
      const other = (await backend.stores.keys.create('other')).id;
      await seedDelivery(backend, other, at(5), { id: 'dlv_other' });
      await seedDelivery(backend, keyId, at(1), { id: 'dlv_1', jobId: 'job_a' });
      await seedDelivery(backend, keyId, at(2), { id: 'dlv_2', monitorId: 'mon_a' });
      await seedDelivery(backend, keyId, at(2), { id: 'dlv_3', jobId: 'job_a' });
      await seedDelivery(backend, keyId, at(3), { id: 'dlv_4', monitorId: 'mon_a' });
      const [first] = await deliveries().claimDue(1, LEASE, at(10));
      expect(first?.id).toBe('dlv_1');
      await deliveries().recordAttempt(first!, outcome({ status: 'succeeded', responseStatus: 200 }));
      const ids = async (q: Parameters<ReturnType<typeof deliveries>['list']>[1]) =>
        (await deliveries().list(keyId, q)).map((d) => d.id);

      // Same created_at: the larger id first.
      expect(await ids({ limit: 10 })).toEqual(['dlv_4', 'dlv_3', 'dlv_2', 'dlv_1']);
      expect(await ids({ limit: 2 })).toEqual(['dlv_4', 'dlv_3']);
      expect(await ids({ limit: 2, before: { createdAt: at(2).toISOString(), id: 'dlv_3' } })).toEqual([
        'dlv_2',
        'dlv_1',
      ]);
      expect(await ids({ limit: 10, before: { createdAt: at(3).toISOString(), id: 'dlv_4' } })).toEqual([
        'dlv_3',
        'dlv_2',
        'dlv_1',
      ]);
      expect(await ids({ limit: 10, before: { createdAt: at(1).toISOString(), id: 'dlv_1' } })).toEqual([]);
      expect(await ids({ limit: 10, jobId: 'job_a' })).toEqual(['dlv_3', 'dlv_1']);
      expect(await ids({ limit: 10, monitorId: 'mon_a' })).toEqual(['dlv_4', 'dlv_2']);
      expect(await ids({ limit: 10, status: 'succeeded' })).toEqual(['dlv_1']);
      expect(await ids({ limit: 10, status: 'pending', jobId: 'job_a' })).toEqual(['dlv_3']);
      expect(await ids({ limit: 10, status: 'failed' })).toEqual([]);
      expect(await ids({ limit: 10, jobId: 'job_missing' })).toEqual([]);
    });

    it('redeliver: pending and due now, the retry schedule started over; only under its own key', async () => {
      const other = (await backend.stores.keys.create('other')).id;
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_1' });
      const [d] = await deliveries().claimDue(1, LEASE, at(1));
      await deliveries().recordAttempt(d!, outcome({ status: 'failed', error: 'HTTP 500' }));
      expect(await deliveries().redeliver(other, 'dlv_1', at(50))).toBeUndefined();
      expect(await deliveries().redeliver(keyId, 'dlv_missing', at(50))).toBeUndefined();
      expect((await get('dlv_1')).status).toBe('failed');
      const again = await deliveries().redeliver(keyId, 'dlv_1', at(50));
      expect(again).toMatchObject({
        id: 'dlv_1',
        status: 'pending',
        attempts: 1,
        scheduleFrom: 1,
        nextAttemptAt: at(50).toISOString(),
      });
      expect(await get('dlv_1')).toEqual(again);
      // Not leased: the next attempt's outcome stands as it is.
      const [next] = await deliveries().claimDue(1, LEASE, at(50));
      await deliveries().recordAttempt(next!, outcome({ status: 'failed', error: 'HTTP 500' }));
      expect(await get('dlv_1')).toMatchObject({ status: 'failed', attempts: 2 });
    });

    it("countByStatus counts every key's deliveries, with 0 for a status none has", async () => {
      expect(await deliveries().countByStatus()).toEqual({ pending: 0, succeeded: 0, failed: 0 });
      const other = (await backend.stores.keys.create('other')).id;
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_1' });
      await seedDelivery(backend, other, at(0), { id: 'dlv_2' });
      await seedDelivery(backend, other, at(5), { id: 'dlv_3' });
      const [d] = await deliveries().claimDue(1, LEASE, at(1));
      await deliveries().recordAttempt(d!, outcome({ status: 'succeeded', responseStatus: 200 }));
      expect(await deliveries().countByStatus()).toEqual({ pending: 2, succeeded: 1, failed: 0 });
    });
    it('failRevoked fails the pending deliveries of revoked keys only; finished ones keep their outcome', async () => {
      const revoked = (await backend.stores.keys.create('revoked')).id;
      await seedDelivery(backend, revoked, at(0), { id: 'dlv_r1' });
      await seedDelivery(backend, revoked, at(0), { id: 'dlv_r2' });
      await seedDelivery(backend, revoked, at(0), { id: 'dlv_r_done' });
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_active' });
      const claimed = await deliveries().claimDue(10, LEASE, at(1));
      const done = claimed.find((d) => d.id === 'dlv_r_done')!;
      await deliveries().recordAttempt(done, outcome({ status: 'succeeded', responseStatus: 200 }));
      expect(await deliveries().failRevoked()).toBe(0);
      await backend.stores.keys.revoke(revoked);
      expect(await deliveries().failRevoked()).toBe(2);
      expect(await deliveries().failRevoked()).toBe(0);
      expect(await get('dlv_r1', revoked)).toMatchObject({
        status: 'failed',
        nextAttemptAt: null,
        lastError: REVOKED_REASON,
      });
      expect((await get('dlv_r_done', revoked)).status).toBe('succeeded');
      expect((await get('dlv_active')).status).toBe('pending');
    });
  });
}
