// Where stored files live (job results, monitor captures, diff images): behind one interface so the
// local directory (src/stores/files/local.ts) and PostgreSQL (src/stores/files/database.ts) are
// interchangeable. It sits with the stores because a database implements it, and stores import no engine.
import type { Readable } from 'node:stream';

export interface StoredFile {
  key: string;
  modifiedAt: Date;
  /** A half-written copy (the local store's `.partial`), listed under the key it was meant for. */
  partial?: boolean;
}

export interface FileStore {
  /** Store the bytes under `key`, replacing any earlier bytes: a reader sees the old or the new, never half. */
  put(key: string, bytes: Buffer): Promise<void>;
  /** The whole file; rejects with `code: 'ENOENT'` (see missingFile) when there is none. */
  get(key: string): Promise<Buffer>;
  /**
   * The file for a download, read in chunks as `body` is consumed (never whole in memory); rejects with
   * `code: 'ENOENT'` when there is none, as `get` does. If the file is replaced or removed while `body` is
   * read, `body` may fail with an error (the database store), but it never mixes two versions.
   */
  stream(key: string): Promise<{ size: number; body: Readable }>;
  /** Remove; a missing key is not an error. */
  remove(key: string): Promise<void>;
  /** Remove every key under `prefix/` (a monitor's captures). */
  removeFolder(prefix: string): Promise<void>;
  /** Every stored file; a half-written one is listed under the key it was meant for. */
  files(): AsyncIterable<StoredFile>;
}

const NAME = '[A-Za-z0-9_-]{1,100}';
/** `name` or `folder/name`: nothing a caller passes can reach outside the store's directory. */
const SAFE_KEY = new RegExp(`^${NAME}(/${NAME})?$`);
const SAFE_FOLDER = new RegExp(`^${NAME}$`);

export const isFileKey = (key: string): boolean => SAFE_KEY.test(key);

/** `key`, if every store can keep it; throws otherwise. */
export function checkFileKey(key: string): string {
  if (!SAFE_KEY.test(key)) throw new Error(`not a file key: ${key}`);
  return key;
}

/** `prefix`, if it names a folder of keys (`prefix/name`); throws otherwise. */
export function checkFolderName(prefix: string): string {
  if (!SAFE_FOLDER.test(prefix)) throw new Error(`not a folder name: ${prefix}`);
  return prefix;
}

/**
 * The error of a missing key, whatever the store: callers tell "gone" from a failure by `code === 'ENOENT'`,
 * which is what the local store's fs calls give.
 */
export function missingFile(key: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`no stored file ${key}`), { code: 'ENOENT' });
}
