// migrations/sqlite/0013_capture_statuses.sql rebuilds captures and monitors to widen their status CHECKs:
// rows and indexes survive, the new statuses go in, others are still refused, and the foreign key from
// captures to monitors still holds (cascade on delete, no orphan).
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

it('keeps every row and index, takes suspect and filter_missing, keeps the foreign key', () => {
  const all = readMigrations(resolve(projectRoot(), 'migrations', 'sqlite'));
  const at = all.findIndex((m) => m.name.startsWith('0013_'));
  expect(at).toBeGreaterThan(0);
  migrate(db, all.slice(0, at));
  const keyId = new SyncKeys(db).create('owner').id;
  db.prepare(
    `INSERT INTO monitors (id, key_id, name, url, schedule, timezone, capture, diff, notify, retention, base_url,
    created_at, updated_at, last_status, notify_when) VALUES ('mon_1', ?, 'm', 'https://shop.example/', '*/5 * * * *', 'UTC', '{}', '{}',
    '["change"]', '{"keep":100}', 'http://localhost:8080', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'changed', '[{"x":1}]')`,
  ).run(keyId);
  const capture = db.prepare(
    `INSERT INTO captures (id, monitor_id, status, reason, spec_version, taken_at, duration_ms, text_changes_total, product)
     VALUES (?, ?, ?, 'schedule', 1, '2026-01-01T00:05:00.000Z', 900, 3, '{"price":1}')`,
  );
  capture.run('cap_1', 'mon_1', 'succeeded');
  const before = db.prepare('SELECT * FROM captures').all();
  const monitorBefore = db.prepare('SELECT * FROM monitors').all();

  migrate(db, all);

  expect(db.prepare('SELECT * FROM captures').all()).toEqual(before);
  expect(db.prepare('SELECT * FROM monitors').all()).toEqual(monitorBefore);
  const indexes = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
    .all()
    .map((r) => (r as { name: string }).name);
  expect(indexes).toEqual(expect.arrayContaining(['captures_by_monitor', 'captures_stored_bytes', 'monitors_by_key']));

  capture.run('cap_2', 'mon_1', 'filter_missing');
  capture.run('cap_3', 'mon_1', 'suspect');
  expect(() => capture.run('cap_4', 'mon_1', 'weird')).toThrow(/CHECK/);
  db.prepare("UPDATE monitors SET last_status = 'filter_missing'").run();
  expect(() => db.prepare("UPDATE monitors SET last_status = 'weird'").run()).toThrow(/CHECK/);
  expect(() => capture.run('cap_5', 'mon_gone', 'succeeded')).toThrow(/FOREIGN KEY/);
  expect(db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
  db.prepare("DELETE FROM monitors WHERE id = 'mon_1'").run();
  expect(db.prepare('SELECT count(*) AS n FROM captures').get()).toEqual({ n: 0 });
});
