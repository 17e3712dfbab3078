/**
 * What one keyed request costs the database (part of `npm run bench -- --queue`): the auth and rate-limit
 * middleware's calls — key lookup, touch, rate-limit take — one request at a time, on SQLite and on
 * PostgreSQL, p50/p95 of the whole and each call's p50, in ms. The bar: p50 <= 2 ms on PostgreSQL. PostgreSQL
 * at BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres): a scratch database is made
 * and dropped.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config-load.js';
import { openBackend, type OpenedBackend } from '../src/stores/sql/open-backend.js';
import { createLogger } from '../src/log.js';
import { percentile } from './stats.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const ADMIN = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

type Kind = 'sqlite' | 'postgres';

/** A migrated, empty database of `kind`, and how to throw it away. */
async function scratch(kind: Kind): Promise<{ opened: OpenedBackend; dispose: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-bench-queue-'));
  let url = '';
  let drop = async () => {};
  if (kind === 'postgres') {
    const name = `pagewatch_bench_${randomBytes(4).toString('hex')}`;
    const admin = async (statement: string) => {
      const client = new pg.Client({ connectionString: ADMIN });
      await client.connect();
      await client.query(statement).finally(() => client.end());
    };
    await admin(`CREATE DATABASE ${name}`);
    const u = new URL(ADMIN);
    u.pathname = `/${name}`;
    url = u.toString();
    drop = () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
  const config = loadConfig({
    env: {},
    overrides: { dataDir, logLevel: 'silent', database: { url, poolSize: 20 } },
  });
  const opened = await openBackend(config, createLogger('silent'));
  return {
    opened,
    dispose: async () => {
      await opened.backend.close();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type RequestDb = { p50: number; p95: number; findActiveP50: number; touchP50: number; takeP50: number };

/**
 * What the auth and rate-limit middleware ask the database for one keyed request, one request at a time:
 * the whole (lookup, touch, take) and each call's p50. The middleware touches a key once a minute, so most
 * requests pay lookup + take only.
 */
async function keyedRequestDbMs(kind: Kind): Promise<RequestDb> {
  const { opened, dispose } = await scratch(kind);
  try {
    const { keys } = opened.backend.stores;
    const issued = await keys.create('bench');
    const whole: number[] = [];
    const parts = { find: [] as number[], touch: [] as number[], take: [] as number[] };
    for (let i = 0; i < REQUESTS; i++) {
      const t0 = performance.now();
      const record = await keys.findActive(issued.key);
      if (!record) throw new Error('the bench key was not found');
      const t1 = performance.now();
      await keys.touch(record.id);
      const t2 = performance.now();
      await opened.rateLimits.take(`key:${record.id}`, 1_000_000, Date.now());
      const t3 = performance.now();
      whole.push(t3 - t0);
      parts.find.push(t1 - t0);
      parts.touch.push(t2 - t1);
      parts.take.push(t3 - t2);
    }
    const ms = (values: number[], p: number) => Math.round(percentile(values, p) * 1000) / 1000;
    return {
      p50: ms(whole, 50),
      p95: ms(whole, 95),
      findActiveP50: ms(parts.find, 50),
      touchP50: ms(parts.touch, 50),
      takeP50: ms(parts.take, 50),
    };
  } finally {
    await dispose();
  }
}

export async function measureKeyedRequestDb(): Promise<Record<string, unknown>> {
  const loadBefore = Math.round(loadavg()[0]! * 10) / 10;
  const sqlite = await keyedRequestDbMs('sqlite');
  const postgres = await keyedRequestDbMs('postgres');
  return {
    keyedRequestDbMs: { sqlite, postgres },
    'postgresKeyedRequestDb<=2ms': postgres.p50 <= 2,
    loadAvg1: [loadBefore, Math.round(loadavg()[0]! * 10) / 10],
  };
}
