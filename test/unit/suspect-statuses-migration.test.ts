// migrations/sqlite/0013_*: SQLite rebuilds captures and monitors to widen their status CHECKs. Every row
// and column comes through, the foreign key still cascades from a monitor to its captures, and the new
// statuses are taken while unknown ones are still refused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SyncKeys } from '../helpers/sync-keys.js';
import { migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { openDatabase, type Db } from '../../src/stores/sql/sqlite/connection.js';
import { projectRoot } from '../../src/project-root.js';

let dir: string;
let db: Db;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-migration-'));
  db = openDatabase(join(dir, 'test.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

it('keeps every monitor and capture, cascades deletes, and takes suspect and filter_missing', () => {
  const all = readMigrations(resolve(projectRoot(), 'migrations', 'sqlite'));
  const at = all.findIndex((m) => m.name.startsWith('0013_'));
  expect(at).toBeGreaterThan(0);
  migrate(db, all.slice(0, at));
  const keyId = new SyncKeys(db).create('owner').id;
  db.prepare(
    `INSERT INTO monitors (id, key_id, name, url, schedule, timezone, capture, diff, notify, retention, base_url,
     created_at, updated_at, last_status, notify_when) VALUES ('mon_1', ?, 'm', 'https://shop.example/', '*/5 * * * *',
     'UTC', '{}', '{}', '["change"]', '{"keep":100}', 'http://localhost:8080', '2026-01-01T00:00:00.000Z',
     '2026-01-01T00:00:00.000Z', 'changed', '[{"selector":".price","numberBelow":5}]')`,
  ).run(keyId);
  db.prepare(
    `INSERT INTO captures (id, monitor_id, status, reason, spec_version, taken_at, duration_ms, error_code, error_message,
     stored_bytes, text_key, product) VALUES ('cap_1', 'mon_1', 'failed', 'manual', 1, '2026-01-01T00:01:00.000Z', 5,
     'render_failed', 'boom', 42, 'mon_1/cap_1.text.json', '{"price":5}')`,
  ).run();
  const before = {
    monitor: db.prepare('SELECT * FROM monitors').get(),
    capture: db.prepare('SELECT * FROM captures').get(),
  };

  migrate(db, all.slice(0, at + 1)); // through 0013 only: later migrations add columns of their own

  expect(db.prepare('SELECT * FROM monitors').get()).toEqual(before.monitor);
  expect(db.prepare('SELECT * FROM captures').get()).toEqual(before.capture);
  expect(db.pragma('foreign_key_check')).toEqual([]);
  const indexes = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`);
  expect(indexes.all().map((r) => (r as { name: string }).name)).toEqual(
    expect.arrayContaining(['captures_by_monitor', 'captures_stored_bytes', 'monitors_by_key']),
  );

  db.prepare(`UPDATE monitors SET last_status = 'suspect'`).run();
  db.prepare(`UPDATE monitors SET last_status = 'filter_missing'`).run();
  expect(() => db.prepare(`UPDATE monitors SET last_status = 'other'`).run()).toThrow(/CHECK constraint failed/);
  const insert = db.prepare(
    `INSERT INTO captures (id, monitor_id, status, reason, spec_version, taken_at, duration_ms)
     VALUES (?, 'mon_1', ?, 'manual', 1, '2026-01-01T00:02:00.000Z', 5)`,
  );
  insert.run('cap_2', 'suspect');
  insert.run('cap_3', 'filter_missing');
  expect(() => insert.run('cap_4', 'other')).toThrow(/CHECK constraint failed/);
  // The reference survived the renames: a capture of no monitor is refused.
  expect(() => db.prepare(`UPDATE captures SET monitor_id = 'nobody'`).run()).toThrow(/FOREIGN KEY/);

  db.prepare('DELETE FROM monitors').run();
  expect(db.prepare('SELECT count(*) AS n FROM captures').get()).toEqual({ n: 0 });
});
