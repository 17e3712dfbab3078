// storage.driver: which file stores results and captures go to, its default per database, and the
// configuration that cannot work (database storage on SQLite) refused at start-up with a clear message.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { loadConfig } from '../../src/config-load.js';
import { LocalFileStore } from '../../src/stores/files/local.js';
import { openFileStores, storageDriver, type FileStoreName } from '../../src/stores/files/open.js';
import type { FileStore } from '../../src/stores/file-store.js';

const POSTGRES = 'postgres://pagewatch@db.internal:5432/pagewatch';
const config = (env: Record<string, string>) => loadConfig({ env, overrides: {} });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-stores-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('an empty storage.driver means fs with SQLite and database with PostgreSQL; a set one is kept', () => {
  expect(storageDriver(config({}))).toBe('fs');
  expect(storageDriver(config({ PAGEWATCH_DATABASE_URL: POSTGRES }))).toBe('database');
  expect(storageDriver(config({ PAGEWATCH_DATABASE_URL: POSTGRES, PAGEWATCH_STORAGE_DRIVER: 'fs' }))).toBe('fs');
});

it('fs: a directory per store under dataDir', async () => {
  const stores = openFileStores(config({}), dir);
  expect(stores.results).toBeInstanceOf(LocalFileStore);
  await stores.results.put('job_a-1', Buffer.from('r'));
  await stores.captures.put('mon_a/cap_a', Buffer.from('c'));
  expect(existsSync(join(dir, 'results', 'job_a-1'))).toBe(true);
  expect(existsSync(join(dir, 'captures', 'mon_a', 'cap_a'))).toBe(true);
});

it('database: the database store of each name, and the local directories are not made', () => {
  const asked: FileStoreName[] = [];
  const made = (name: FileStoreName) => {
    asked.push(name);
    return { name } as unknown as FileStore;
  };
  const stores = openFileStores(config({ PAGEWATCH_DATABASE_URL: POSTGRES }), dir, made);
  expect(asked).toEqual(['results', 'captures']);
  expect(stores).toEqual({ results: { name: 'results' }, captures: { name: 'captures' } });
  expect(existsSync(join(dir, 'results'))).toBe(false);
});

it('storage.driver=database on SQLite is refused when the configuration loads, saying what to change', () => {
  const load = () => config({ PAGEWATCH_STORAGE_DRIVER: 'database' });
  expect(load).toThrow(ConfigError);
  expect(load).toThrow(/storage\.driver is "database".*database\.url is empty \(SQLite\).*storage\.driver to "fs"/);
});
