// SQLite held locked by another process (an operator's sqlite3 in a long write, a backup tool): a request
// that must write waits busy_timeout (5 s) and then answers 503 unavailable with Retry-After, not a bare
// 500; once the lock is let go the same request succeeds. The service runs as its own process (the built
// CLI): its SQLite calls block its event loop while they wait, which must not stall the test too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKeyWithCli, killHard, startCli, type CliService } from '../helpers/durability-cli.js';
import { openSqliteFile, type SqliteFile } from '../helpers/sqlite-file.js';

let service: CliService;
let file: SqliteFile;
let key: string;
const dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-busy-'));

beforeAll(async () => {
  const env = { ...process.env, PAGEWATCH_DATA_DIR: dataDir, PAGEWATCH_PORT: '0', PAGEWATCH_HOST: '127.0.0.1' };
  key = (await createKeyWithCli({ ...env, PAGEWATCH_LOG_LEVEL: 'silent' }, 'sqlite-busy')).key;
  service = await startCli(env, 60_000);
  file = openSqliteFile(dataDir, 'sqlite');
}, 90_000);
afterAll(async () => {
  file?.close();
  if (service) await killHard(service);
  rmSync(dataDir, { recursive: true, force: true });
});

it('a write while another process holds the write lock past busy_timeout: 503 with Retry-After', async () => {
  const submit = () =>
    fetch(`${service.url}/api/pdf`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ html: '<p>busy</p>', async: true }),
    });
  file.db.exec('BEGIN IMMEDIATE'); // the write lock, held until ROLLBACK
  try {
    const refused = await submit();
    const body = await refused.text();
    expect(refused.status, body).toBe(503);
    expect((JSON.parse(body) as { error: { code: string } }).error.code).toBe('unavailable');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  } finally {
    file.db.exec('ROLLBACK');
  }
  expect((await submit()).status).toBe(202);
  expect(service.child.exitCode).toBeNull();
}, 90_000);
