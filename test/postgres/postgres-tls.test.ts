// database.tls: what the pool is told to do (connectionOptions), and that it is really done against a real
// server. The test server runs without TLS, so a pool that asks for TLS must fail to connect (the server
// says it does not support SSL) — proof that `require` and `verify-full` are not silently ignored — and a
// mode of `disable` wins over an sslmode in the URL.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectionOptions, createPool } from '../../src/stores/sql/postgres/pool.js';
import { describePostgres, POSTGRES_URL } from '../helpers/postgres.js';

const quiet = { warn: () => undefined };
const settings = (url: string, mode: '' | 'disable' | 'require' | 'verify-full', caFile = '') => ({
  url,
  poolSize: 1,
  preparedStatements: true,
  tls: { mode, caFile },
});

describe('connectionOptions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pagewatch-tls-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('an empty mode leaves TLS to the URL, untouched', () => {
    const url = 'postgres://u:p@db.example:5432/app?sslmode=require';
    expect(connectionOptions(settings(url, ''))).toEqual({ connectionString: url });
  });

  it('a mode set wins: the URL loses its TLS parameters, and the ssl option says what the mode means', () => {
    const url = 'postgres://u:p@db.example:5432/app?sslmode=verify-full&sslrootcert=/x&application_name=pw';
    const disable = connectionOptions(settings(url, 'disable'));
    expect(disable).toEqual({ connectionString: 'postgres://u:p@db.example:5432/app?application_name=pw', ssl: false });
    expect(connectionOptions(settings(url, 'require')).ssl).toEqual({ rejectUnauthorized: false });
    expect(connectionOptions(settings(url, 'verify-full')).ssl).toEqual({ rejectUnauthorized: true });
  });

  it('verify-full trusts the CA file given', () => {
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    expect(connectionOptions(settings('postgres://db/app', 'verify-full', ca)).ssl).toEqual({
      rejectUnauthorized: true,
      ca: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    });
  });
});

describePostgres('database.tls against a real server (which has TLS off)', () => {
  const query = async (url: string, mode: '' | 'disable' | 'require' | 'verify-full') => {
    const pool = createPool(settings(url, mode), quiet);
    try {
      return (await pool.query<{ n: number }>('SELECT 1 AS n')).rows[0]?.n;
    } finally {
      await pool.end();
    }
  };

  it('require and verify-full ask for TLS: this server refuses them', async () => {
    await expect(query(POSTGRES_URL, 'require')).rejects.toThrow(/does not support SSL/);
    await expect(query(POSTGRES_URL, 'verify-full')).rejects.toThrow(/does not support SSL/);
  });

  it('disable wins over the URL sslmode=require; with no mode the URL decides', async () => {
    const url = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}sslmode=require`;
    expect(await query(url, 'disable')).toBe(1);
    await expect(query(url, '')).rejects.toThrow(/does not support SSL/);
  });
});
