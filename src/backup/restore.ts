// `pagewatch restore DIR [--force]`: a snapshot of `pagewatch backup` back into dataDir, with the service
// stopped. Everything is checked before anything is touched: the manifest, every file's size and SHA-256,
// that the snapshot suits this configuration (SQLite or PostgreSQL, where files are kept), and that this
// version knows every migration its database has applied (migrations are forward-only). The snapshot is
// copied into a directory beside dataDir and renamed into place, so a crash midway leaves the old data as
// it was. Data already in dataDir is never deleted: with --force it is moved aside.
import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { readdir, readFile, rename, rmdir, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { ALIVE_WITHIN_MS } from '../operations/node-heartbeat.js';
import { KEY_FILE_NAME } from '../secrets/key-file.js';
import { storageDriver } from '../stores/files/open.js';
import { MigrationMismatchError, pendingMigrations, readMigrations } from '../stores/sql/migrate.js';
import { migrationsDir } from '../stores/sql/open-backend.js';
import {
  hashFile,
  MANIFEST_FILE,
  parseManifest,
  SNAPSHOT_DATABASE,
  SnapshotError,
  type Manifest,
  type ManifestFile,
} from './manifest.js';
import { postgresCommands, type PostgresCommands } from './pg-commands.js';
import { atOnce, copyFile, makePrivateDir, syncDir, syncDirsOf } from './file-copy.js';
import { isStoredFile, STORED_FILE_DIRS } from './snapshot.js';

export interface RestoreSummary {
  dataDir: string;
  /** Where the data that was in dataDir went (--force). */
  asideDir?: string;
  manifest: Manifest;
  files: number;
  bytes: number;
  ms: number;
  /** PostgreSQL: the command that restores the database from the pg_dump taken with the snapshot. */
  postgres?: PostgresCommands;
}

/** What a dataDir holds that a restore would replace. */
const DATA_ENTRIES = [SNAPSHOT_DATABASE, `${SNAPSHOT_DATABASE}-wal`, KEY_FILE_NAME, ...STORED_FILE_DIRS];

export async function restoreSnapshot(
  config: Readonly<Config>,
  snapshotDir: string,
  options: { force: boolean },
): Promise<RestoreSummary> {
  const started = performance.now();
  const from = resolve(snapshotDir);
  const manifest = await readManifest(from);
  checkSuits(manifest, config);

  const dataDir = resolve(config.dataDir);
  const present = existsSync(dataDir) ? DATA_ENTRIES.filter((name) => existsSync(join(dataDir, name))) : [];
  const stamp = new Date().toISOString().split(':').join('-');
  // A mount point (a container's volume) cannot be renamed, and what is beside it is another filesystem:
  // there the snapshot is staged, and the old data put aside, inside it.
  const mounted = isMountPoint(dataDir);
  const aside = mounted ? join(dataDir, `before-restore-${stamp}`) : `${dataDir}.before-restore-${stamp}`;
  const staging = mounted ? join(dataDir, `.restoring-${stamp}`) : `${dataDir}.restoring-${stamp}`;
  if (present.length && !options.force)
    throw new SnapshotError(
      `${dataDir} already holds data (${present.join(', ')}); nothing was restored. Stop the service, then ` +
        `restore --force moves it aside to ${aside} and restores the snapshot in its place`,
    );

  if (present.includes(SNAPSHOT_DATABASE)) refuseWhileServed(join(dataDir, SNAPSHOT_DATABASE));
  await verifyFiles(from, manifest.files);

  await makePrivateDir(staging);
  try {
    await atOnce(manifest.files, async (file) => {
      const copied = await copyFile(join(from, file.path), join(staging, file.path));
      // Checked again as copied: a snapshot changed since it was verified is not restored either.
      if (copied?.sha256 !== file.sha256)
        throw new SnapshotError(`${file.path} changed in the snapshot while it was restored; nothing was restored`);
    });
    await syncDirsOf(
      staging,
      manifest.files.map((f) => f.path),
    );
  } catch (err) {
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    throw err;
  }
  const moved = present.length > 0;
  await (mounted
    ? putInMountPoint(staging, dataDir, moved ? aside : undefined)
    : putInPlace(staging, dataDir, moved ? aside : undefined));
  return {
    dataDir,
    ...(moved && { asideDir: aside }),
    manifest,
    files: manifest.files.length,
    bytes: manifest.files.reduce((sum, f) => sum + f.bytes, 0),
    ms: Math.round(performance.now() - started),
    ...(manifest.database.kind === 'postgres' && { postgres: postgresCommands(config.database.url) }),
  };
}

async function readManifest(from: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(join(from, MANIFEST_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const unfinished = existsSync(`${from}.partial`)
      ? ` (${basename(from)}.partial is a backup that did not finish)`
      : '';
    throw new SnapshotError(`${from} has no ${MANIFEST_FILE}: it is not a snapshot${unfinished}`);
  }
  return parseManifest(text);
}

/** The snapshot can serve this configuration: the same kind of database, files kept the same way. */
function checkSuits(manifest: Manifest, config: Readonly<Config>): void {
  const onPostgres = config.database.url !== '';
  if (manifest.database.kind === 'sqlite' && onPostgres)
    throw new SnapshotError(
      'the snapshot holds a SQLite database, but database.url is set (PostgreSQL): restore it with database.url empty',
    );
  if (manifest.database.kind === 'postgres' && !onPostgres)
    throw new SnapshotError(
      'the snapshot was taken on PostgreSQL (its database is a pg_dump): set database.url to the database to ' +
        'restore into',
    );
  if (manifest.storageDriver !== storageDriver(config))
    throw new SnapshotError(
      `the snapshot's files were kept with storage.driver "${manifest.storageDriver}", and this configuration ` +
        `keeps them with "${storageDriver(config)}": set storage.driver to "${manifest.storageDriver}"`,
    );
  if (manifest.database.kind !== 'sqlite') return;
  try {
    pendingMigrations(manifest.database.migrations, readMigrations(migrationsDir('sqlite')));
  } catch (err) {
    if (err instanceof MigrationMismatchError) throw new SnapshotError(`cannot restore: ${err.message}`);
    throw err;
  }
  if (!manifest.files.some((f) => f.path === SNAPSHOT_DATABASE))
    throw new SnapshotError(`the snapshot is damaged: ${SNAPSHOT_DATABASE} is not in its manifest`);
}

/**
 * A service running on the data would go on writing into the directory moved aside: refused, --force or
 * not. Its node heartbeat says it runs (a node that was killed stops beating, and is past it 15 s later).
 */
function refuseWhileServed(file: string): void {
  let alive: { host: string; pid: number; heartbeat_at: string }[];
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const since = new Date(Date.now() - ALIVE_WITHIN_MS).toISOString();
    alive = db.prepare('SELECT host, pid, heartbeat_at FROM nodes WHERE heartbeat_at > ?').all(since) as typeof alive;
  } catch {
    return; // a database of a release before the node registry: nothing says a service runs
  } finally {
    db.close();
  }
  const node = alive[0];
  if (node)
    throw new SnapshotError(
      `a service is running on ${dirname(file)} (pid ${node.pid} on ${node.host}, its last heartbeat at ` +
        `${node.heartbeat_at}); nothing was restored: stop it first`,
    );
}

/** Every file the manifest lists is there, whole; refuses, naming the file, before anything is touched. */
async function verifyFiles(from: string, files: readonly ManifestFile[]): Promise<void> {
  await atOnce(files, async (file) => {
    if (!isSnapshotPath(file.path))
      throw new SnapshotError(`the manifest lists ${JSON.stringify(file.path)}, which no snapshot holds`);
    let found: { bytes: number; sha256: string };
    try {
      found = await hashFile(join(from, file.path));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      throw new SnapshotError(`the snapshot is damaged: ${file.path} is missing; nothing was restored`);
    }
    if (found.bytes !== file.bytes || found.sha256 !== file.sha256)
      throw new SnapshotError(
        `the snapshot is damaged: ${file.path} is not what was backed up (` +
          (found.bytes !== file.bytes ? `${found.bytes} bytes, not ${file.bytes}` : 'its SHA-256 differs') +
          '); nothing was restored',
      );
  });
}

/** The database, the secrets key, or a stored file: never a path that leaves the snapshot. */
function isSnapshotPath(path: string): boolean {
  if (path === SNAPSHOT_DATABASE || path === KEY_FILE_NAME) return true;
  return isStoredFile(path) && path.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

/**
 * The staged snapshot becomes dataDir. Old data is renamed aside whole first; a dataDir that holds none of
 * it (an empty directory, or one with other things) takes the staged entries one by one.
 */
async function putInPlace(staging: string, dataDir: string, aside: string | undefined): Promise<void> {
  if (aside) await rename(dataDir, aside);
  if (!existsSync(dataDir)) await rename(staging, dataDir);
  else await moveEntries(staging, dataDir);
  await syncDir(dirname(dataDir));
}

/**
 * The same inside a mount point, entry by entry: the old data's entries go into `aside` (in dataDir),
 * then the staged ones into dataDir. A crash midway leaves each entry, old or new, in one of the three
 * places, none lost.
 */
async function putInMountPoint(staging: string, dataDir: string, aside: string | undefined): Promise<void> {
  if (aside) {
    await makePrivateDir(aside);
    for (const name of [...DATA_ENTRIES, `${SNAPSHOT_DATABASE}-shm`])
      if (existsSync(join(dataDir, name))) await rename(join(dataDir, name), join(aside, name));
    await syncDir(aside);
  }
  await moveEntries(staging, dataDir);
}

async function moveEntries(from: string, into: string): Promise<void> {
  for (const entry of await readdir(from)) await rename(join(from, entry), join(into, entry));
  await rmdir(from);
  await syncDir(into);
}

/** True when `dir` is the root of a filesystem of its own (its parent is on another device). */
function isMountPoint(dir: string): boolean {
  if (!existsSync(dir)) return false;
  return statSync(dir).dev !== statSync(dirname(dir)).dev;
}
