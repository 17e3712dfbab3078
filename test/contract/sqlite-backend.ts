// Opens a fresh, migrated SQLite backend in a temp dir for a contract suite; close() removes it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { SqliteBackend } from '../../src/db/sqlite-backend.js';
import { openDatabase } from '../../src/db/sqlite.js';
import type { Backend } from '../../src/stores/backend.js';

export interface OpenedBackend {
  backend: Backend;
  close: () => Promise<void>;
}

export function openSqliteBackend(): Promise<OpenedBackend> {
  const dir = mkdtempSync(join(tmpdir(), 'pagewatch-contract-'));
  const db = openDatabase(join(dir, 'pagewatch.db'));
  migrate(db, readMigrations(resolve(import.meta.dirname, '../../migrations')));
  const backend = new SqliteBackend(db);
  return Promise.resolve({
    backend,
    async close() {
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
