// PostgreSQL for tests: the server at PAGEWATCH_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test).
// `describePostgres` runs its suite when the server answers; otherwise it is skipped with one console
// line — or fails, with PAGEWATCH_REQUIRE_POSTGRES=1 (CI), so a missing server cannot pass silently.
// `freshDatabase` makes a database of its own for one test file (pagewatch_t_<random>, created from the
// server's `postgres` database) and drops it afterwards, connections and all.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, it } from 'vitest';

export const POSTGRES_URL = process.env.PAGEWATCH_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REQUIRED = process.env.PAGEWATCH_REQUIRE_POSTGRES === '1';

/** `url` with another database name. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function onServer<T>(database: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: withDatabase(POSTGRES_URL, database),
    connectionTimeoutMillis: 3000,
  });
  client.on('error', () => undefined); // a failure surfaces through the query that meets it
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

let probe: Promise<boolean> | undefined;
export function postgresAvailable(): Promise<boolean> {
  return (probe ??= onServer(new URL(POSTGRES_URL).pathname.slice(1) || 'postgres', async (c) => {
    await c.query('SELECT 1');
    return true;
  }).catch(() => false));
}

const reachable = await postgresAvailable();
let told = false;

export function describePostgres(name: string, fn: () => void): void {
  if (reachable) {
    describe(name, fn);
    return;
  }
  const message =
    `PostgreSQL not reachable at ${POSTGRES_URL}: PostgreSQL suites skipped (set PAGEWATCH_TEST_POSTGRES_URL, ` +
    'or start it with pg_ctlcluster --skip-systemctl-redirect 15 main start)';
  if (REQUIRED) {
    describe(name, () => {
      it('needs PostgreSQL (PAGEWATCH_REQUIRE_POSTGRES=1)', () => {
        throw new Error(message);
      });
    });
    return;
  }
  if (!told) console.log(message);
  told = true;
  describe.skip(name, fn);
}

export interface FreshDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function freshDatabase(): Promise<FreshDatabase> {
  const name = `pagewatch_t_${randomBytes(6).toString('hex')}`;
  await onServer('postgres', (c) => c.query(`CREATE DATABASE ${name}`));
  return {
    url: withDatabase(POSTGRES_URL, name),
    name,
    drop: () =>
      onServer('postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
