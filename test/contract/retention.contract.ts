// The record-retention store's contract: which finished records are old enough to delete, and
// deleting them with what hangs off them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/stores/backend.js';
import {
  at,
  seedDelivery,
  seedFailedJob,
  seedIdempotencyKey,
  seedJob,
  seedRunningJob,
  seedSucceededJob,
} from './seed.js';

// `close` as a property: the suites keep it apart from its object.
type Open = () => Promise<{ backend: Backend; close: () => Promise<void> }>;

const DAY = 86_400_000;

export function retentionContract(open: Open) {
  describe('record retention store', () => {
    let backend: Backend;
    let close: () => Promise<void>;
    let keyId: string;
    beforeEach(async () => {
      ({ backend, close } = await open());
      keyId = (await backend.stores.keys.create('k')).id;
    });
    afterEach(() => close());
    const retention = () => backend.stores.retention;

    it('oldJobs: finished jobs that finished before the cut-off, oldest first, with the result file each still holds', async () => {
      const newest = await seedSucceededJob(backend, keyId, at(3 * DAY));
      const withResult = await seedSucceededJob(backend, keyId, at(DAY));
      const removed = await seedSucceededJob(backend, keyId, at(2 * DAY));
      await backend.stores.jobs.markResultRemoved(removed, at(2 * DAY + 1));
      const failed = await seedFailedJob(backend, keyId, at(0));
      const canceled = await seedJob(backend, keyId, at(0));
      await backend.stores.jobs.cancel(keyId, canceled, ['pdf'], at(DAY / 2));
      await seedRunningJob(backend, keyId, at(0));
      await seedJob(backend, keyId, at(0));

      expect(await retention().oldJobs(at(3 * DAY), 10)).toEqual([
        { id: failed, resultKey: null },
        { id: canceled, resultKey: null },
        { id: withResult, resultKey: `results/${withResult}` },
        { id: removed, resultKey: null },
      ]);
      // The cut-off is exclusive; the limit takes the oldest.
      expect((await retention().oldJobs(at(DAY), 10)).map((j) => j.id)).toEqual([failed, canceled]);
      expect((await retention().oldJobs(at(4 * DAY), 2)).map((j) => j.id)).toEqual([failed, canceled]);
      expect((await retention().oldJobs(at(4 * DAY), 10)).map((j) => j.id)).toContain(newest);
      expect(await retention().oldJobs(at(0), 10)).toEqual([]);
    });

    it('deleteJobs deletes the jobs with their idempotency keys; how many jobs', async () => {
      const a = await seedSucceededJob(backend, keyId, at(0));
      const b = await seedFailedJob(backend, keyId, at(0));
      const kept = await seedSucceededJob(backend, keyId, at(0));
      const idemA = await seedIdempotencyKey(backend, keyId, a, at(0));
      const idemKept = await seedIdempotencyKey(backend, keyId, kept, at(0));
      expect(await retention().deleteJobs([a, b, 'job_missing'])).toBe(2);
      expect(await backend.stores.jobs.get(a)).toBeUndefined();
      expect(await backend.stores.jobs.get(b)).toBeUndefined();
      expect(await backend.stores.jobs.get(kept)).toBeDefined();
      expect(await retention().deleteJobs([])).toBe(0);
      expect(await backend.stores.idempotency.find(keyId, idemA, at(-1))).toBeUndefined();
      expect((await backend.stores.idempotency.find(keyId, idemKept, at(-1)))?.jobId).toBe(kept);
    });

    it('deleteOldDeliveries: finished deliveries whose last attempt (or creation, if never tried) is before the cut-off, with their attempts', async () => {
      const attempt = async (status: 'succeeded' | 'failed' | 'pending', startedAt: Date) => {
        const [d] = await backend.stores.deliveries.claimDue(1, 60_000, startedAt);
        await backend.stores.deliveries.recordAttempt(d!, {
          startedAt,
          durationMs: 1,
          status,
          ...(status === 'pending' && { nextAttemptAt: new Date(startedAt.getTime() + DAY) }),
        });
        return d!.id;
      };
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_old_sent' });
      await attempt('succeeded', at(1));
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_retried_lately' });
      await attempt('failed', at(5 * DAY)); // created long ago, its last attempt is recent
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_old_pending' });
      await attempt('pending', at(2)); // still to be retried: never deleted
      const revoked = (await backend.stores.keys.create('revoked')).id;
      await seedDelivery(backend, revoked, at(DAY), { id: 'dlv_never_tried' });
      await backend.stores.keys.revoke(revoked);
      await backend.stores.deliveries.failRevoked();

      expect(await retention().deleteOldDeliveries(at(DAY), 10)).toBe(1); // exclusive: dlv_never_tried stays
      expect(await backend.stores.deliveries.get(keyId, 'dlv_old_sent')).toBeUndefined();
      expect(await backend.stores.deliveries.attempts('dlv_old_sent')).toEqual([]);
      expect(await retention().deleteOldDeliveries(at(2 * DAY), 10)).toBe(1);
      expect(await backend.stores.deliveries.get(revoked, 'dlv_never_tried')).toBeUndefined();
      expect(await retention().deleteOldDeliveries(at(5 * DAY), 10)).toBe(0);
      expect(await backend.stores.deliveries.get(keyId, 'dlv_retried_lately')).toBeDefined();
      expect(await backend.stores.deliveries.get(keyId, 'dlv_old_pending')).toBeDefined();
      expect(await retention().deleteOldDeliveries(at(6 * DAY), 10)).toBe(1);
      expect(await backend.stores.deliveries.get(keyId, 'dlv_old_pending')).toBeDefined();
    });

    it('deleteOldDeliveries takes at most `limit` at a time', async () => {
      const revoked = (await backend.stores.keys.create('revoked')).id;
      for (let i = 0; i < 5; i++) await seedDelivery(backend, revoked, at(i));
      await backend.stores.keys.revoke(revoked);
      await backend.stores.deliveries.failRevoked();
      expect(await retention().deleteOldDeliveries(at(DAY), 2)).toBe(2);
      expect(await retention().deleteOldDeliveries(at(DAY), 2)).toBe(2);
      expect(await retention().deleteOldDeliveries(at(DAY), 2)).toBe(1);
      expect(await retention().deleteOldDeliveries(at(DAY), 2)).toBe(0);
    });

    it('inside a transaction, the multi-statement deletes are part of it', async () => {
      const a = await seedSucceededJob(backend, keyId, at(0));
      await expect(
        backend.transaction(async (tx) => {
          expect(await tx.retention.deleteJobs([a])).toBe(1);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await backend.stores.jobs.get(a)).toBeDefined();
    });
  });
}
