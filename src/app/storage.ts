// What every command works on: the database, opened and migrated (SQLite in dataDir, or PostgreSQL at
// database.url), and the file stores storage.driver names. `serve` and the CLI's commands all open it
// here, so a command that deletes stored files deletes them where the service keeps them.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { openFileStores, type FileStores } from '../stores/files/open.js';
import { openBackend, type OpenedBackend } from '../stores/sql/open-backend.js';

export interface Storage extends OpenedBackend {
  /**
   * The results and captures stores, made on first use: a command that touches no stored file (migrate,
   * keys create) leaves dataDir as it found it (a local store makes its directory).
   */
  files(): FileStores;
}

export async function openStorage(config: Readonly<Config>, log: Logger): Promise<Storage> {
  const opened = await openBackend(config, log);
  let files: FileStores | undefined;
  return {
    ...opened,
    files: () => (files ??= openFileStores(config, config.dataDir, opened.databaseFiles)),
  };
}
