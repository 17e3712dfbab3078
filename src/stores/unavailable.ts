// Which errors mean "the database cannot serve anyone just now" rather than "this request or this code
// is wrong": the server is down, restarting or refusing connections, the connection to it broke, or
// (SQLite) the file stayed locked past busy_timeout or could not be read or written. They pass when the
// database is back, so a request that meets one is told to try again (503 unavailable with Retry-After,
// src/http/middleware/errors.ts) instead of getting a bare 500. Read from the error's `code` and message,
// so neither the HTTP layer nor the services need to know which driver raised it.

/** Network failures of the connection itself (Node's codes, as node-postgres passes them on). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * PostgreSQL SQLSTATEs: admin_shutdown, crash_shutdown, cannot_connect_now (starting or shutting down),
 * too_many_connections; class 08 (connection exceptions) is matched whole below.
 */
const POSTGRES_CODES = new Set(['57P01', '57P02', '57P03', '53300']);

/** better-sqlite3's codes: locked past busy_timeout, or an I/O error (SQLITE_IOERR_* included). */
const SQLITE_CODE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN)/;

/** node-postgres says these with no code: the pool's connect timeout and a connection that is gone. */
const PG_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'is not queryable',
  'Connection ended',
];

/**
 * Whether `err` says the database is unavailable (an AggregateError, as a connect to every address of a
 * host fails, when any of its errors does). Causes are not followed: a wrapped network error is some
 * other service's (a page's, a webhook receiver's), not the database's.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || POSTGRES_CODES.has(code) || code.startsWith('08')) return true;
    if (SQLITE_CODE.test(code)) return true;
  }
  const message = (err as { message?: unknown }).message;
  if (typeof message === 'string' && PG_MESSAGES.some((m) => message.includes(m))) return true;
  const errors = (err as { errors?: unknown }).errors;
  return Array.isArray(errors) && errors.some(isDatabaseUnavailable);
}

const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 2000;

/**
 * Runs `fn`; while it fails because the database is unavailable, runs it again after 0.25 s, doubling to
 * 2 s, as long as `keepTrying(retryAt)` allows (a lease still held, a process not stopping). For writes
 * whose loss costs more than the wait: a job's outcome, a webhook attempt the receiver already took.
 * Any other error, or the last one, is thrown.
 */
export async function retryWhileUnavailable<T>(
  fn: () => Promise<T>,
  keepTrying: (retryAt: number) => boolean,
  onRetry: (err: unknown) => void = () => undefined,
): Promise<T> {
  for (let waitMs = FIRST_RETRY_MS; ; waitMs = Math.min(waitMs * 2, LAST_RETRY_MS)) {
    try {
      return await fn();
    } catch (err) {
      if (!isDatabaseUnavailable(err) || !keepTrying(Date.now() + waitMs)) throw err;
      onRetry(err);
      await new Promise((done) => setTimeout(done, waitMs));
    }
  }
}
