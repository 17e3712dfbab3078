// The webhook-deliveries store's contract: the outbox and its attempt log, as any backend's
// `stores.deliveries` must keep them. Here what the dispatcher does with them; what the API reads and
// redelivers, and failing a revoked key's deliveries, is in webhook-delivery-reads.contract.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/stores/backend.js';
import { REVOKED_REASON, type AttemptOutcome, type DeliveryRecord } from '../../src/stores/webhook-deliveries.js';
import { webhookDeliveryReadsContract } from './webhook-delivery-reads.contract.js';
import { at, newDelivery, seedDelivery } from './seed.js';

// `close` as a property: the suites keep it apart from its object.
type Open = () => Promise<{ backend: Backend; close: () => Promise<void> }>;

const LEASE = 60_000;

export function webhookDeliveriesContract(open: Open) {
  describe('webhook deliveries store: recording and sending', () => {
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
    const eventsOf = async (fn: () => Promise<unknown>) => {
      let n = 0;
      const count = () => n++;
      backend.changes.on('deliveries', count);
      try {
        await fn().catch(() => undefined);
      } finally {
        backend.changes.off('deliveries', count);
      }
      return n;
    };

    it('insert records a pending delivery due now, its payload byte for byte', async () => {
      const payload =
        '{"type":"job.succeeded","timestamp":"2026-11-22T10:00:00.000Z","data":{"title":"Ünïcode ✓","n":1.50}}';
      await deliveries().insert(newDelivery(keyId, { id: 'dlv_1', payload, jobId: 'job_1' }), at(0));
      expect(await get('dlv_1')).toEqual({
        id: 'dlv_1',
        keyId,
        messageId: 'msg_dlv_1',
        eventType: 'job.succeeded',
        url: 'https://receiver.test/hook',
        payload,
        jobId: 'job_1',
        monitorId: null,
        status: 'pending',
        attempts: 0,
        scheduleFrom: 0,
        nextAttemptAt: at(0).toISOString(),
        lastAttemptAt: null,
        lastResponseStatus: null,
        lastError: null,
        createdAt: at(0).toISOString(),
      } satisfies DeliveryRecord);
    });

    it("insert and redeliver tell 'deliveries'; in a transaction only once it commits, and never on rollback", async () => {
      expect(await eventsOf(() => seedDelivery(backend, keyId, at(0), { id: 'dlv_a' }))).toBe(1);
      expect(await eventsOf(() => deliveries().redeliver(keyId, 'dlv_a', at(1)))).toBe(1);
      expect(await eventsOf(() => deliveries().redeliver(keyId, 'dlv_missing', at(1)))).toBe(0);
      let inside = -1;
      const committed = await eventsOf(() =>
        backend.transaction(async (tx) => {
          inside = await eventsOf(() => tx.deliveries.insert(newDelivery(keyId, { id: 'dlv_tx' }), at(2)));
        }),
      );
      expect([inside, committed]).toEqual([0, 1]);
      const rolledBack = await eventsOf(() =>
        backend.transaction(async (tx) => {
          await tx.deliveries.insert(newDelivery(keyId, { id: 'dlv_gone' }), at(3));
          throw new Error('roll back');
        }),
      );
      expect(rolledBack).toBe(0);
      expect(await deliveries().get(keyId, 'dlv_gone')).toBeUndefined();
      expect(await deliveries().get(keyId, 'dlv_tx')).toBeDefined();
    });

    // The claimed come back in no particular order: compare them as sets.
    const idsOf = (ds: DeliveryRecord[]) => ds.map((d) => d.id).sort();

    it('claimDue leases due deliveries, the earliest due first, up to the limit; nothing for a limit of 0', async () => {
      await seedDelivery(backend, keyId, at(30), { id: 'dlv_c' });
      await seedDelivery(backend, keyId, at(10), { id: 'dlv_b' });
      await seedDelivery(backend, keyId, at(10), { id: 'dlv_a' });
      await seedDelivery(backend, keyId, at(500), { id: 'dlv_future' });
      expect(await deliveries().claimDue(0, LEASE, at(100))).toEqual([]);
      expect(await deliveries().claimDue(-1, LEASE, at(100))).toEqual([]);
      const first = await deliveries().claimDue(2, LEASE, at(100));
      expect(idsOf(first)).toEqual(['dlv_a', 'dlv_b']);
      expect(first[0]).toMatchObject({ status: 'pending', attempts: 0, keyId });
      // Due at the same time: the smaller id first.
      await seedDelivery(backend, keyId, at(40), { id: 'dlv_e' });
      await seedDelivery(backend, keyId, at(40), { id: 'dlv_d' });
      // Leased: not claimed again while the lease runs; the rest is, and nothing not yet due.
      expect(idsOf(await deliveries().claimDue(2, LEASE, at(200)))).toEqual(['dlv_c', 'dlv_d']);
      expect(idsOf(await deliveries().claimDue(10, LEASE, at(200)))).toEqual(['dlv_e']);
      expect(await deliveries().claimDue(10, LEASE, at(200))).toEqual([]);
      // A lease that ran out (the process died mid-attempt) is claimed again; exactly at its end it is not.
      expect(idsOf(await deliveries().claimDue(10, LEASE, at(100 + LEASE)))).toEqual(['dlv_future']);
      expect(idsOf(await deliveries().claimDue(10, LEASE, at(100 + LEASE + 1)))).toEqual(['dlv_a', 'dlv_b']);
    });

    it('claimDue passes over deliveries that are not pending, and those of a revoked key', async () => {
      const revoked = (await backend.stores.keys.create('revoked')).id;
      await seedDelivery(backend, revoked, at(0), { id: 'dlv_revoked' });
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_done' });
      await backend.stores.keys.revoke(revoked);
      const claimed = await deliveries().claimDue(10, LEASE, at(1));
      expect(idsOf(claimed)).toEqual(['dlv_done']);
      await deliveries().recordAttempt(claimed[0]!, outcome({ status: 'succeeded', responseStatus: 200 }));
      expect((await get('dlv_revoked', revoked)).status).toBe('pending'); // failing it is failRevoked's part
      expect(await deliveries().claimDue(10, LEASE, at(LEASE * 10))).toEqual([]);
    });

    it('nextDueAt: the earliest time a pending delivery can be claimed (its due time, or its lease end)', async () => {
      expect(await deliveries().nextDueAt()).toBeUndefined();
      await seedDelivery(backend, keyId, at(50), { id: 'dlv_late' });
      expect(await deliveries().nextDueAt()).toEqual(at(50));
      await seedDelivery(backend, keyId, at(20), { id: 'dlv_early' });
      expect(await deliveries().nextDueAt()).toEqual(at(20));
      await deliveries().claimDue(1, LEASE, at(30)); // leases dlv_early until 30 + LEASE
      expect(await deliveries().nextDueAt()).toEqual(at(50));
      await deliveries().claimDue(1, LEASE, at(60)); // and dlv_late until 60 + LEASE
      expect(await deliveries().nextDueAt()).toEqual(at(30 + LEASE));
    });

    it('recordAttempt logs the attempt and sets the outcome: retry later, succeed, or fail', async () => {
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_1' });
      let [d] = await deliveries().claimDue(1, LEASE, at(1));
      await deliveries().recordAttempt(
        d!,
        outcome({
          startedAt: at(2),
          status: 'pending',
          responseStatus: 503,
          error: 'HTTP 503',
          nextAttemptAt: at(5000),
        }),
      );
      expect(await get('dlv_1')).toMatchObject({
        status: 'pending',
        attempts: 1,
        nextAttemptAt: at(5000).toISOString(),
        lastAttemptAt: at(2).toISOString(),
        lastResponseStatus: 503,
        lastError: 'HTTP 503',
      });
      // The lease ended with the attempt: claimable when due, not before.
      expect(await deliveries().claimDue(1, LEASE, at(4999))).toEqual([]);
      [d] = await deliveries().claimDue(1, LEASE, at(5000));
      expect(d).toMatchObject({ id: 'dlv_1', attempts: 1 });
      await deliveries().recordAttempt(
        d!,
        outcome({ startedAt: at(5001), durationMs: 7, status: 'succeeded', responseStatus: 204 }),
      );
      expect(await get('dlv_1')).toMatchObject({
        status: 'succeeded',
        attempts: 2,
        nextAttemptAt: null,
        lastResponseStatus: 204,
        lastError: null,
      });
      expect(await deliveries().attempts('dlv_1')).toEqual([
        { attempt: 1, startedAt: at(2).toISOString(), durationMs: 12, responseStatus: 503, error: 'HTTP 503' },
        { attempt: 2, startedAt: at(5001).toISOString(), durationMs: 7, responseStatus: 204, error: null },
      ]);

      await seedDelivery(backend, keyId, at(0), { id: 'dlv_2' });
      [d] = await deliveries().claimDue(1, LEASE, at(1));
      await deliveries().recordAttempt(d!, outcome({ status: 'failed', error: 'no answer within 15000 ms' }));
      expect(await get('dlv_2')).toMatchObject({
        status: 'failed',
        attempts: 1,
        lastResponseStatus: null,
        nextAttemptAt: null,
      });
    });

    it('recordAttempt: a redeliver asked for during the attempt wins, with the retry schedule started over', async () => {
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_1' });
      const [d] = await deliveries().claimDue(1, LEASE, at(1));
      const during = await deliveries().redeliver(keyId, 'dlv_1', at(2));
      expect(during).toMatchObject({ status: 'pending', nextAttemptAt: at(2).toISOString(), scheduleFrom: 0 });
      const before = Date.now();
      await deliveries().recordAttempt(d!, outcome({ status: 'failed', responseStatus: 500, error: 'HTTP 500' }));
      const after = await get('dlv_1');
      expect(after).toMatchObject({ status: 'pending', attempts: 1, scheduleFrom: 1, lastError: 'HTTP 500' });
      // Due at once (the time the attempt was recorded).
      expect(Date.parse(after.nextAttemptAt!)).toBeGreaterThanOrEqual(before - 1);
      expect(Date.parse(after.nextAttemptAt!)).toBeLessThanOrEqual(Date.now());
      // The request was used up: the next attempt's outcome stands.
      const [again] = await deliveries().claimDue(1, LEASE, new Date(Date.now() + 1));
      await deliveries().recordAttempt(again!, outcome({ status: 'failed', error: 'HTTP 500' }));
      expect(await get('dlv_1')).toMatchObject({ status: 'failed', attempts: 2, scheduleFrom: 1 });
    });

    it('recordAttempt leaves a delivery failed meanwhile (its key revoked) failed, and still logs the attempt', async () => {
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_1' });
      const [d] = await deliveries().claimDue(1, LEASE, at(1));
      await backend.stores.keys.revoke(keyId);
      expect(await deliveries().failRevoked()).toBe(1);
      await deliveries().recordAttempt(d!, outcome({ status: 'succeeded', responseStatus: 200 }));
      expect(await get('dlv_1')).toMatchObject({ status: 'failed', attempts: 0, lastError: REVOKED_REASON });
      expect(await deliveries().attempts('dlv_1')).toHaveLength(1);
    });

    it("stopForUrl fails the key's other pending deliveries to that URL, except those with an attempt in flight", async () => {
      const other = (await backend.stores.keys.create('other')).id;
      const gone = 'https://receiver.test/gone';
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_410', url: gone });
      const [d] = await deliveries().claimDue(1, LEASE, at(1));
      await seedDelivery(backend, keyId, at(10), { id: 'dlv_leased', url: gone });
      await deliveries().claimDue(1, LEASE, at(11));
      await seedDelivery(backend, keyId, at(20), { id: 'dlv_same_url', url: gone });
      await seedDelivery(backend, keyId, at(20), { id: 'dlv_other_url', url: 'https://receiver.test/ok' });
      await seedDelivery(backend, other, at(20), { id: 'dlv_other_key', url: gone });
      expect(await deliveries().stopForUrl(d!, 'the receiver answered 410 Gone')).toBe(1);
      expect(await get('dlv_same_url')).toMatchObject({
        status: 'failed',
        nextAttemptAt: null,
        lastError: 'the receiver answered 410 Gone',
      });
      expect((await get('dlv_410')).status).toBe('pending'); // its own attempt records its outcome
      expect((await get('dlv_leased')).status).toBe('pending');
      expect((await get('dlv_other_url')).status).toBe('pending');
      expect((await get('dlv_other_key', other)).status).toBe('pending');
    });
  });

  webhookDeliveryReadsContract(open);
}
