// Opens a PostgreSQL backend for a contract suite over one migrated database per test file: each open
// empties every table first (faster than a database per test), so every test starts as on a fresh file.
import { resolve } from 'node:path';
import { readMigrations } from '../../src/stores/sql/migrate.js';
import { migratePostgres } from '../../src/stores/sql/postgres/migrate.js';
import { connectionOptions, createPool } from '../../src/stores/sql/postgres/pool.js';
import type { Config } from '../../src/config.js';
import { PostgresBackend } from '../../src/stores/sql/postgres/backend.js';
import type { Backend } from '../../src/stores/backend.js';
import type { SharedDatabase } from './concurrency.contract.js';

const quiet = { warn: () => undefined, debug: () => undefined };
const TABLES = [
  'webhook_attempts',
  'webhook_deliveries',
  'idempotency_keys',
  'monitor_logins',
  'feeds',
  'captures',
  'monitors',
  'channels',
  'jobs',
  'api_keys',
];

export const POSTGRES_MIGRATIONS = resolve(import.meta.dirname, '../../migrations/postgres');

/** database.tls: none unless a suite runs over TLS (test/faults/postgres-tls.test.ts). */
export type TlsSettings = Config['database']['tls'];
const URL_DECIDES: TlsSettings = { mode: '', caFile: '' };

/** A backend over `url` (a pool of `poolSize`), listening to the other nodes' changes. */
export async function postgresBackendAt(url: string, poolSize = 4, tls = URL_DECIDES): Promise<PostgresBackend> {
  const settings = { url, poolSize, preparedStatements: true, tls };
  const backend = new PostgresBackend(createPool(settings, quiet), {
    listen: connectionOptions(settings),
    log: quiet,
  });
  await backend.listen();
  return backend;
}

export async function migrateAt(url: string, tls = URL_DECIDES): Promise<string[]> {
  const backend = await postgresBackendAt(url, 1, tls);
  try {
    return await migratePostgres(backend.pool, readMigrations(POSTGRES_MIGRATIONS));
  } finally {
    await backend.close();
  }
}

/** The opener of the contract suites: an emptied database and a backend over it. */
export function postgresOpener(url: () => string, tls = URL_DECIDES) {
  return async (): Promise<{ backend: Backend; close(): Promise<void> }> => {
    const backend = await postgresBackendAt(url(), 4, tls);
    await backend.pool.query(`TRUNCATE ${TABLES.join(', ')}`);
    return { backend, close: () => backend.close() };
  };
}

/** The concurrency contract's opener: an emptied database, and backends over pools of their own. */
export function postgresSharedOpener(url: () => string, tls = URL_DECIDES) {
  return async (): Promise<SharedDatabase> => {
    const first = await postgresOpener(url, tls)();
    const others: PostgresBackend[] = [];
    return {
      backend: first.backend,
      async another() {
        const backend = await postgresBackendAt(url(), 2, tls);
        others.push(backend);
        return backend;
      },
      async close() {
        await Promise.all(others.map((b) => b.close()));
        await first.close();
      },
    };
  };
}
