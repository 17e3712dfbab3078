// The sweeper's pass runs inside Backend.runExclusive: while another node holds the sweep (runExclusive
// answers undefined without running it), this node deletes nothing; once free, the same pass sweeps.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { openDatabase } from '../../src/stores/sql/sqlite/connection.js';
import { SqliteBackend } from '../../src/stores/sql/sqlite/backend.js';
import { Sweeper } from '../../src/jobs/sweeper.js';
import { createLogger } from '../../src/log.js';
import { projectRoot } from '../../src/project-root.js';
import { LocalFileStore } from '../../src/stores/files/local.js';
import type { Backend } from '../../src/stores/backend.js';

let dir: string;
let backend: SqliteBackend;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-sweep-exclusive-'));
  const db = openDatabase(join(dir, 'test.db'));
  migrate(db, readMigrations(resolve(projectRoot(), 'migrations', 'sqlite')));
  backend = new SqliteBackend(db);
});
afterEach(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

it('sweeps nothing while another node holds the sweep, and sweeps once it is free', async () => {
  const { keys, idempotency, jobs } = backend.stores;
  const keyId = (await keys.create('k')).id;
  const long = new Date('2026-01-01T00:00:00.000Z');
  await jobs.insert({ id: 'job_1', keyId, kind: 'pdf', request: {}, keptRequest: {}, baseUrl: 'http://x' }, long);
  await idempotency.put(keyId, 'idem', 'hash', 'job_1', long); // days past its 24 h window
  let heldElsewhere = true;
  const names: string[] = [];
  const exclusive: Pick<Backend, 'runExclusive'> = {
    runExclusive: (name, fn) => {
      names.push(name);
      return heldElsewhere ? Promise.resolve(undefined) : fn();
    },
  };
  const results = new LocalFileStore(join(dir, 'results'));
  const log = createLogger('silent');
  const sweeper = new Sweeper({
    stores: backend.stores,
    results,
    intervalMs: 60_000,
    log,
    orphanSources: [],
    recordTtlMs: 30 * 86_400_000,
    exclusive,
  });
  const now = new Date('2026-01-05T00:00:00.000Z');

  await sweeper.sweep(now);
  expect(await idempotency.find(keyId, 'idem', long)).toBeDefined();
  heldElsewhere = false;
  await sweeper.sweep(now);
  expect(await idempotency.find(keyId, 'idem', long)).toBeUndefined();
  expect(names).toEqual(['pagewatch:sweep', 'pagewatch:sweep']);
});
