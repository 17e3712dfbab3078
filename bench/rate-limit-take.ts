// What a request's rate-limit take costs (`node dist/bench/rate-limit-take.js`): p50/p95 in µs of
// `take` on the one-node buckets (memory) and on the shared buckets (PostgreSQL, one statement per
// take over a pool), sequential takes as one request sees them; plus the PostgreSQL figure with 8
// takes in flight at once on one bucket (contention on its row). PostgreSQL at BENCH_POSTGRES_URL
// (default postgres://postgres@127.0.0.1:5432/postgres); a scratch database is made and dropped.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { MemoryRateLimits } from '../src/stores/sql/sqlite/memory-rate-limits.js';
import { PostgresRateLimits } from '../src/stores/sql/postgres/rate-limits.js';
import { projectRoot } from '../src/project-root.js';
import type { RateLimitStore } from '../src/stores/rate-limits.js';
import { percentile, round1 } from './stats.js';

const N = Number(process.env.BENCH_N ?? 2000);
const ADMIN = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function timeTakes(store: RateLimitStore, inFlight: number): Promise<{ p50: number; p95: number }> {
  const micros: number[] = [];
  const buckets = ['ip:203.0.113.7', 'key:key_a', 'key:key_b'];
  let i = 0;
  const lane = async () => {
    while (i < N) {
      const bucket = buckets[i++ % buckets.length]!;
      const t = process.hrtime.bigint();
      await store.take(bucket, 1_000_000, Date.now());
      micros.push(Number(process.hrtime.bigint() - t) / 1000);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return { p50: round1(percentile(micros, 50)), p95: round1(percentile(micros, 95)) };
}

async function main(): Promise<void> {
  const name = `pagewatch_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 10 });
  pool.on('error', () => undefined); // an idle connection closed by the DROP at the end
  try {
    await pool.query(readFileSync(resolve(projectRoot(), 'migrations/postgres/0003_cluster.sql'), 'utf8'));
    const memory = new MemoryRateLimits();
    const shared = new PostgresRateLimits(pool);
    await timeTakes(shared, 1); // warm the pool's connections and the server's plan
    const result = {
      n: N,
      memoryUs: await timeTakes(memory, 1),
      postgresUs: await timeTakes(shared, 1),
      postgres8InFlightUs: await timeTakes(shared, 8),
    };
    console.log(JSON.stringify(result));
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
