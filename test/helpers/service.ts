// Starts the real service in-process — real HTTP server on 127.0.0.1, real Chromium, real SQLite file
// in a fresh temp directory — for integration tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config-load.js';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import { SyncKeys } from './sync-keys.js';
import type { DestinationStream } from 'pino';
import { createLogger } from '../../src/log.js';
import type { Clock } from '../../src/domain/clock.js';
import { startService, type Service } from '../../src/app/serve.js';
import type { Db } from '../../src/stores/sql/sqlite/connection.js';
import { openSqliteFile, withDb } from './sqlite-file.js';
import { FIXTURE_EGRESS, RELAXED_ANONYMOUS_LIMITS } from './test-config.js';

export interface TestService extends Service {
  dataDir: string;
  /** The SQLite file on a connection of the test's own (test/helpers/sqlite-file.ts); throws on PostgreSQL. */
  readonly db: Db;
  // Function-valued properties, not methods: tests pass `svc.call` around, and none of them uses `this`.
  /** POST a JSON body to `path`; returns the fetch Response. */
  post: (path: string, body: unknown, headers?: Record<string, string>) => Promise<Response>;
  /** A new API key (as `pagewatch keys create` makes it). */
  createKey: (name?: string) => IssuedKey;
  /** GET/DELETE/POST `path` with the key (and a JSON body, if given). */
  call: (
    method: string,
    path: string,
    key: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => Promise<Response>;
  close: () => Promise<void>;
}

export { FIXTURE_EGRESS, RELAXED_ANONYMOUS_LIMITS } from './test-config.js';

/**
 * `log`: where the service's log lines go (a test that reads what was logged), at `logLevel`; without it
 * the level is TEST_LOG_LEVEL or silent, on stdout. `clock`: the service's clock (a TestClock: fake time).
 */
export async function startTestService(
  overrides: Record<string, unknown> = {},
  options: { log?: DestinationStream; logLevel?: string; clock?: Clock } = {},
): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-test-'));
  const config = loadConfig({
    env: {}, // ignore the developer's PAGEWATCH_* variables
    overrides: {
      port: 0,
      host: '127.0.0.1',
      dataDir,
      logLevel: options.logLevel ?? process.env.TEST_LOG_LEVEL ?? 'silent',
      egress: FIXTURE_EGRESS,
      // Most tests render anonymously and many times a minute; rate-limit tests set their own budget.
      rateLimit: { anonymousPerMinute: 1_000_000 },
      ...overrides,
      // ...and several renders at once, with long timeouts and long PDFs: the anonymous tier's own limits
      // are tested where a test sets them (anonymous-tier.test.ts). A test's other limits are kept.
      limits: { ...RELAXED_ANONYMOUS_LIMITS, ...(overrides.limits as Record<string, unknown> | undefined) },
    },
  });
  const service = await startService(config, createLogger(config.logLevel, options.log), { clock: options.clock });
  // fetch keeps connections alive for as long as the server's Keep-Alive header allows (5 s by default). On
  // a loaded machine a connection left idle that long can be reused just as the server closes it: the
  // request then fails with ECONNRESET (seen after a 7 s render in http-contract). A longer server timeout
  // leaves no test idle long enough for that race.
  service.server.keepAliveTimeout = 60_000;
  // config.dataDir: a test may name its own (to start a second service on the same data).
  const file = openSqliteFile(config.dataDir, service.databaseKind);
  const test: Omit<TestService, 'db'> = {
    ...service,
    dataDir,
    post: (path, body, headers = {}) =>
      fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
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
    stop: async () => {
      await service.stop();
      file.close();
    },
    close: async () => {
      await test.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return withDb(test, file);
}

/** Reads an error response body, asserting the contract's error shape along the way. */
export async function errorOf(
  res: Response,
): Promise<{ code: string; message: string; details?: { path: string; message: string }[] }> {
  const body = (await res.json()) as {
    error: { code: string; message: string; details?: { path: string; message: string }[] };
    requestId: string;
  };
  if (!body.error || typeof body.error.code !== 'string' || typeof body.requestId !== 'string') {
    throw new Error(`not the contract's error shape: ${JSON.stringify(body)}`);
  }
  return body.error;
}

export async function bytesOf(res: Response): Promise<Buffer> {
  return Buffer.from(await res.arrayBuffer());
}
