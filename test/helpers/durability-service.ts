// For durability tests: the real service in-process on a data directory the test chooses, so a second
// service can start on the same directory (the same SQLite file and results) after the first stopped.
// Unlike test/helpers/service.ts, stopping never removes the directory; the test owns it.
import { loadConfig } from '../../src/config-load.js';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import { SyncKeys } from './sync-keys.js';
import { createLogger } from '../../src/log.js';
import { startService, type Service } from '../../src/app/serve.js';
import type { Db } from '../../src/stores/sql/sqlite/connection.js';
import { openSqliteFile, withDb } from './sqlite-file.js';
import { FIXTURE_EGRESS } from './service.js';

export interface DurableService extends Service {
  dataDir: string;
  /** The SQLite file on a connection of the test's own (test/helpers/sqlite-file.ts), closed by stop. */
  readonly db: Db;
  // Function-valued properties, not methods: tests pass `svc.call` around, and neither uses `this`.
  createKey: (name?: string) => IssuedKey;
  /** GET/DELETE/POST `path` with the key (and a JSON body, if given). */
  call: (
    method: string,
    path: string,
    key: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => Promise<Response>;
}

export async function startServiceOn(
  dataDir: string,
  overrides: Record<string, unknown> = {},
): Promise<DurableService> {
  const config = loadConfig({
    env: {}, // ignore the developer's PAGEWATCH_* variables
    overrides: {
      port: 0,
      host: '127.0.0.1',
      dataDir,
      logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
      egress: FIXTURE_EGRESS,
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
      ...overrides,
    },
  });
  const service = await startService(config, createLogger(config.logLevel));
  const file = openSqliteFile(config.dataDir, service.databaseKind);
  const durable: Omit<DurableService, 'db'> = {
    ...service,
    dataDir,
    stop: async () => {
      await service.stop();
      file.close();
    },
    createKey: (name = 'test') => new SyncKeys(file.db).create(name),
    call: (method, path, key, body, headers = {}) =>
      fetch(`${service.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
  };
  return withDb(durable, file);
}
