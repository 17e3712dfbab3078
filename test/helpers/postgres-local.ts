// STAND-IN for part A's test/helpers/postgres.ts (not merged yet), with the same API as the common brief
// describes it: at merge, point the imports at './postgres.js' and delete this file.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe } from 'vitest';

export const POSTGRES_URL = process.env.PAGEWATCH_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

let available: Promise<boolean> | undefined;

export function postgresAvailable(): Promise<boolean> {
  return (available ??= (async () => {
    const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  })());
}

const reachable = await postgresAvailable();

/** A describe that is skipped (one line) without PostgreSQL, and fails when PAGEWATCH_REQUIRE_POSTGRES=1. */
export function describePostgres(name: string, fn: () => void): void {
  if (reachable || process.env.PAGEWATCH_REQUIRE_POSTGRES === '1') {
    describe(name, fn);
    return;
  }
  console.log(
    `PostgreSQL not reachable at ${POSTGRES_URL}: PostgreSQL suites skipped (set PAGEWATCH_TEST_POSTGRES_URL, ` +
      'or start it with pg_ctlcluster --skip-systemctl-redirect 15 main start)',
  );
  describe.skip(name, fn);
}

function serverUrl(database: string): string {
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A new empty database `pagewatch_t_<random>`, created from the server's `postgres` database. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `pagewatch_t_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl('postgres') });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  return { url: serverUrl(name), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
