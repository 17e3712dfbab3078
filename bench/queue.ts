/**
 * Queue benchmark: claims per second of the jobs store with 1, 4 and 16 claimers, each on connections of
 * its own (a pool per claimer on PostgreSQL, a handle per claimer on one SQLite file), over a queue of
 * BENCH_QUEUE_JOBS (2000) jobs spread over 10 keys. A claimer claims one job at a time and marks it
 * succeeded (a no-op job: no render), so the figure is the queue's own cost per job.
 *
 *   npm run bench -- --queue           # PostgreSQL at BENCH_POSTGRES_URL (default the tests' server) beside SQLite
 *
 * Prints one JSON line: { sqlite: { "1": claims/s, "4": …, "16": … }, postgres: { … } | null }.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { migrate, readMigrations } from '../src/stores/sql/migrate.js';
import { migratePostgres } from '../src/stores/sql/postgres/migrate.js';
import { createPool } from '../src/stores/sql/postgres/pool.js';
import { PostgresBackend } from '../src/stores/sql/postgres/backend.js';
import { SqliteBackend } from '../src/stores/sql/sqlite/backend.js';
import { openDatabase } from '../src/stores/sql/sqlite/connection.js';
import { projectRoot } from '../src/project-root.js';
import type { Backend } from '../src/stores/backend.js';

const JOBS = Number(process.env.BENCH_QUEUE_JOBS ?? 2000);
const CLAIMERS = [1, 4, 16];
const quiet = { warn: () => undefined, debug: () => undefined };

interface Database {
  open(): Promise<Backend>;
  /** Empties the queue tables between rounds. */
  reset(backend: Backend): Promise<void>;
  drop(): Promise<void>;
}

async function seed(backend: Backend): Promise<void> {
  const keys: string[] = [];
  for (let k = 0; k < 10; k++) keys.push((await backend.stores.keys.create(`bench${k}`)).id);
  const now = new Date();
  for (let i = 0; i < JOBS; i++) {
    await backend.stores.jobs.insert(
      {
        id: `job_${i.toString().padStart(6, '0')}`,
        keyId: keys[i % keys.length]!,
        kind: 'pdf',
        request: {},
        keptRequest: {},
        baseUrl: 'http://bench.test',
      },
      new Date(now.getTime() + i),
    );
  }
}

/** Claims per second with `n` claimers draining the queue. */
async function round(db: Database, n: number): Promise<number> {
  const main = await db.open();
  await db.reset(main);
  await seed(main);
  const claimers = await Promise.all(Array.from({ length: n }, () => db.open()));
  const started = performance.now();
  const counts = await Promise.all(
    claimers.map(async (backend, i) => {
      let claimed = 0;
      for (;;) {
        const [job] = await backend.stores.jobs.claim(`w${i}`, 1, 600_000, 3, new Date());
        if (!job) return claimed;
        await backend.stores.jobs.succeed(job.id, `w${i}`, undefined, new Date());
        claimed++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const total = counts.reduce((a, b) => a + b, 0);
  if (total !== JOBS) throw new Error(`claimed ${total} of ${JOBS} jobs`);
  await Promise.all([main, ...claimers].map((b) => b.close()));
  return Math.round(total / seconds);
}

function sqliteDatabase(): Database {
  const dir = mkdtempSync(join(tmpdir(), 'pagewatch-bench-queue-'));
  const file = join(dir, 'pagewatch.db');
  const first = openDatabase(file);
  migrate(first, readMigrations(resolve(projectRoot(), 'migrations', 'sqlite')));
  first.close();
  return {
    open: () => Promise.resolve(new SqliteBackend(openDatabase(file))),
    reset: () => {
      const raw = openDatabase(file);
      raw.exec('DELETE FROM jobs; DELETE FROM api_keys;');
      raw.close();
      return Promise.resolve();
    },
    drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
}

async function postgresDatabase(serverUrl: string): Promise<Database> {
  const name = `pagewatch_bench_${process.pid}`;
  const admin = new URL(serverUrl);
  admin.pathname = '/postgres';
  const onAdmin = async (statement: string) => {
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(statement).finally(() => client.end());
  };
  await onAdmin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const settings = {
    url: url.toString(),
    poolSize: 2,
    preparedStatements: process.env.BENCH_PG_PREPARED !== '0',
    tls: { mode: '' as const, caFile: '' },
  };
  const open = () => Promise.resolve(new PostgresBackend(createPool(settings, quiet), { listen: {}, log: quiet }));
  const first = await open();
  await migratePostgres(first.pool, readMigrations(resolve(projectRoot(), 'migrations', 'postgres')));
  await first.close();
  return {
    open,
    reset: async (backend) => void (await (backend as PostgresBackend).pool.query('TRUNCATE jobs, api_keys CASCADE')),
    drop: () => onAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function measure(db: Database): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  try {
    for (const n of CLAIMERS) out[n] = await round(db, n);
  } finally {
    await db.drop();
  }
  return out;
}

export async function measureQueue(): Promise<Record<string, unknown>> {
  const sqlite = await measure(sqliteDatabase());
  const serverUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  let postgres: Record<string, number> | null = null;
  try {
    postgres = await measure(await postgresDatabase(serverUrl));
  } catch (err) {
    process.stderr.write(`PostgreSQL not measured (${serverUrl}): ${(err as Error).message}\n`);
  }
  return { queue: { jobs: JOBS, claimsPerSecond: { sqlite, postgres } } };
}
