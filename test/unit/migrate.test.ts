import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MigrationMismatchError, migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { openDatabase, type Db } from '../../src/stores/sql/sqlite/connection.js';
import { projectRoot } from '../../src/project-root.js';

describe('migrations', () => {
  let root: string;
  let migrationsDir: string;
  let db: Db;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'pagewatch-migrate-'));
    migrationsDir = join(root, 'migrations');
    mkdirSync(migrationsDir);
    db = openDatabase(join(root, 'db', 'test.db'));
  });
  afterEach(() => {
    if (db.open) db.close();
    rmSync(root, { recursive: true, force: true });
  });

  const write = (name: string, sql: string) => writeFileSync(join(migrationsDir, name), sql);
  const tables = () =>
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map(
      (r) => r.name,
    );
  const recorded = () =>
    db.prepare('SELECT name, checksum, applied_at FROM schema_migrations ORDER BY name').all() as {
      name: string;
      checksum: string;
      applied_at: string;
    }[];
  const run = () => migrate(db, readMigrations(migrationsDir));

  it('readMigrations takes only NNNN_name.sql files, sorted by name, with a sha256 checksum', () => {
    write('0002_b.sql', 'CREATE TABLE b (id INTEGER);');
    write('0010_j.sql', 'CREATE TABLE j (id INTEGER);');
    write('0001_a.sql', 'CREATE TABLE a (id INTEGER);');
    write('README.md', '# not a migration');
    write('1_short.sql', 'CREATE TABLE nope (id INTEGER);');
    write('0003_c.sql.bak', 'CREATE TABLE nope2 (id INTEGER);');
    const ms = readMigrations(migrationsDir);
    expect(ms.map((m) => m.name)).toEqual(['0001_a.sql', '0002_b.sql', '0010_j.sql']);
    expect(ms[0]?.sql).toBe('CREATE TABLE a (id INTEGER);');
    expect(ms[0]?.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(ms[0]?.checksum).not.toBe(ms[1]?.checksum);
  });

  it('applies pending migrations in order and records each one', () => {
    // 0002 depends on 0001 and 0003 on 0002: a wrong order fails.
    write('0003_c.sql', 'INSERT INTO b (a_id) SELECT id FROM a;');
    write('0001_a.sql', 'CREATE TABLE a (id INTEGER PRIMARY KEY); INSERT INTO a (id) VALUES (1), (2);');
    write('0002_b.sql', 'CREATE TABLE b (a_id INTEGER REFERENCES a(id));');
    const before = Date.now();
    expect(run()).toEqual(['0001_a.sql', '0002_b.sql', '0003_c.sql']);
    expect(tables()).toEqual(['a', 'b', 'schema_migrations']);
    expect((db.prepare('SELECT count(*) AS n FROM b').get() as { n: number }).n).toBe(2);

    const rows = recorded();
    expect(rows.map((r) => r.name)).toEqual(['0001_a.sql', '0002_b.sql', '0003_c.sql']);
    const files = readMigrations(migrationsDir);
    expect(rows.map((r) => r.checksum)).toEqual(files.map((f) => f.checksum));
    for (const r of rows) {
      expect(new Date(r.applied_at).toISOString()).toBe(r.applied_at);
      expect(Date.parse(r.applied_at)).toBeGreaterThanOrEqual(before - 1000);
    }
  });

  it('a second run applies nothing and changes nothing', () => {
    write('0001_a.sql', 'CREATE TABLE a (id INTEGER PRIMARY KEY); INSERT INTO a (id) VALUES (1);');
    expect(run()).toEqual(['0001_a.sql']);
    const rows = recorded();
    expect(run()).toEqual([]);
    expect(recorded()).toEqual(rows);
    expect((db.prepare('SELECT count(*) AS n FROM a').get() as { n: number }).n).toBe(1);
  });

  it('applies only the new migrations when files are added later', () => {
    write('0001_a.sql', 'CREATE TABLE a (id INTEGER);');
    expect(run()).toEqual(['0001_a.sql']);
    write('0002_b.sql', 'CREATE TABLE b (id INTEGER);');
    write('0003_c.sql', 'CREATE TABLE c (id INTEGER);');
    expect(run()).toEqual(['0002_b.sql', '0003_c.sql']);
    expect(recorded().map((r) => r.name)).toEqual(['0001_a.sql', '0002_b.sql', '0003_c.sql']);
  });

  it('survives reopening the database file', () => {
    write('0001_a.sql', 'CREATE TABLE a (id INTEGER);');
    run();
    db.close();
    db = openDatabase(join(root, 'db', 'test.db'));
    expect(run()).toEqual([]);
    expect(recorded().map((r) => r.name)).toEqual(['0001_a.sql']);
  });

  it('a failing migration rolls back entirely and is not recorded; earlier ones stay', () => {
    write('0001_a.sql', 'CREATE TABLE a (id INTEGER);');
    // The first statements succeed, then the last fails: nothing of this file may remain.
    write(
      '0002_bad.sql',
      'CREATE TABLE partial (id INTEGER);\nINSERT INTO partial VALUES (1);\nINSERT INTO a VALUES (42);\nINSERT INTO no_such_table VALUES (1);',
    );
    write('0003_c.sql', 'CREATE TABLE c (id INTEGER);');
    expect(run).toThrow(/no_such_table/);
    expect(tables()).toEqual(['a', 'schema_migrations']);
    expect(recorded().map((r) => r.name)).toEqual(['0001_a.sql']);
    expect((db.prepare('SELECT count(*) AS n FROM a').get() as { n: number }).n).toBe(0);
    expect(db.inTransaction).toBe(false);

    // Once fixed, the run picks up where it stopped.
    write('0002_bad.sql', 'CREATE TABLE partial (id INTEGER);');
    expect(run()).toEqual(['0002_bad.sql', '0003_c.sql']);
    expect(tables()).toEqual(['a', 'c', 'partial', 'schema_migrations']);
  });

  it('an applied migration whose file was edited → MigrationMismatchError, nothing applied', () => {
    write('0001_a.sql', 'CREATE TABLE a (id INTEGER);');
    run();
    write('0001_a.sql', 'CREATE TABLE a (id INTEGER, extra TEXT);');
    write('0002_b.sql', 'CREATE TABLE b (id INTEGER);');
    expect(run).toThrow(MigrationMismatchError);
    expect(run).toThrow(/0001_a\.sql/);
    expect(tables()).not.toContain('b');
    expect(recorded().map((r) => r.name)).toEqual(['0001_a.sql']);
  });

  it('an applied migration missing from the directory → MigrationMismatchError', () => {
    write('0001_a.sql', 'CREATE TABLE a (id INTEGER);');
    write('0002_b.sql', 'CREATE TABLE b (id INTEGER);');
    run();
    unlinkSync(join(migrationsDir, '0002_b.sql'));
    expect(run).toThrow(MigrationMismatchError);
    expect(run).toThrow(/0002_b\.sql/);
  });

  it('a database a newer version migrated → refused, saying so and what to do (forward-only)', () => {
    write('0001_a.sql', 'CREATE TABLE a (id INTEGER);');
    write('0002_b.sql', 'CREATE TABLE b (id INTEGER);');
    run();
    unlinkSync(join(migrationsDir, '0002_b.sql'));
    expect(run).toThrow(
      'this database was migrated by a newer Pagewatch (it has 0002_b.sql applied, which this version does not ' +
        'know); migrations are forward-only: run that version or restore a backup taken before the upgrade',
    );
  });

  it('an applied migration replaced by another name in its place → MigrationMismatchError', () => {
    write('0001_a.sql', 'CREATE TABLE a (id INTEGER);');
    write('0002_b.sql', 'CREATE TABLE b (id INTEGER);');
    run();
    unlinkSync(join(migrationsDir, '0001_a.sql'));
    write('0001_renamed.sql', 'CREATE TABLE a (id INTEGER);');
    expect(run).toThrow(MigrationMismatchError);
  });

  it('a new file sorted before an applied one → MigrationMismatchError (not silently skipped)', () => {
    write('0002_b.sql', 'CREATE TABLE b (id INTEGER);');
    run();
    write('0001_a.sql', 'CREATE TABLE a (id INTEGER);');
    expect(run).toThrow(MigrationMismatchError);
    expect(tables()).not.toContain('a');
  });

  it("the repo's own migrations apply cleanly, twice", () => {
    const ms = readMigrations(resolve(projectRoot(), 'migrations', 'sqlite'));
    expect(ms.length).toBeGreaterThan(0);
    expect(migrate(db, ms)).toEqual(ms.map((m) => m.name));
    expect(migrate(db, ms)).toEqual([]);
    expect(tables()).toContain('instance');
    const created = db.prepare("SELECT value FROM instance WHERE key = 'created_at'").get() as
      { value: string } | undefined;
    expect(created?.value).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});

describe('openDatabase', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'pagewatch-open-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('creates missing parent directories and sets WAL, foreign keys and a busy timeout', () => {
    const db = openDatabase(join(root, 'a', 'b', 'c.db'));
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
      expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    } finally {
      db.close();
    }
  });

  it('WAL persists: a second connection to the same file sees wal', () => {
    const file = join(root, 'x.db');
    openDatabase(file).close();
    const db = openDatabase(file);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  });

  it('enforces foreign keys', () => {
    const db = openDatabase(join(root, 'fk.db'));
    try {
      db.exec('CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (p_id INTEGER REFERENCES p(id));');
      expect(() => db.prepare('INSERT INTO c (p_id) VALUES (99)').run()).toThrow(/FOREIGN KEY/);
    } finally {
      db.close();
    }
  });
});
