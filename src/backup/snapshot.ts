// `pagewatch backup --out DIR`: a consistent snapshot of a node's data while the service runs.
//
// SQLite: the online backup API copies the database as of one moment (one read transaction: in WAL mode
// the service's writes go on meanwhile). Stored files are written before the row that names them commits
// and deleted after the row that names them is gone, so the files are copied twice: once before the
// database (pass 1) and once after it (pass 2, the files that appeared meanwhile). Every row of the
// snapshot then has its file, except a job result that expired in the moment between pass 1 and the
// database copy (the sweeper removes the file, then marks the row; the result answers 410 either way).
// PostgreSQL: the database is the operator's pg_dump (pg-commands.ts); the stored files (storage.driver
// fs) and the secrets key are snapshotted the same way.
//
// The snapshot is written into DIR.partial and renamed to DIR once whole, with manifest.json listing every
// file with its size and SHA-256. It holds the secrets key: directories 0700, files 0600.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { chmod, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { KEY_FILE_NAME } from '../secrets/key-file.js';
import { storageDriver } from '../stores/files/open.js';
import type { AppliedMigration } from '../stores/sql/migrate.js';
import { sqliteFile } from '../stores/sql/open-backend.js';
import { PACKAGE_VERSION } from '../version.js';
import {
  hashFile,
  MANIFEST_FILE,
  SNAPSHOT_DATABASE,
  SNAPSHOT_FORMAT_VERSION,
  SnapshotError,
  type Manifest,
  type ManifestFile,
} from './manifest.js';
import { atOnce, copyFile, makePrivateDir, syncDir, syncDirsOf, syncFile } from './file-copy.js';
import { postgresCommands, urlWithoutPassword, type PostgresCommands } from './pg-commands.js';

/** The folders of dataDir the local file store keeps (storage.driver fs). */
export const STORED_FILE_DIRS = ['results', 'captures'] as const;

/** Pages per step of the online backup: all of them, in one read transaction (see copyDatabase). */
const ALL_PAGES = 0x7fffffff;

export interface SnapshotSummary {
  dir: string;
  manifest: Manifest;
  /** Stored files copied, and those of them that appeared between pass 1 and pass 2. */
  storedFiles: number;
  secondPassFiles: number;
  bytes: number;
  ms: number;
  /** PostgreSQL: the commands that dump and restore its database. */
  postgres?: PostgresCommands;
}

export async function takeSnapshot(config: Readonly<Config>, outDir: string): Promise<SnapshotSummary> {
  const started = performance.now();
  const dataDir = resolve(config.dataDir);
  const dir = resolve(outDir);
  const onPostgres = config.database.url !== '';
  const dbFile = sqliteFile(dataDir);
  if (!onPostgres && !existsSync(dbFile))
    throw new SnapshotError(`there is no database at ${dbFile}: nothing to back up (is dataDir right?)`);
  if (existsSync(dir)) throw new SnapshotError(`${dir} exists: a snapshot goes into a new directory`);
  if (!existsSync(dirname(dir))) throw new SnapshotError(`${dirname(dir)} does not exist`);

  const partial = `${dir}.partial`;
  await rm(partial, { recursive: true, force: true }); // what a backup that did not finish left
  await makePrivateDir(partial);
  const copied = new Map<string, ManifestFile>();
  const withFiles = storageDriver(config) === 'fs';
  try {
    if (withFiles) await copyStoredFiles(dataDir, partial, copied);
    const firstPass = copied.size;
    let database: Manifest['database'];
    if (onPostgres) {
      database = {
        kind: 'postgres',
        url: urlWithoutPassword(config.database.url),
        note: 'the database is not in this snapshot: it is the pg_dump taken with it',
      };
    } else {
      const migrations = await copyDatabase(dbFile, join(partial, SNAPSHOT_DATABASE));
      copied.set(SNAPSHOT_DATABASE, { path: SNAPSHOT_DATABASE, ...(await hashFile(join(partial, SNAPSHOT_DATABASE))) });
      database = { kind: 'sqlite', file: SNAPSHOT_DATABASE, migrations };
    }
    if (withFiles) await copyStoredFiles(dataDir, partial, copied);
    const secondPassFiles = copied.size - firstPass - (onPostgres ? 0 : 1);

    let secretsKey: Manifest['secretsKey'] = 'configured';
    if (config.secrets.key === '') {
      const copiedKey = await copyFile(join(dataDir, KEY_FILE_NAME), join(partial, KEY_FILE_NAME));
      if (copiedKey) copied.set(KEY_FILE_NAME, { path: KEY_FILE_NAME, ...copiedKey });
      secretsKey = copiedKey ? 'file' : 'none';
    }

    const files = [...copied.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const manifest: Manifest = {
      format: 'pagewatch-snapshot',
      formatVersion: SNAPSHOT_FORMAT_VERSION,
      pagewatchVersion: PACKAGE_VERSION,
      createdAt: new Date().toISOString(),
      database,
      storageDriver: storageDriver(config),
      secretsKey,
      files,
    };
    await writeDurably(join(partial, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    await syncDirsOf(partial, copied.keys());
    await rename(partial, dir);
    await syncDir(dirname(dir));
    const storedFiles = files.filter((f) => isStoredFile(f.path)).length;
    return {
      dir,
      manifest,
      storedFiles,
      secondPassFiles,
      bytes: files.reduce((sum, f) => sum + f.bytes, 0),
      ms: Math.round(performance.now() - started),
      ...(onPostgres && { postgres: postgresCommands(config.database.url) }),
    };
  } catch (err) {
    await rm(partial, { recursive: true, force: true }).catch(() => undefined);
    throw err;
  }
}

export const isStoredFile = (path: string): boolean => STORED_FILE_DIRS.some((d) => path.startsWith(`${d}/`));

/**
 * The database as of one moment, into `to`, with the migrations it has applied. All pages are copied in
 * one step: SQLite's backup restarts when another process writes between steps, so a stepped backup of a
 * busy service might never finish. The copy is checked and left in rollback-journal mode: one file.
 */
async function copyDatabase(from: string, to: string): Promise<AppliedMigration[]> {
  const source = new Database(from, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000'); // as the service's own connection waits for a writer
    await source.backup(to, { progress: () => ALL_PAGES });
  } finally {
    source.close();
  }
  const copy = new Database(to, { fileMustExist: true });
  try {
    const check = copy.pragma('integrity_check', { simple: true });
    if (check !== 'ok') throw new Error(`the copy of the database fails its integrity check: ${String(check)}`);
    copy.pragma('journal_mode = DELETE');
    return copy.prepare('SELECT name, checksum FROM schema_migrations ORDER BY name').all() as AppliedMigration[];
  } finally {
    copy.close();
    await chmod(to, 0o600);
  }
}

/** Every stored file of dataDir not copied yet into `into` (`.partial` files are writes under way). */
async function copyStoredFiles(dataDir: string, into: string, copied: Map<string, ManifestFile>): Promise<void> {
  const paths: string[] = [];
  for (const folder of STORED_FILE_DIRS)
    for (const path of await listFiles(join(dataDir, folder), folder))
      if (!copied.has(path) && !path.endsWith('.partial')) paths.push(path);
  await atOnce(paths, async (path) => {
    const file = await copyFile(join(dataDir, path), join(into, path));
    if (file) copied.set(path, { path, ...file }); // else deleted since it was listed
  });
}

/** Paths (relative to the store's parent, `folder/…`) of the files under `dir`, at any depth. */
async function listFiles(dir: string, folder: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  return entries
    .filter((e) => e.isFile())
    .map((e) => `${folder}/${join(e.parentPath, e.name).slice(dir.length + 1)}`)
    .sort();
}

async function writeDurably(path: string, text: string): Promise<void> {
  await writeFile(path, text, { mode: 0o600, flag: 'wx' });
  await syncFile(path);
}
