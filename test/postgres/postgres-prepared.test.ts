// Named statements on PostgreSQL (src/stores/sql/postgres/prepared.ts): a statement with values is prepared once per
// connection under a name from its text; a text without values (a migration's several statements) runs as
// it is; a connection names at most 500; and a kept statement that a schema change made stale fails once,
// then runs prepared anew. Real PostgreSQL, a database of this file's own.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { prepareStatements } from '../../src/stores/sql/postgres/prepared.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../helpers/postgres.js';

describePostgres('PostgreSQL named statements', () => {
  let db: FreshDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(() => db?.drop());
  beforeEach(async () => {
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    prepareStatements(client as unknown as pg.PoolClient);
  });
  afterEach(() => client.end());

  const prepared = async (): Promise<string[]> =>
    (await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map(
      (r) => r.name,
    );

  it('prepares a statement with values once, under one name, and runs it again by that name', async () => {
    for (let i = 0; i < 3; i++)
      expect((await client.query('SELECT $1::int + 1 AS n', [i])).rows[0]).toEqual({ n: i + 1 });
    const names = await prepared();
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^pw_[0-9a-f]{24}$/);
  });

  it('runs a text without values as it is: several statements in one (a migration)', async () => {
    await client.query('CREATE TABLE m1 (a int); CREATE TABLE m2 (b int)');
    expect(await prepared()).toEqual([]);
    await client.query('DROP TABLE m1; DROP TABLE m2');
  });

  it('names at most 500 statements on a connection; later texts run unnamed, with the same results', async () => {
    for (let i = 0; i < 501; i++)
      expect((await client.query(`SELECT $1::int + ${i} AS n`, [1])).rows[0]).toEqual({ n: i + 1 });
    expect(await prepared()).toHaveLength(500);
  });

  it('a statement made stale by a schema change fails once, then is prepared anew and sees the new column', async () => {
    await client.query('CREATE TABLE t (id int PRIMARY KEY)');
    await client.query('INSERT INTO t VALUES (1)');
    expect((await client.query('SELECT * FROM t WHERE id = $1', [1])).rows).toEqual([{ id: 1 }]);
    // Another node's migration, on another connection.
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    await other.query('ALTER TABLE t ADD COLUMN label text DEFAULT $$x$$');
    await other.end();
    await expect(client.query('SELECT * FROM t WHERE id = $1', [1])).rejects.toMatchObject({ code: '0A000' });
    expect((await client.query('SELECT * FROM t WHERE id = $1', [1])).rows).toEqual([{ id: 1, label: 'x' }]);
  });
});
