// Change topics cross nodes on PostgreSQL: a commit on one backend is heard on another backend's
// `changes` (NOTIFY inside the transaction, LISTEN on every node), a rollback sends nothing, and a
// backend does not hear its own notifications twice (it emitted them itself after the commit).
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { PostgresBackend } from '../../src/stores/sql/postgres/backend.js';
import type { ChangeTopic } from '../../src/stores/backend.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';
import { migrateAt, postgresBackendAt } from '../contract/postgres-backend.js';
import { seedDelivery, T0 } from '../contract/seed.js';

describePostgres('PostgreSQL change topics across backends', () => {
  let db: FreshDatabase;
  let one: PostgresBackend;
  let two: PostgresBackend;
  let heard: { one: ChangeTopic[]; two: ChangeTopic[] };
  beforeAll(async () => {
    db = await freshDatabase();
    await migrateAt(db.url);
  });
  afterAll(() => db?.drop());
  beforeEach(async () => {
    [one, two] = await Promise.all([postgresBackendAt(db.url), postgresBackendAt(db.url)]);
    heard = { one: [], two: [] };
    for (const topic of ['jobs', 'deliveries', 'monitors', 'keys'] as const) {
      one.changes.on(topic, () => heard.one.push(topic));
      two.changes.on(topic, () => heard.two.push(topic));
    }
  });
  afterEach(() => Promise.all([one.close(), two.close()]));

  it('a job committed on one backend is heard on the other, once on each', async () => {
    const keyId = (await one.stores.keys.create('a')).id;
    await one.transaction(async (tx) => {
      await tx.jobs.insert(
        { id: 'job_x', keyId, kind: 'pdf', request: {}, keptRequest: {}, baseUrl: 'http://x.test' },
        T0,
      );
    });
    expect(heard.one).toEqual(['jobs']); // at once, after the commit
    await until('backend two to hear `jobs`', () => heard.two.includes('jobs'));
    // Outside a transaction too (an autocommitted write notifies after it).
    await seedDelivery(one, keyId, T0);
    await until('backend two to hear `deliveries`', () => heard.two.includes('deliveries'));
    // The marker below arrives after anything sent before it (one LISTEN connection, commit order), so
    // once it is heard, a duplicate of one's own notifications would have been heard too.
    await two.stores.keys.revoke(keyId);
    await until('backend one to hear `keys`', () => heard.one.includes('keys'));
    expect(heard.one).toEqual(['jobs', 'deliveries', 'keys']);
    expect(heard.two).toEqual(['jobs', 'deliveries', 'keys']);
  });

  it('a rolled-back transaction notifies nothing', async () => {
    const keyId = (await one.stores.keys.create('a')).id;
    await expect(
      one.transaction(async (tx) => {
        await tx.jobs.insert(
          { id: 'job_y', keyId, kind: 'pdf', request: {}, keptRequest: {}, baseUrl: 'http://x.test' },
          T0,
        );
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    // A committed marker after the rollback: notifications arrive in commit order, so when two hears
    // `keys`, a `jobs` from the rolled-back transaction would already have arrived.
    await one.stores.keys.revoke(keyId);
    await until('backend two to hear `keys`', () => heard.two.includes('keys'));
    expect(heard.two).toEqual(['keys']);
    expect(heard.one).toEqual(['keys']);
  });
});
