// Migrations on PostgreSQL: applied in order with their checksums, a re-run is a no-op, an edited file is
// refused, and two migrators starting at once (two nodes) apply each file once — the advisory lock makes
// the second wait and then find nothing pending. Real PostgreSQL, a database of this file's own.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { MigrationMismatchError, readMigrations } from '../../src/stores/sql/migrate.js';
import { migratePostgres } from '../../src/stores/sql/postgres/migrate.js';
import { numericTypes } from '../../src/stores/sql/postgres/pool.js';
import { migrateAt, POSTGRES_MIGRATIONS } from '../contract/postgres-backend.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../helpers/postgres.js';

describePostgres('PostgreSQL migrations', () => {
  let db: FreshDatabase;
  let pools: pg.Pool[];
  let dir: string;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(() => db?.drop());
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pagewatch-pg-migrate-'));
    mkdirSync(join(dir, 'm'));
    pools = [];
    const pool = newPool();
    await pool.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  });
  afterEach(async () => {
    await Promise.all(pools.map((p) => p.end()));
    rmSync(dir, { recursive: true, force: true });
  });

  const newPool = () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 2, types: numericTypes });
    pools.push(pool);
    return pool;
  };
  const write = (name: string, sql: string) => writeFileSync(join(dir, 'm', name), sql);
  const run = (pool = newPool()) => migratePostgres(pool, readMigrations(join(dir, 'm')));
  const recorded = async () =>
    (await newPool().query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).rows.map(
      (r) => r.name,
    );

  it('applies the files in order once; a re-run applies nothing', async () => {
    write('0001_a.sql', 'CREATE TABLE a (id integer); INSERT INTO a VALUES (1);');
    write('0002_b.sql', 'CREATE TABLE b (id bigint); INSERT INTO b VALUES (2);');
    expect(await run()).toEqual(['0001_a.sql', '0002_b.sql']);
    expect(await run()).toEqual([]);
    expect(await recorded()).toEqual(['0001_a.sql', '0002_b.sql']);
    // int8 comes back as a number, as SQLite gives it.
    expect((await newPool().query('SELECT id, COUNT(*) AS n FROM b GROUP BY id')).rows).toEqual([{ id: 2, n: 1 }]);
  });

  it('refuses a file changed after it was applied, and a failing file leaves nothing half-applied', async () => {
    write('0001_a.sql', 'CREATE TABLE a (id integer);');
    await run();
    write('0001_a.sql', 'CREATE TABLE a (id integer, x text);');
    await expect(run()).rejects.toThrow(MigrationMismatchError);
    await expect(run()).rejects.toThrow('migration 0001_a.sql was changed after it was applied; refusing to start');
    write('0001_a.sql', 'CREATE TABLE a (id integer);');
    write('0002_bad.sql', 'CREATE TABLE c (id integer); SELECT no_such_function();');
    await expect(run()).rejects.toThrow('migration 0002_bad.sql failed');
    expect(await recorded()).toEqual(['0001_a.sql']);
    const c = await newPool().query<{ t: string | null }>("SELECT to_regclass('public.c') AS t");
    expect(c.rows[0]!.t).toBeNull(); // rolled back with its file
  });

  it('two migrators at once (two nodes starting together) apply each file once', async () => {
    // The migration itself holds the lock for 0.5 s, so the second migrator surely meets it (not a wait).
    const slowSql = 'CREATE TABLE slow (id integer); SELECT pg_sleep(0.5); INSERT INTO slow VALUES (1);'; // bound: 0.5 s in the lock
    write('0001_slow.sql', slowSql);
    const [a, b] = await Promise.all([run(), run()]);
    expect([a, b].sort((x, y) => x.length - y.length)).toEqual([[], ['0001_slow.sql']]);
    expect((await newPool().query<{ n: number }>('SELECT COUNT(*) AS n FROM slow')).rows[0]!.n).toBe(1);
  });

  it('the real migrations apply to an empty database and re-run as a no-op', async () => {
    expect(await migrateAt(db.url)).toEqual(readMigrations(POSTGRES_MIGRATIONS).map((m) => m.name));
    expect(await migrateAt(db.url)).toEqual([]);
  });
});
