// Keys revoked before revocation stopped their work: the migration that brings record retention
// (migrations/0007_queue_*) gives them what `keys revoke` now does — unfinished jobs canceled (request
// scrubbed like any finished job's), monitors paused, pending deliveries failed — and leaves active
// keys and finished work alone.
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

it('stops the work of keys revoked before it, and only theirs', () => {
  const all = readMigrations(resolve(projectRoot(), 'migrations', 'sqlite'));
  const at = all.findIndex((m) => m.name.includes('_queue_'));
  expect(at).toBeGreaterThan(0);
  migrate(db, all.slice(0, at));
  const keys = new SyncKeys(db);
  const revoked = keys.create('revoked').id;
  const active = keys.create('active').id;
  keys.revoke(revoked);
  const job = db.prepare(`INSERT INTO jobs (id, key_id, kind, status, request, base_url, created_at)
    VALUES (?, ?, 'pdf', ?, ?, 'http://x', '2026-01-01T00:00:00.000Z')`);
  const secret = JSON.stringify({
    url: 'https://x.test',
    headers: { authorization: 'SECRET' },
    filename: 'a.pdf',
    format: 'A4',
  });
  job.run('job_r_queued', revoked, 'queued', secret);
  job.run('job_r_running', revoked, 'running', secret);
  job.run('job_r_done', revoked, 'succeeded', '{}');
  job.run('job_a_queued', active, 'queued', secret);
  const monitor =
    db.prepare(`INSERT INTO monitors (id, key_id, name, url, schedule, timezone, capture, diff, notify, retention, base_url,
    next_run_at, created_at, updated_at) VALUES (?, ?, 'm', 'http://x', '* * * * *', 'UTC', '{}', '{}', '[]', '{}', 'http://x',
    '2026-01-01T00:01:00.000Z', 'x', 'x')`);
  monitor.run('mon_r', revoked);
  monitor.run('mon_a', active);
  const delivery =
    db.prepare(`INSERT INTO webhook_deliveries (id, key_id, message_id, event_type, url, payload, status, next_attempt_at, created_at)
    VALUES (?, ?, ?, 'job.succeeded', 'http://r', '{}', 'pending', 'x', 'x')`);
  delivery.run('whd_r', revoked, 'msg_r');
  delivery.run('whd_a', active, 'msg_a');

  migrate(db, all);

  const jobs = Object.fromEntries(
    (
      db.prepare('SELECT id, status, request, finished_at AS finishedAt FROM jobs').all() as {
        id: string;
        status: string;
        request: string;
        finishedAt: string | null;
      }[]
    ).map((j) => [j.id, j]),
  );
  expect(jobs.job_r_queued).toMatchObject({ status: 'canceled', request: '{"filename":"a.pdf","format":"A4"}' });
  expect(jobs.job_r_running!.status).toBe('canceled');
  expect(jobs.job_r_queued!.finishedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/); // as toISOString writes it
  expect(jobs.job_r_done!.status).toBe('succeeded');
  expect(jobs.job_a_queued).toMatchObject({ status: 'queued', request: secret });
  expect(db.prepare('SELECT id, paused, next_run_at AS next FROM monitors ORDER BY id').all()).toEqual([
    { id: 'mon_a', paused: 0, next: '2026-01-01T00:01:00.000Z' },
    { id: 'mon_r', paused: 1, next: null },
  ]);
  expect(db.prepare('SELECT id, status, last_error AS error FROM webhook_deliveries ORDER BY id').all()).toEqual([
    { id: 'whd_a', status: 'pending', error: null },
    { id: 'whd_r', status: 'failed', error: 'not sent: the API key was revoked' },
  ]);
});
