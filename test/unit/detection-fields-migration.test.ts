// Monitors and captures from before text changes, conditions and steps (migrations/0009_*): every new
// setting gets its default, so the stored settings still pass today's schema unchanged; a monitor still
// on the old minChangeRatio default (0.001, which hid small changes on tall pages) gets the new one (0);
// a ratio its owner chose stays; old captures read with no text changes and no conditions.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SyncKeys } from '../helpers/sync-keys.js';
import { migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { openDatabase, type Db } from '../../src/stores/sql/sqlite/connection.js';
import { SqliteBackend } from '../../src/stores/sql/sqlite/backend.js';
import { monitorSchema } from '../../src/http/schemas/monitors.js';
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

/** What the service stored for a monitor before 0009: the old schema's defaults, filled. */
const OLD_CAPTURE = {
  colorScheme: 'light',
  reducedMotion: 'reduce',
  javaScriptEnabled: true,
  headersScope: 'origin',
  waitUntil: 'load',
  delay: 0,
  timeout: 30_000,
  scrollPage: false,
  fullPage: true,
  omitBackground: false,
  animations: 'disabled',
  caret: 'hide',
};
const oldDiff = (minChangeRatio: number) => ({
  threshold: 0.1,
  includeAA: false,
  minChangeRatio,
  ignoreRegions: [],
  ignoreSelectors: ['#clock'],
  confirm: true,
});

it('old monitors get every new default and still pass the schema; only the old default ratio changes', async () => {
  const all = readMigrations(resolve(projectRoot(), 'migrations', 'sqlite'));
  const at = all.findIndex((m) => m.name.startsWith('0009_'));
  expect(at).toBeGreaterThan(0);
  migrate(db, all.slice(0, at));
  const keyId = new SyncKeys(db).create('owner').id;
  const insert =
    db.prepare(`INSERT INTO monitors (id, key_id, name, url, schedule, timezone, capture, diff, notify, retention, base_url,
    created_at, updated_at) VALUES (?, ?, 'm', 'https://shop.example/', '*/5 * * * *', 'UTC', ?, ?, '["change","failure"]', '{"keep":100}',
    'http://localhost:8080', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`);
  insert.run('mon_default', keyId, JSON.stringify(OLD_CAPTURE), JSON.stringify(oldDiff(0.001)));
  insert.run('mon_chosen', keyId, JSON.stringify(OLD_CAPTURE), JSON.stringify(oldDiff(0.01)));
  db.prepare(
    `INSERT INTO captures (id, monitor_id, status, reason, spec_version, taken_at, duration_ms, width, height, sha256,
    image_key, regions) VALUES ('cap_old', 'mon_default', 'succeeded', 'schedule', 1, '2026-01-01T00:05:00.000Z', 900, 1280, 800, 'ab',
    'mon_default/cap_old', '[{"x":1,"y":2,"width":3,"height":4}]')`,
  ).run();

  migrate(db, all);

  const { monitors, captures } = new SqliteBackend(db).stores;
  const schema = monitorSchema({
    maxFullPageHeight: 16_384,
    maxImagePixels: 50_000_000,
    maxTimeoutMs: 120_000,
    maxRetention: 1000,
    minIntervalSeconds: 60,
  });
  for (const id of ['mon_default', 'mon_chosen']) {
    const { name: _name, ...settings } = (await monitors.get(id))!.settings;
    // What is stored is exactly what the schema makes of it: nothing missing, nothing the schema would add.
    expect(schema.parse(settings)).toStrictEqual(settings);
    expect(settings.notifyWhen).toEqual([]);
    expect(settings.capture.steps).toEqual([]);
    expect(settings.diff).toMatchObject({ mode: 'visual', ignoreText: [], ignoreSelectors: ['#clock'] });
    expect(settings.diff).not.toHaveProperty('textSelector');
  }
  expect((await monitors.get('mon_default'))!.settings.diff.minChangeRatio).toBe(0);
  expect((await monitors.get('mon_chosen'))!.settings.diff.minChangeRatio).toBe(0.01);

  const old = (await captures.baseline('mon_default', 1))!;
  expect(old).toMatchObject({
    id: 'cap_old',
    regions: [{ x: 1, y: 2, width: 3, height: 4 }],
    textKey: null,
    textChanges: [],
    textChangesTotal: 0,
    conditions: [],
    conditionErrors: [],
    conditionsMet: null,
  });
});
