// What several nodes on one database add to the store contracts, for any backend: claimers on separate
// connections never share a job or a delivery, and each is claimed exactly once; one schedule tick claimed
// (or one missed run's catch-up) claimed by 20 connections at once has exactly one winner (a conditional
// UPDATE under READ COMMITTED). On SQLite
// the connections are handles on one file; on PostgreSQL, pools of their own.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/stores/backend.js';
import { seedDelivery, seedJob, seedMonitor, T0 } from './seed.js';

export interface SharedDatabase {
  backend: Backend;
  /** Another backend on the same database, over connections of its own (closed with the rest). */
  another(): Promise<Backend>;
  close(): Promise<void>;
}

const LEASE = 600_000;

/** Claims with `claim` until a round brings nothing; every id each claimer got. */
async function drain(claim: () => Promise<{ id: string }[]>): Promise<string[]> {
  const got: string[] = [];
  for (;;) {
    const batch = await claim();
    if (batch.length === 0) return got;
    got.push(...batch.map((r) => r.id));
  }
}

export function concurrencyContract(open: () => Promise<SharedDatabase>) {
  describe('several connections at once', () => {
    let db: SharedDatabase;
    let keys: string[];
    beforeEach(async () => {
      db = await open();
      keys = [];
      for (const name of ['a', 'b', 'c', 'd']) keys.push((await db.backend.stores.keys.create(name)).id);
    });
    afterEach(() => db.close());

    const claimers = (n: number) => Promise.all(Array.from({ length: n }, () => db.another()));

    it('two backends claiming at once never hold the same job, and together claim every job', async () => {
      for (let i = 0; i < 60; i++) await seedJob(db.backend, keys[i % 4]!, T0);
      const [one, two] = await claimers(2);
      const [a, b] = await Promise.all(
        [one!, two!].map((backend, i) => drain(() => backend.stores.jobs.claim(`w${i}`, 3, LEASE, 3, T0))),
      );
      expect(a!.filter((id) => b!.includes(id))).toEqual([]);
      expect(a!.length + b!.length).toBe(60);
    });

    it('4 claimers over 200 jobs claim each exactly once', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 200; i++) ids.add(await seedJob(db.backend, keys[i % 4]!, T0));
      const backends = await claimers(4);
      const got = (
        await Promise.all(backends.map((b, i) => drain(() => b.stores.jobs.claim(`w${i}`, 5, LEASE, 3, T0))))
      ).flat();
      expect(got.length).toBe(200);
      expect(new Set(got)).toEqual(ids);
      const running = await Promise.all([...ids].map((id) => db.backend.stores.jobs.get(id)));
      expect(running.every((j) => j!.status === 'running' && j!.attempts === 1)).toBe(true);
    });

    it('4 claimers over 200 due deliveries claim each exactly once', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 200; i++) ids.add(await seedDelivery(db.backend, keys[i % 4]!, T0));
      const backends = await claimers(4);
      const got = (
        await Promise.all(backends.map((b) => drain(() => b.stores.deliveries.claimDue(5, LEASE, T0))))
      ).flat();
      expect(got.length).toBe(200);
      expect(new Set(got)).toEqual(ids);
    });

    it('20 connections claiming the same schedule tick at once: exactly one wins', async () => {
      const monitorId = await seedMonitor(db.backend, keys[0]!, T0);
      const backends = await claimers(20);
      const tick = new Date(T0.getTime() + 300_000);
      const won = await Promise.all(backends.map((b) => b.stores.monitors.claimTick(monitorId, tick, 60_000)));
      expect(won.filter(Boolean).length).toBe(1);
      // The tick is taken for good: a later try by anyone finds it taken.
      expect(await db.backend.stores.monitors.claimTick(monitorId, tick, 60_000)).toBe(false);
    });

    it('20 connections claiming the catch-up of the same missed run at once (nodes starting together): one wins', async () => {
      const monitorId = await seedMonitor(db.backend, keys[0]!, T0);
      const missed = new Date(T0.getTime() + 60_000);
      await db.backend.stores.monitors.setNextRun(monitorId, missed);
      const backends = await claimers(20);
      const now = new Date(T0.getTime() + 600_000);
      const won = await Promise.all(
        backends.map((b) => b.stores.monitors.claimCatchUp(monitorId, missed.toISOString(), now)),
      );
      expect(won.filter(Boolean).length).toBe(1);
      expect((await db.backend.stores.monitors.get(monitorId))?.nextRunAt).toBe(now.toISOString());
      expect(await db.backend.stores.monitors.claimCatchUp(monitorId, missed.toISOString(), now)).toBe(false);
    });
  });
}
