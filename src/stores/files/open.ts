// Which file stores the service keeps results and captures in (storage.driver): files under dataDir, or
// PostgreSQL. The database store is passed in by the caller (src/app/storage.ts), which opened the
// database it lives in.
import { resolve } from 'node:path';
import { checkStorageDriver, type Config } from '../../config.js';
import type { FileStore } from '../file-store.js';
import { LocalFileStore } from './local.js';

/** The two stores: each lists and sweeps only its own keys (a directory, or a namespace in the database). */
export interface FileStores {
  results: FileStore;
  captures: FileStore;
}

export type FileStoreName = keyof FileStores;

/** The database's file store of one name; absent when the service runs on SQLite. */
export type DatabaseFileStores = (name: FileStoreName) => FileStore;

/** storage.driver with its default resolved: database with PostgreSQL, fs with SQLite. */
export function storageDriver(config: Pick<Config, 'storage' | 'database'>): 'fs' | 'database' {
  return config.storage.driver || (config.database.url ? 'database' : 'fs');
}

export function openFileStores(
  config: Pick<Config, 'storage' | 'database'>,
  dataDir: string,
  database?: DatabaseFileStores,
): FileStores {
  if (storageDriver(config) === 'fs') {
    return {
      results: new LocalFileStore(resolve(dataDir, 'results')),
      captures: new LocalFileStore(resolve(dataDir, 'captures')),
    };
  }
  checkStorageDriver(config); // config-load refuses it already; a config built otherwise is checked here
  if (!database) throw new Error('storage.driver is "database" but no PostgreSQL file store was given');
  return { results: database('results'), captures: database('captures') };
}
