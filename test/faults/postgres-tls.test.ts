// The store contracts over TLS: a PostgreSQL of the test's own with ssl=on and a server certificate from a
// CA made here (openssl), reached with database.tls.mode=verify-full trusting that CA (caFile), the LISTEN
// connection included. And the negative: trusting another CA, the connection is refused.
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHUNK_BYTES, DatabaseFileStore } from '../../src/stores/files/database.js';
import { createPool } from '../../src/stores/sql/postgres/pool.js';
import { apiKeysContract } from '../contract/api-keys.contract.js';
import { capturesContract } from '../contract/captures.contract.js';
import { concurrencyContract } from '../contract/concurrency.contract.js';
import { fileStoreContract } from '../contract/file-store.contract.js';
import { idempotencyKeysContract } from '../contract/idempotency-keys.contract.js';
import { jobsContract } from '../contract/jobs.contract.js';
import { keyDataContract } from '../contract/key-data.contract.js';
import { monitorsContract } from '../contract/monitors.contract.js';
import {
  migrateAt,
  postgresBackendAt,
  postgresOpener,
  postgresSharedOpener,
  type TlsSettings,
} from '../contract/postgres-backend.js';
import { retentionContract } from '../contract/retention.contract.js';
import { statusReadsContract } from '../contract/status-reads.contract.js';
import { webhookDeliveriesContract } from '../contract/webhook-deliveries.contract.js';
import { withDatabase } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../helpers/throwaway-postgres.js';

const openssl = (dir: string, ...args: string[]) => promisify(execFile)('openssl', args, { cwd: dir });
const quiet = { warn: () => undefined };

/** A self-signed CA in `dir`: NAME.crt and NAME.key. */
async function makeCa(dir: string, name: string): Promise<string> {
  await openssl(
    dir,
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=pagewatch test ${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
  );
  return join(dir, `${name}.crt`);
}

/** server.crt (signed by `ca`) for 127.0.0.1 and localhost, and server.key (the postgres user's, 0600). */
async function makeServerCert(dir: string, ca: string): Promise<{ cert: string; key: string }> {
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName = IP:127.0.0.1, DNS:localhost\n');
  await openssl(
    dir,
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
  );
  await openssl(
    dir,
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'san.ext',
    '-out',
    'server.crt',
  );
  const key = join(dir, 'server.key');
  // PostgreSQL refuses a key others may read; it runs as postgres.
  const { stdout } = await promisify(execFile)('id', ['-u', 'postgres']);
  const uid = Number(stdout.trim());
  chownSync(key, uid, uid);
  chmodSync(key, 0o600);
  chmodSync(dir, 0o755);
  return { cert: join(dir, 'server.crt'), key };
}

describe('PostgreSQL over TLS (verify-full, a CA made by the test)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pagewatch-tls-'));
  let server: ThrowawayPostgres;
  let url: string;
  const tls: TlsSettings = { mode: 'verify-full', caFile: join(dir, 'ca.crt') };
  let wrongCa: string;

  beforeAll(async () => {
    const ca = await makeCa(dir, 'ca');
    wrongCa = await makeCa(dir, 'other-ca');
    const { cert, key } = await makeServerCert(dir, join(dir, 'ca'));
    // pg_createcluster writes 127.0.0.1 unquoted (it looks like a number), which postgresql.conf refuses;
    // and it drops `ssl` from its options (it sets ssl=on only with Debian's snakeoil certificate): TLS is
    // turned on once the server runs, with a reload.
    server = await startThrowawayPostgres({
      listen_addresses: 'localhost',
      ssl_cert_file: cert,
      ssl_key_file: key,
    });
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query('ALTER SYSTEM SET ssl = on');
    await admin.query('SELECT pg_reload_conf()');
    await admin.query('CREATE DATABASE contracts');
    await admin.end();
    url = withDatabase(server.url, 'contracts');
    expect(ca).toBe(tls.caFile);
    await until(
      'the server to take TLS connections (after its reload)',
      async () => {
        const pool = createPool({ url, poolSize: 1, preparedStatements: true, tls }, quiet);
        return pool
          .query('SELECT 1')
          .then(
            () => true,
            () => false,
          )
          .finally(() => pool.end());
      },
      15_000,
      100,
    );
    await migrateAt(url, tls);
  }, 120_000);
  afterAll(async () => {
    await server?.drop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('the pool and the LISTEN connection both speak TLS to the server', async () => {
    const backend = await postgresBackendAt(url, 1, tls);
    try {
      const { rows } = await backend.pool.query<{ ssl: boolean; version: string }>(
        'SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()',
      );
      expect(rows[0]).toMatchObject({ ssl: true });
      // Every session on this database is encrypted: the pool's and the listener's.
      const sessions = await backend.pool.query<{ ssl: boolean }>(
        `SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a ON a.pid = s.pid WHERE a.datname = 'contracts'`,
      );
      expect(sessions.rows.length).toBeGreaterThanOrEqual(2);
      expect(sessions.rows.every((r) => r.ssl)).toBe(true);
    } finally {
      await backend.close();
    }
  });

  it('trusting another CA, verify-full refuses the server', async () => {
    const pool = createPool(
      { url, poolSize: 1, preparedStatements: true, tls: { mode: 'verify-full', caFile: wrongCa } },
      quiet,
    );
    try {
      await expect(pool.query('SELECT 1')).rejects.toThrow(/unable to verify the first certificate/);
    } finally {
      await pool.end();
    }
  });

  const open = postgresOpener(() => url, tls);
  monitorsContract(open);
  capturesContract(open);
  apiKeysContract(open);
  webhookDeliveriesContract(open);
  keyDataContract(open);
  retentionContract(open);
  jobsContract(open);
  idempotencyKeysContract(open);
  statusReadsContract(open);
  concurrencyContract(postgresSharedOpener(() => url, tls));
  fileStoreContract(
    'database (over TLS)',
    () => {
      const pool = createPool({ url, poolSize: 2, preparedStatements: true, tls }, quiet);
      return Promise.resolve({
        store: new DatabaseFileStore(pool, `test_${randomBytes(4).toString('hex')}`),
        close: () => pool.end(),
      });
    },
    CHUNK_BYTES,
  );
});
