// The status page asks for /api/status every 2 seconds per open tab: its database reads must go through
// an index, never scan the jobs or deliveries tables (they grow with every job and delivery kept). As in
// sqlite-query-plans.test.ts, each statement is captured at the connection and its plan read with
// EXPLAIN QUERY PLAN.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { SqliteBackend } from '../../src/stores/sql/sqlite/backend.js';
import { openDatabase, type Db } from '../../src/stores/sql/sqlite/connection.js';
import { projectRoot } from '../../src/project-root.js';
import type { StatusReadStore } from '../../src/stores/status-reads.js';
import { planOf, recordStatements, type Statement } from '../helpers/query-plans.js';

let dir: string;
let db: Db;
let backend: SqliteBackend;
let seen: Statement[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-status-plans-'));
  db = openDatabase(join(dir, 'test.db'));
  migrate(db, readMigrations(resolve(projectRoot(), 'migrations', 'sqlite')));
  seen = recordStatements(db);
  backend = new SqliteBackend(db);
});
afterEach(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

async function plansOf(call: (r: StatusReadStore) => Promise<unknown>): Promise<string[]> {
  seen.length = 0;
  await call(backend.stores.statusReads);
  expect(seen.length).toBeGreaterThan(0);
  return seen.flatMap((s) => planOf(db, s));
}

const cases: [string, (r: StatusReadStore) => Promise<unknown>, string[]][] = [
  // The pending deliveries only: the partial index holds nothing else.
  ['deliveryBacklog', (r) => r.deliveryBacklog(), ['webhook_deliveries USING INDEX deliveries_due']],
  // A range of the index (the last hour), not all the finished deliveries kept.
  [
    'deliveriesEndedSince',
    (r) => r.deliveriesEndedSince(new Date()),
    ['SEARCH webhook_deliveries USING INDEX deliveries_finished (<expr>>?)'],
  ],
  [
    'storedBytes',
    (r) => r.storedBytes(),
    ['captures USING COVERING INDEX captures_stored_bytes', 'jobs USING INDEX jobs_expiring'],
  ],
];
for (const [name, call, indexes] of cases) {
  it(`${name} reads through its index: ${indexes.join('; ')}`, async () => {
    const plans = await plansOf(call);
    expect(plans.filter((line) => /^SCAN (jobs|webhook_deliveries|captures)\b(?! USING)/.test(line))).toEqual([]);
    for (const plan of indexes)
      expect(
        plans.some((line) => line.includes(plan)),
        plan,
      ).toBe(true);
  });
}
