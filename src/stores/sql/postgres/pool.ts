// The PostgreSQL connection pool of one node, from the `database` settings: at most `poolSize`
// connections, TLS as `database.tls` says, and int8 (bigint columns, COUNT(*)) and numeric (SUM) read as
// JS numbers, as SQLite returns them, so the shared stores' row types hold on both databases. Set on this
// pool's own `types`, not pg.types globally: other pg users in the process keep pg's defaults (strings).
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { Config } from '../../../config.js';
import type { Logger } from '../../../log.js';
import { prepareStatements } from './prepared.js';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** int8 and numeric as numbers (byte counts and counts stay far below 2^53); every other type as pg reads it. */
export const numericTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown => {
    if ((oid === INT8_OID || oid === NUMERIC_OID) && format !== 'binary') return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format) as unknown;
  }) as pg.CustomTypesConfig['getTypeParser'],
};

type DatabaseSettings = Config['database'];

/** URL parameters about TLS, which node-postgres would let override the `ssl` option given beside them. */
const URL_TLS_PARAMS = ['sslmode', 'ssl', 'sslcert', 'sslkey', 'sslrootcert', 'uselibpqcompat'];

/**
 * The connection string and `ssl` option for `settings`. An empty tls.mode leaves TLS to the URL's
 * sslmode (no sslmode: no TLS); a mode set here wins over the URL, whose TLS parameters are dropped.
 */
export function connectionOptions(settings: DatabaseSettings): Pick<pg.PoolConfig, 'connectionString' | 'ssl'> {
  const { mode, caFile } = settings.tls;
  if (mode === '') return { connectionString: settings.url };
  const url = new URL(settings.url);
  for (const param of URL_TLS_PARAMS) url.searchParams.delete(param);
  const connectionString = url.toString();
  if (mode === 'disable') return { connectionString, ssl: false };
  if (mode === 'require') return { connectionString, ssl: { rejectUnauthorized: false } };
  return {
    connectionString,
    ssl: { rejectUnauthorized: true, ...(caFile && { ca: readFileSync(caFile, 'utf8') }) },
  };
}

const ignore = () => undefined;

export function createPool(settings: DatabaseSettings, log: Pick<Logger, 'warn'>): pg.Pool {
  const pool = new pg.Pool({
    ...connectionOptions(settings),
    max: settings.poolSize,
    types: numericTypes,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection that the server (or the network) drops emits 'error' on the pool: without a
  // listener that would crash the process. The pool replaces the connection on the next checkout.
  pool.on('error', (err) => log.warn({ err: err.message }, 'an idle PostgreSQL connection failed; it is replaced'));
  // A checked-out connection has no pool listener: one that breaks (a restart, a network cut) between
  // queries — a transaction, the file store's put, the advisory lock held while its holder works — emits
  // 'error' on the client itself, which would crash the process. Every connection gets a listener as it
  // opens. Nothing to do in it: the work on the connection fails through its next query, which its owner
  // logs and retries, and the pool drops the connection when it is released.
  pool.on('connect', (client) => client.on('error', ignore));
  if (settings.preparedStatements) pool.on('connect', prepareStatements);
  return pool;
}

/** The URL without its password, for messages. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable database.url)';
  }
}
