// The shared token buckets on a real PostgreSQL: two stores over two pools (two nodes) taking from one
// bucket at once allow exactly its budget; the refill, headers' figures and cleanup follow the one-node
// buckets' rule, read on an injected clock.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryRateLimits } from '../../src/stores/sql/sqlite/memory-rate-limits.js';
import { PostgresRateLimits } from '../../src/stores/sql/postgres/rate-limits.js';
import { applyClusterMigration } from '../helpers/cluster-migration.js';
import { describePostgres, freshDatabase } from '../helpers/postgres.js';

describePostgres('PostgreSQL rate limits (shared token buckets)', () => {
  let database: { url: string; drop(): Promise<void> };
  let pools: pg.Pool[];
  let nodeA: PostgresRateLimits;
  let nodeB: PostgresRateLimits;
  beforeAll(async () => {
    database = await freshDatabase();
    pools = [
      new pg.Pool({ connectionString: database.url, max: 5 }),
      new pg.Pool({ connectionString: database.url, max: 5 }),
    ];
    for (const pool of pools) pool.on('error', () => undefined); // idle connections closed by the drop
    await applyClusterMigration(pools[0]!);
    nodeA = new PostgresRateLimits(pools[0]!);
    nodeB = new PostgresRateLimits(pools[1]!);
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await database.drop();
  });

  it('two nodes hammering one bucket at once allow exactly its budget', async () => {
    const now = 1_000_000;
    const takes = Array.from({ length: 100 }, (_, i) => (i % 2 ? nodeA : nodeB).take('ip:1.2.3.4', 20, now));
    const answers = await Promise.all(takes);
    expect(answers.filter((a) => a.allowed)).toHaveLength(20);
    expect(answers.filter((a) => !a.allowed).every((a) => a.remaining === 0 && a.retryAfterSeconds === 3)).toBe(true);
  });

  it('refills continuously on the injected clock, up to the budget and no further', async () => {
    let now = 5_000_000;
    for (let i = 0; i < 20; i++) expect((await nodeA.take('key:refill', 20, now)).allowed).toBe(true);
    expect((await nodeB.take('key:refill', 20, now)).allowed).toBe(false);
    now += 2999; // 20/min is one token per 3 s
    expect((await nodeB.take('key:refill', 20, now)).allowed).toBe(false);
    now += 1;
    expect(await nodeB.take('key:refill', 20, now)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await nodeA.take('key:refill', 20, now)).allowed).toBe(false);
    now += 10 * 60_000; // long idle: full, never more than the budget
    const allowed = [];
    for (let i = 0; i < 25; i++) allowed.push((await nodeA.take('key:refill', 20, now)).allowed);
    expect(allowed.filter(Boolean)).toHaveLength(20);
  });

  it("gives the one-node buckets' answers, figure for figure, for the same takes", async () => {
    const memory = new MemoryRateLimits();
    const steps: [number, number][] = []; // [ms since the last take, takes at that instant]
    for (let i = 0; i < 30; i++) steps.push([(i * 7919) % 4000, 1 + (i % 4)]);
    let now = 9_000_000;
    for (const [gap, count] of steps) {
      now += gap;
      for (let i = 0; i < count; i++) {
        const shared = await (i % 2 ? nodeA : nodeB).take('key:same', 12, now);
        expect(shared).toEqual(await memory.take('key:same', 12, now));
      }
    }
  });

  it('deletes only the buckets idle long enough to be full again', async () => {
    const now = 20_000_000;
    await nodeA.take('key:idle', 20, now - 120_001);
    await nodeA.take('key:recent', 20, now - 119_999);
    expect(await nodeA.deleteIdle(now)).toBeGreaterThanOrEqual(1);
    const { rows } = await pools[0]!.query<{ bucket: string }>(
      "SELECT bucket FROM rate_buckets WHERE bucket LIKE 'key:%' ORDER BY bucket",
    );
    expect(rows.map((r) => r.bucket)).toEqual(['key:recent']);
  });
});
