// runExclusive on a real PostgreSQL: one name runs on one node at a time (the other gets undefined at
// once), different names do not block each other, and the lock is freed when fn throws.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runExclusive } from '../../src/stores/sql/postgres/advisory-lock.js';
import { describePostgres, freshDatabase } from '../helpers/postgres.js';

/** A promise and its resolver, to hold a run open until the test lets it finish. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describePostgres('runExclusive (PostgreSQL advisory lock)', () => {
  let database: { url: string; drop(): Promise<void> };
  let nodeA: pg.Pool;
  let nodeB: pg.Pool;
  beforeAll(async () => {
    database = await freshDatabase();
    nodeA = new pg.Pool({ connectionString: database.url, max: 3 });
    nodeB = new pg.Pool({ connectionString: database.url, max: 3 });
    for (const pool of [nodeA, nodeB]) pool.on('error', () => undefined); // idle connections closed by the drop
  });
  afterAll(async () => {
    await Promise.all([nodeA.end(), nodeB.end()]);
    await database.drop();
  });

  it('of two concurrent runs of one name, one runs and the other gets undefined', async () => {
    const hold = gate();
    const started = gate();
    const first = runExclusive(nodeA, 'sweep', async () => {
      started.open();
      await hold.opened;
      return 'first';
    });
    await started.opened;
    let secondRan = false;
    const second = await runExclusive(nodeB, 'sweep', () => {
      secondRan = true;
      return Promise.resolve('second');
    });
    expect(second).toBeUndefined();
    expect(secondRan).toBe(false);
    // The same pool (another of its connections) is refused too: the lock is per session.
    expect(await runExclusive(nodeA, 'sweep', () => Promise.resolve('again'))).toBeUndefined();
    hold.open();
    expect(await first).toBe('first');
    expect(await runExclusive(nodeB, 'sweep', () => Promise.resolve('after'))).toBe('after'); // freed
  });

  it('different names both run at once', async () => {
    const hold = gate();
    const started = gate();
    const first = runExclusive(nodeA, 'name-one', async () => {
      started.open();
      await hold.opened;
      return 1;
    });
    await started.opened;
    expect(await runExclusive(nodeB, 'name-two', () => Promise.resolve(2))).toBe(2);
    hold.open();
    expect(await first).toBe(1);
  });

  it('frees the lock after fn throws, and passes the error on', async () => {
    await expect(runExclusive(nodeA, 'thrower', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await runExclusive(nodeB, 'thrower', () => Promise.resolve('free'))).toBe('free');
    // And the connection went back to the pool holding no lock: every one of A's sessions can take it.
    const { rows } = await nodeA.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND database = " +
        '(SELECT oid FROM pg_database WHERE datname = current_database())',
    );
    expect(Number(rows[0]!.n)).toBe(0);
  });
});
