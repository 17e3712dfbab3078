// Two nodes whose transactions lock the same rows in opposite order deadlock on PostgreSQL; the server
// ends one of them (deadlock_detected), and the backend runs that one again from the start instead of
// failing its caller: both transactions commit, each exactly once. Real PostgreSQL; the deadlock is made on
// purpose with two backends (two pools, as two nodes) and a barrier between their first and second write.
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { PostgresBackend } from '../../src/stores/sql/postgres/backend.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../helpers/postgres.js';
import { migrateAt, postgresBackendAt } from '../contract/postgres-backend.js';
import { seedMonitor, T0 } from '../contract/seed.js';

describePostgres('PostgreSQL transactions after a deadlock', () => {
  let db: FreshDatabase;
  let one: PostgresBackend;
  let two: PostgresBackend;
  beforeAll(async () => {
    db = await freshDatabase();
    await migrateAt(db.url);
  });
  afterAll(() => db?.drop());
  beforeEach(async () => {
    [one, two] = await Promise.all([postgresBackendAt(db.url), postgresBackendAt(db.url)]);
  });
  afterEach(() => Promise.all([one.close(), two.close()]));

  it('the transaction PostgreSQL ends as the deadlock victim is run again, and both commit once', async () => {
    const keyId = (await one.stores.keys.create('k')).id;
    const a = await seedMonitor(one, keyId, T0);
    const b = await seedMonitor(one, keyId, T0);
    // Each transaction's first attempt takes its first row, waits until the other has taken its own, then
    // reaches for the other's row: a deadlock. Later attempts (the retry) go straight through.
    let firstWrites = 0;
    let bothHoldOne: () => void;
    const barrier = new Promise<void>((resolve) => (bothHoldOne = resolve));
    const attempts = { one: 0, two: 0 };
    const run = (backend: PostgresBackend, name: 'one' | 'two', first: string, second: string) =>
      backend.transaction(async (tx) => {
        attempts[name]++;
        await tx.monitors.recordSkip(first);
        if (attempts[name] === 1) {
          if (++firstWrites === 2) bothHoldOne();
          await barrier;
        }
        await tx.monitors.recordSkip(second);
      });
    await Promise.all([run(one, 'one', a, b), run(two, 'two', b, a)]);
    expect(attempts.one + attempts.two).toBe(3); // one of them ran twice
    // Each monitor was counted once by each committed transaction, and never by the rolled-back attempt.
    expect((await one.stores.monitors.get(a))?.skippedRuns).toBe(2);
    expect((await one.stores.monitors.get(b))?.skippedRuns).toBe(2);
  });
});
