// Which errors say "the database cannot serve anyone just now" (src/stores/unavailable.ts), read from the
// drivers' real errors: a SQLite file locked past busy_timeout, a PostgreSQL port nobody listens on. A
// bug (a wrong column, a plain Error) stays a bug: the error middleware keeps those a 500.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/stores/unavailable.js';
import { freePorts } from '../helpers/free-ports.js';

const dir = mkdtempSync(join(tmpdir(), 'pagewatch-unavailable-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('did not throw');
};

describe('isDatabaseUnavailable', () => {
  it('a SQLite write while another connection holds the write lock (SQLITE_BUSY) is unavailable', () => {
    const file = join(dir, 'busy.db');
    const holder = new Database(file);
    const other = new Database(file);
    try {
      holder.exec('CREATE TABLE t (x)');
      other.pragma('busy_timeout = 0');
      holder.exec('BEGIN IMMEDIATE');
      const err = thrown(() => other.exec('BEGIN IMMEDIATE'));
      expect((err as { code: string }).code).toBe('SQLITE_BUSY');
      expect(isDatabaseUnavailable(err)).toBe(true);
      holder.exec('ROLLBACK');
      // A bug in a statement is not the database being away.
      expect(isDatabaseUnavailable(thrown(() => other.exec('SELECT nope FROM t')))).toBe(false);
    } finally {
      holder.close();
      other.close();
    }
  });

  it('a PostgreSQL connection refused, a server shutting down, class 08 are unavailable; a SQL error is not', async () => {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${(await freePorts(1))[0]}/x` });
    const refused = await client.connect().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isDatabaseUnavailable(refused)).toBe(true);
    for (const code of ['57P01', '57P03', '08006', '08001', '53300'])
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    for (const code of ['42601', '23505', '40P01'])
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
