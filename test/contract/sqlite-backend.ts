// Opens a fresh, migrated SQLite backend in a temp dir for a contract suite; close() removes it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { SqliteBackend } from '../../src/stores/sql/sqlite/backend.js';
import { openDatabase } from '../../src/stores/sql/sqlite/connection.js';
import type { Backend } from '../../src/stores/backend.js';
import type { SharedDatabase } from './concurrency.contract.js';

export interface OpenedBackend {
  backend: Backend;
  close: () => Promise<void>;
}

export function openSqliteBackend(): Promise<OpenedBackend> {
  const dir = mkdtempSync(join(tmpdir(), 'pagewatch-contract-'));
  const db = openDatabase(join(dir, 'pagewatch.db'));
  migrate(db, readMigrations(resolve(import.meta.dirname, '../../migrations/sqlite')));
  const backend = new SqliteBackend(db);
  return Promise.resolve({
    backend,
    async close() {
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

/** A fresh migrated file and backends on it over handles of their own (SQLite's "connections"). */
export function openSharedSqlite(): Promise<SharedDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'pagewatch-shared-'));
  const file = join(dir, 'pagewatch.db');
  const first = openDatabase(file);
  migrate(first, readMigrations(resolve(import.meta.dirname, '../../migrations/sqlite')));
  const opened: SqliteBackend[] = [new SqliteBackend(first)];
  return Promise.resolve({
    backend: opened[0]!,
    another: () => {
      const backend = new SqliteBackend(openDatabase(file));
      opened.push(backend);
      return Promise.resolve(backend);
    },
    async close() {
      for (const backend of opened) await backend.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
