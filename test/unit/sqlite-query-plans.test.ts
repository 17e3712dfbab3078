// The SQLite statements the queue and the dispatcher run on every poll, tick and submission must read
// through an index, never scan the jobs or deliveries tables: those grow with every job kept for
// jobs.recordTtlDays. SQLite uses a partial index only when the query repeats the index's condition
// with the same literal values (a bound parameter does not count), which is easy to lose when a query
// builder turns literals into parameters. Each store call's statements are captured at the connection
// and their plans checked with EXPLAIN QUERY PLAN.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { SqliteBackend } from '../../src/stores/sql/sqlite/backend.js';
import { openDatabase, type Db } from '../../src/stores/sql/sqlite/connection.js';
import { projectRoot } from '../../src/project-root.js';
import type { Stores } from '../../src/stores/backend.js';
import { planOf, recordStatements, type Statement } from '../helpers/query-plans.js';

let dir: string;
let db: Db;
let backend: SqliteBackend;
let seen: Statement[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-plans-'));
  db = openDatabase(join(dir, 'test.db'));
  migrate(db, readMigrations(resolve(projectRoot(), 'migrations', 'sqlite')));
  seen = recordStatements(db); // every statement Kysely runs on this connection, with its parameters
  backend = new SqliteBackend(db);
});
afterEach(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The plan lines of each statement `call` ran that touch the big tables. */
async function plansOf(call: (s: Stores) => Promise<unknown>): Promise<string[]> {
  seen.length = 0;
  await call(backend.stores);
  const statements = seen.filter((s) => /\b(jobs|webhook_deliveries)\b/.test(s.sql));
  expect(statements.length, 'the call ran a statement on jobs or webhook_deliveries').toBeGreaterThan(0);
  return statements.flatMap((s) => planOf(db, s).map((detail) => `${detail}   ← ${s.sql.slice(0, 80)}`));
}

const NOW = new Date('2026-11-24T10:00:00.000Z');
const FULL_SCAN = /^SCAN (jobs|webhook_deliveries)\b(?! USING)/;

describe('hot statements read through an index', () => {
  // [what, the call, the index its statement on jobs must use (undefined: any, as long as nothing scans)]
  const calls: [string, (s: Stores) => Promise<unknown>, string?][] = [
    ['jobs.countActive (every submission and tick)', (s) => s.jobs.countActive('key_a'), 'jobs_claimable_by_key'],
    ['jobs.activeFor (every tick and run-now)', (s) => s.jobs.activeFor('mon_a'), 'jobs_active_by_subject'],
    ['jobs.runningOf (every poll while jobs run)', (s) => s.jobs.runningOf('worker_a'), 'jobs_claimable'],
    ['jobs.cancelRevoked (every poll)', (s) => s.jobs.cancelRevoked(NOW), 'jobs_claimable'],
    ['jobs.failExhausted (every poll)', (s) => s.jobs.failExhausted(3, NOW), 'jobs_claimable'],
    ['jobs.claim (every poll)', (s) => s.jobs.claim('worker_a', 2, 30_000, 3, NOW)],
    ['jobs.renew (every heartbeat)', (s) => s.jobs.renew('worker_a', ['job_a', 'job_b'], 30_000, NOW)],
    ['jobs.cancelFor (monitor deleted)', (s) => s.jobs.cancelFor('mon_a', NOW), 'jobs_active_by_subject'],
    ['jobs.expiredResults (every sweep)', (s) => s.jobs.expiredResults(NOW, 100), 'jobs_expiring'],
    ['jobs.deleteFinished (every sweep)', (s) => s.jobs.deleteFinished('capture', NOW, 100)],
    ['deliveries.claimDue (every dispatcher look)', (s) => s.deliveries.claimDue(10, 30_000, NOW), 'deliveries_due'],
    ['deliveries.nextDueAt (every dispatcher look)', (s) => s.deliveries.nextDueAt(), 'deliveries_due'],
    ['deliveries.failRevoked (every dispatcher look)', (s) => s.deliveries.failRevoked(), 'deliveries_due'],
    ['retention.oldJobs (every sweep)', (s) => s.retention.oldJobs(NOW, 100), 'jobs_finished'],
    [
      'retention.deleteOldDeliveries (every sweep)',
      (s) => s.retention.deleteOldDeliveries(NOW, 100),
      'deliveries_finished',
    ],
  ];
  for (const [name, call, index] of calls) {
    it(name, async () => {
      const plans = await plansOf(call);
      expect(plans.filter((line) => FULL_SCAN.test(line))).toEqual([]);
      if (index) expect(plans.some((line) => line.includes(`USING INDEX ${index} `))).toBe(true);
    });
  }
});
