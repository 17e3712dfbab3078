// The key-data store's contract: stopping and deleting everything one API key owns, across tables,
// and nothing of any other key.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/stores/backend.js';
import {
  at,
  seedCapture,
  seedDelivery,
  seedFailedJob,
  seedIdempotencyKey,
  seedJob,
  seedMonitor,
  seedRunningJob,
  seedSucceededJob,
} from './seed.js';

// `close` as a property: the suites keep it apart from its object.
type Open = () => Promise<{ backend: Backend; close: () => Promise<void> }>;

export function keyDataContract(open: Open) {
  describe('key data store', () => {
    let backend: Backend;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ backend, close } = await open());
    });
    afterEach(() => close());

    /** A key with some of everything: jobs in every state, two monitors with captures, deliveries with attempts. */
    async function keyWithWork() {
      const keyId = (await backend.stores.keys.create('k')).id;
      const succeeded = await seedSucceededJob(backend, keyId, at(0));
      const failed = await seedFailedJob(backend, keyId, at(1));
      const running = await seedRunningJob(backend, keyId, at(2));
      const monitors = [await seedMonitor(backend, keyId, at(4)), await seedMonitor(backend, keyId, at(4))];
      await seedCapture(backend, monitors[0]!, at(5));
      await seedCapture(backend, monitors[0]!, at(6));
      await seedCapture(backend, monitors[1]!, at(6));
      const sent = await seedDelivery(backend, keyId, at(7));
      const [claimed] = await backend.stores.deliveries.claimDue(1, 60_000, at(7));
      if (claimed?.id !== sent) throw new Error('seed: the first delivery was not the one claimed');
      await backend.stores.deliveries.recordAttempt(claimed, {
        startedAt: at(8),
        durationMs: 3,
        status: 'pending',
        responseStatus: 500,
        nextAttemptAt: at(9),
      });
      const pending = await seedDelivery(backend, keyId, at(100));
      return { keyId, succeeded, failed, running, monitors, sent, pending, queued: '' };
    }

    /**
     * A queued job (with an idempotency key) for each key's work, made after every running one: seeding a
     * running job claims what is queued.
     */
    async function queueOne(...works: { keyId: string; queued: string }[]) {
      for (const work of works) {
        work.queued = await seedJob(backend, work.keyId, at(3));
        await seedIdempotencyKey(backend, work.keyId, work.queued, at(3));
      }
    }

    it('stopWork cancels queued and running jobs, pauses active monitors, fails pending deliveries, of that key only', async () => {
      const mine = await keyWithWork();
      const other = await keyWithWork();
      await queueOne(mine, other);
      const stopped = await backend.transaction((tx) => tx.keyData.stopWork(mine.keyId, 'stopped: revoked', at(50)));
      expect(new Set(stopped.jobs)).toEqual(new Set([mine.running, mine.queued]));
      expect(stopped).toMatchObject({ monitors: 2, deliveries: 2 });

      const { jobs, monitors, deliveries, keys } = backend.stores;
      for (const id of [mine.running, mine.queued])
        expect(await jobs.get(id)).toMatchObject({
          status: 'canceled',
          leaseOwner: null,
          finishedAt: at(50).toISOString(),
        });
      expect((await jobs.get(mine.succeeded))?.status).toBe('succeeded');
      expect((await jobs.get(mine.failed))?.status).toBe('failed');
      for (const id of mine.monitors)
        expect(await monitors.get(id)).toMatchObject({ nextRunAt: null, settings: { paused: true } });
      for (const id of [mine.sent, mine.pending])
        expect(await deliveries.get(mine.keyId, id)).toMatchObject({
          status: 'failed',
          nextAttemptAt: null,
          lastError: 'stopped: revoked',
        });
      // The key itself is the caller's to revoke.
      expect((await keys.get(mine.keyId))?.revokedAt).toBeNull();

      // The other key's work goes on.
      expect((await jobs.get(other.running))?.status).toBe('running');
      expect((await jobs.get(other.queued))?.status).toBe('queued');
      expect(await monitors.get(other.monitors[0]!)).toMatchObject({ settings: { paused: false } });
      expect((await deliveries.get(other.keyId, other.pending))?.status).toBe('pending');

      // Nothing is left to stop.
      expect(await backend.transaction((tx) => tx.keyData.stopWork(mine.keyId, 'again', at(60)))).toEqual({
        jobs: [],
        monitors: 0,
        deliveries: 0,
      });
    });

    it('stopWork on a key with nothing, or no such key, stops nothing', async () => {
      const keyId = (await backend.stores.keys.create('idle')).id;
      const none = { jobs: [], monitors: 0, deliveries: 0 };
      expect(await backend.transaction((tx) => tx.keyData.stopWork(keyId, 'x', at(0)))).toEqual(none);
      expect(await backend.transaction((tx) => tx.keyData.stopWork('key_missing', 'x', at(0)))).toEqual(none);
    });

    it('deleteAll deletes every row of the key and the key, and says what it deleted and which files they held', async () => {
      const mine = await keyWithWork();
      const other = await keyWithWork();
      // A result already removed (expired) is not one still offered.
      const expired = await seedSucceededJob(backend, mine.keyId, at(10));
      await backend.stores.jobs.markResultRemoved(expired, at(11));
      await queueOne(mine, other);

      const purged = await backend.transaction((tx) => tx.keyData.deleteAll(mine.keyId));
      expect(purged).toMatchObject({
        jobs: 5,
        monitors: 2,
        captures: 3,
        deliveries: 2,
        attempts: 1,
        idempotencyKeys: 1,
        storedResults: 1,
      });
      // Every job that was tried (the queued one never was), with its tries: each may have left a file.
      const tried = [...purged!.triedJobs].sort((a, b) => (a.jobId < b.jobId ? -1 : 1));
      const expected = [mine.succeeded, mine.failed, mine.running, expired].map((jobId) => ({ jobId, attempts: 1 }));
      expect(tried).toEqual(expected.sort((a, b) => (a.jobId < b.jobId ? -1 : 1)));
      expect([...purged!.monitorIds].sort()).toEqual([...mine.monitors].sort());

      const { jobs, monitors, deliveries, keys } = backend.stores;
      expect(await keys.get(mine.keyId)).toBeUndefined();
      expect(await jobs.get(mine.succeeded)).toBeUndefined();
      expect(await monitors.get(mine.monitors[0]!)).toBeUndefined();
      expect(await deliveries.get(mine.keyId, mine.sent)).toBeUndefined();
      expect(await deliveries.attempts(mine.sent)).toEqual([]);

      // The other key keeps everything.
      expect(await keys.get(other.keyId)).toBeDefined();
      expect((await jobs.get(other.succeeded))?.status).toBe('succeeded');
      expect(await monitors.get(other.monitors[1]!)).toBeDefined();
      expect(await deliveries.attempts(other.sent)).toHaveLength(1);
      expect(await deliveries.countByStatus()).toEqual({ pending: 2, succeeded: 0, failed: 0 });
    });

    it('deleteAll of no such key deletes nothing and says so', async () => {
      const other = await keyWithWork();
      await queueOne(other);
      expect(await backend.transaction((tx) => tx.keyData.deleteAll('key_missing'))).toBeUndefined();
      expect((await backend.stores.jobs.get(other.queued))?.status).toBe('queued');
    });

    it('deleteAll of a key with nothing deletes the key alone', async () => {
      const keyId = (await backend.stores.keys.create('idle')).id;
      expect(await backend.transaction((tx) => tx.keyData.deleteAll(keyId))).toEqual({
        jobs: 0,
        monitors: 0,
        captures: 0,
        deliveries: 0,
        attempts: 0,
        idempotencyKeys: 0,
        triedJobs: [],
        storedResults: 0,
        monitorIds: [],
      });
      expect(await backend.stores.keys.get(keyId)).toBeUndefined();
    });
  });
}
